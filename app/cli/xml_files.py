"""What `jetwise import-xml` and `jetwise export-xml` share: the file they write, never one they were not told to
replace, and the database folders typed in place of a JetstressConfig.xml's EseInstances."""

from __future__ import annotations

import argparse
from pathlib import Path

from app.cli.options import FOLDERS, path_type
from app.context import UsageError, writable_destination
from engine.model.derive import FolderListError, expand_paths
from engine.model.options import option


def add_output(parser: argparse.ArgumentParser, metavar: str, default_words: str) -> None:
    parser.add_argument("-o", "--output", type=path_type, default=None, metavar=metavar,
                        help=f"the file to write (default: {default_words})")
    parser.add_argument("--force", action="store_true", help="overwrite the output file if it exists")


def output_for(given: Path | None, source: Path, suffix: str) -> Path:
    """The file to write: the one given, else `source`'s name with `suffix` beside it (a folder is no source)."""
    if source.is_dir() or not source.name:
        raise UsageError(f"{source} is a folder; give the file to read")
    return given or source.with_suffix(suffix)


def writable_output(output: Path, force: bool) -> Path:
    """`output` when it may be written: not a folder, not an existing file without --force, in a folder that exists."""
    if output.is_dir():
        raise UsageError(f"{output} is a folder; give the file to write")
    if output.exists() and not force:
        raise UsageError(f"{output} exists; use --force to overwrite it")
    if not output.parent.is_dir():
        what = "is a file, not a folder" if output.parent.exists() else "does not exist"
        raise UsageError(f"the folder {output.parent} {what}; create it or write the file elsewhere")
    return writable_destination("", output)


def typed_databases(args: argparse.Namespace) -> list[dict[str, str]] | None:
    """The databases' folders typed on the command line (one database per --db-path), or None when none were."""
    flags = (option(FOLDERS[0][0]).flag or "", option(FOLDERS[1][0]).flag or "")
    return databases_from(args.database_path, args.log_path, flags)


def databases_from(database_paths: list[str] | None, log_paths: list[str] | None,
                   flags: tuple[str, str]) -> list[dict[str, str]] | None:
    """Databases from their folders as typed after `flags`: one folder each, or one with {n} for all of them (the
    other list gives the count); None when neither was typed."""
    if not database_paths and not log_paths:
        return None
    if not (database_paths and log_paths):
        missing = flags[1] if database_paths else flags[0]
        raise UsageError(f"give {missing} too: each database needs its database folder and its log folder")
    count = max(len(database_paths), len(log_paths))
    try:
        folders = [expand_paths(typed, count, Path.cwd(), leaf)
                   for typed, (_, leaf) in zip((database_paths, log_paths), FOLDERS, strict=True)]
    except FolderListError as exc:
        raise UsageError(f"{flags[0]}, {flags[1]}: {exc}") from exc
    return [{"database_path": str(d), "log_path": str(lg)} for d, lg in zip(*folders, strict=True)]
