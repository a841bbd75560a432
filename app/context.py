"""The composition root: what a sub-command or the window is given rather than builds for itself.

One `AppContext` per process opens the run store once, on first need, and closes it at
exit; `app.opening` builds the runners on it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from engine.io.safety import destination_problem
from engine.model.config import TestConfig
from engine.run.sources.model import PROFILES, StorageModel
from engine.store.sqlite import Store, StoreError


class UsageError(Exception):
    """Bad input: the command exits with code 2 and this message."""


class WaitStoppedError(Exception):
    """Stopped (Ctrl-C) while a test across servers waited for its agents: the command exits as aborted."""

    def __init__(self) -> None:
        super().__init__("Stopped while waiting for the agents: no test began.")


def writable_destination(flag: str, path: Path, *, folder: bool = False) -> Path:
    """`path`, given after `flag` for a command to write (a file, or with `folder` a folder to write files in), once
    the one rule of where Jetwise writes allows it (`engine.io.safety.destination_problem`); else UsageError."""
    if (problem := destination_problem(path, folder=folder)) is not None:
        raise UsageError(f"{flag} {problem}" if flag else problem)
    return path


def unusable_path(path: Path) -> str | None:
    """Why no file system could hold `path` (a name too long), or None; a path not there yet is fine."""
    try:
        path.exists()
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def simulated_model(name: str | None) -> StorageModel | None:
    """The simulated storage profile `name`, or None for the real disk."""
    if name is None:
        return None
    if name not in PROFILES:
        known = ", ".join(sorted(PROFILES))
        raise UsageError(f"no simulated storage profile '{name}'; choose one of: {known}")
    return PROFILES[name]


class AppContext:
    """The store, opened once, and the sessions in it."""

    def __init__(self, store_path: Path | None = None) -> None:
        self._store_path = store_path
        self._store: Store | None = None

    @property
    def store(self) -> Store:
        """The run store (opened on first use; a `StoreError` says why it cannot be)."""
        if self._store is None:
            self._store = Store(self._store_path)
        return self._store

    def store_for(self, run: str) -> Store | None:
        """The run store, or None where it cannot be opened and `run` is a run folder, which reads without it (only
        its session's other runs are missing)."""
        try:
            return self.store
        except StoreError:
            if not Path(run).is_dir():
                raise
            return None

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    def session(self, wanted: str, config: TestConfig, note: Callable[[str], None]) -> str:
        """The tuning session a run of `config` joins: `wanted`, or "wanted (2)" for another storage design."""
        name, words = self.store.resolve_session(wanted, config)
        if words is not None:
            note(words)
        return name
