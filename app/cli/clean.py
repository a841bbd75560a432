"""`jetwise clean CONFIG.json [--yes]`: the test databases, log files and backup copies a configuration's runs left,
with the space they hold; removed with --yes. Only files with a Jetwise header are listed or removed, and none in a folder a run holds."""

from __future__ import annotations

import argparse
import sys

from app.cli.configs import load_checked
from app.cli.console import print_problems
from app.cli.options import path_type
from app.context import AppContext
from engine.io.cleanup import folders_in_use, leftover_files, remove_leftovers
from engine.io.locks import FolderInUseError
from engine.model.units import format_bytes
from engine.model.validation import errors_only
from engine.protocol import ExitCode


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", type=path_type, metavar="CONFIG")
    parser.add_argument("--yes", action="store_true", help="remove them (without it, only list them)")


def run(args: argparse.Namespace, _context: AppContext) -> int:
    config, problems = load_checked(args.config)
    if config is None or errors_only(problems):
        print_problems(problems, sys.stderr)
        return ExitCode.INVALID
    files = leftover_files(config)
    if not files.paths:
        print(f"No Jetwise test files in the folders of {args.config}: nothing to remove")
        return ExitCode.PASS
    for folder, mine in files.folders.items():
        print(f"{folder}: {len(mine):,} file(s), {format_bytes(sum(files.sizes[path] for path in mine))}")
    if busy := folders_in_use(files):
        for problem in busy:
            print(f"error: {problem}; its test files are not removed", file=sys.stderr)
        return ExitCode.INVALID
    if not args.yes:
        print(f"{len(files.paths):,} Jetwise test file(s), {format_bytes(files.size_bytes)}: run again with --yes to "
              "remove them")
        return ExitCode.PASS
    try:
        freed, kept = remove_leftovers(files)
    except FolderInUseError as exc:  # a run began since they were listed
        print(f"error: {exc}; nothing was removed", file=sys.stderr)
        return ExitCode.INVALID
    print(f"Removed {len(files.paths) - len(kept):,} Jetwise test file(s): {format_bytes(freed)} freed")
    for path in kept:
        print(f"note: {path} was left: it no longer carries a Jetwise header", file=sys.stderr)
    return ExitCode.PASS
