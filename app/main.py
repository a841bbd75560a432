"""Entry point of the `jetwise` command (and of the frozen executable)."""

from __future__ import annotations

import multiprocessing
import sys


def main(argv: list[str] | None = None) -> int:
    # Worker processes are spawned; in a frozen executable they re-enter here first.
    multiprocessing.freeze_support()
    from app.cli import run_cli

    return run_cli(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main())
