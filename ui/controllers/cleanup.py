"""File → Delete test files: the databases, log files and backup copies the test planned (or last run) left in its
folders, with the space they hold, removed once the engineer confirms (`engine.io.cleanup`). A test across servers
left each server's files on that server, where its agent made them: said, with where and how to remove them."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QWidget

from engine.io.cleanup import folders_in_use, leftover_files, remove_leftovers
from engine.io.locks import FolderInUseError
from engine.model.config import TestConfig
from engine.model.units import format_bytes
from ui import confirm


def delete_test_files(parent: QWidget, config: TestConfig | None, running: bool, output: Path | None = None) -> str:
    """Ask, then remove; what the status bar says of it (of a test across servers, where each server's files are and
    how to remove them there: `output`, its last run's folder, holds each server's own configuration)."""
    if running:
        return "A test is running: stop it first; its files are in use"
    if config is None:
        return "No test planned yet: its folders are where its test files would be"
    if config.servers:  # its files are on its servers; this server may hold none of them
        own = (f"its config.json in {output / 'hosts'}\\<server>" if output is not None else
               "its configuration (its part's config.json)")
        return (f"A test across servers leaves its test files on each server, where its agent made them: "
                f"{_servers_folders(config)}. On each server run jetwise clean with that server's own configuration "
                f"({own}): it deletes only files with a Jetwise header, and refuses a running test's")
    files = leftover_files(config)
    if not files.paths:
        return "No Jetwise test files in this test's folders: nothing to delete"
    if busy := folders_in_use(files):
        return f"Nothing deleted: {'; '.join(busy)}"
    where = "\n".join(f"  {folder}" for folder in files.folders)
    if not confirm.ask(parent, "Delete test files?",
                       f"Delete {len(files.paths):,} Jetwise test file(s), {format_bytes(files.size_bytes)}, from:\n{where}\n\n"
                       "Only files with a Jetwise header are deleted; the next test creates its databases again.",
                       yes="Delete them", no="Keep them"):
        return "Nothing deleted"
    try:
        freed, kept = remove_leftovers(files)
    except FolderInUseError as exc:  # a run began while the question was asked
        return f"Nothing deleted: {exc}"
    left = f"; {len(kept):,} left (no longer Jetwise's)" if kept else ""
    return f"Deleted {len(files.paths) - len(kept):,} test file(s): {format_bytes(freed)} freed{left}"


def _servers_folders(config: TestConfig) -> str:
    """Each server of `config` with the folders its test files are in."""
    def folders(host: str) -> str:
        own = config.for_server(host).databases
        return ", ".join(str(path) for path in dict.fromkeys(
            path for index, spec in enumerate(own) for _field, path, _file in spec.folders(index)))

    return "; ".join(f"{host} in {folders(host)}" for host in config.server_names)
