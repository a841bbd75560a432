"""Entry point of the `jetwise` command (and of the frozen executable)."""

from __future__ import annotations

import multiprocessing
import os
import sys
from typing import Any, TextIO


class _QuietWhenGone:
    """A console stream that takes output silently once its terminal or pipe is gone.

    A remote session that drops (SIGHUP) or a window that closed leaves the run going to its
    result; printing its summary must not turn that into a crash, nor its exit code into 1.
    The stream's descriptor is pointed at the null device, so nothing fails at exit either.
    """

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except OSError:
            self._gone()
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError:
            self._gone()

    def _gone(self) -> None:
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, self._stream.fileno())
            os.close(null)
        except (OSError, ValueError):
            pass

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def main(argv: list[str] | None = None) -> int:
    # Worker processes are spawned; in a frozen executable they re-enter here first.
    multiprocessing.freeze_support()
    from app.cli import run_cli

    if sys.stdout is not None and sys.stderr is not None:  # None under a windowed (no console) executable
        sys.stdout = _QuietWhenGone(sys.stdout)
        sys.stderr = _QuietWhenGone(sys.stderr)

    return run_cli(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main())
