"""`jetwise init OUT.json`: a complete test configuration, the defaults filled in."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from app.cli.console import print_problems
from app.cli.options import FOLDERS, add_folder_flags, add_option_flags, file_path_type, number_type, option_values
from app.context import AppContext, UsageError, writable_destination
from engine.io.capacity import CapacityError, sized_if_throughput
from engine.io.config_file import save_config
from engine.model.config import TestConfig
from engine.model.derive import FolderListError, expand_paths, target_words, with_derived_defaults
from engine.model.options import option
from engine.model.units import format_bytes
from engine.model.validation import Problem, check_rules, errors_only, validate_data
from engine.protocol import ExitCode


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("output", type=file_path_type, metavar="OUT.json")
    parser.add_argument("--force", action="store_true", help="overwrite OUT.json if it exists")
    databases = option("databases")
    parser.add_argument("--databases", type=number_type(int, "--databases"), default=2, metavar="N",
                        help=f"{databases.description} [{databases.bounds_words()}] (default 2)")
    add_folder_flags(parser, "or a base folder that gets {leaf}1, {leaf}2, ...")
    add_option_flags(parser)


def config_from_args(args: argparse.Namespace) -> tuple[TestConfig | None, list[Problem]]:
    most = int(option("databases").maximum or 1)
    if not 1 <= args.databases <= most:
        return None, [Problem("databases", f"give 1 to {most} databases (got {args.databases:,})")]
    base = Path.cwd() / "jetwise-data"
    folders: dict[str, list[Path]] = {}
    for path, leaf in FOLDERS:
        name = path.rpartition(".")[2]
        try:
            folders[name] = expand_paths(getattr(args, name), args.databases, base, leaf)
        except FolderListError as exc:
            raise UsageError(f"{option(path).flag}: {exc}") from exc
    data: dict[str, Any] = option_values(args)
    data["databases"] = [{"database_path": str(d), "log_path": str(lg)}
                         for d, lg in zip(folders["database_path"], folders["log_path"], strict=True)]
    config, problems = validate_data(with_derived_defaults(data, args.databases))
    if config is not None:
        try:
            config, words = sized_if_throughput(config)
        except CapacityError as exc:
            raise UsageError(f"{option('databases[].database_path').flag}: {exc}; or give --database-size-mb") from exc
        if words:
            print(f"Disk throughput: {words}", file=sys.stderr)
    if config is not None:  # what validate would refuse is not written: each database's thread, folders of its own
        problems = check_rules(config)
    return (None if errors_only(problems) else config), problems


def run(args: argparse.Namespace, _context: AppContext) -> int:
    if args.output.is_dir():
        raise UsageError(f"{args.output} is a folder; give the file to write, e.g. {args.output / 'test.json'}")
    if args.output.exists() and not args.force:
        raise UsageError(f"{args.output} exists; use --force to overwrite it")
    if not args.output.parent.is_dir():
        what = "is a file, not a folder" if args.output.parent.exists() else "does not exist"
        raise UsageError(f"the folder {args.output.parent} {what}; create it or write the file elsewhere")
    writable_destination("", args.output)
    config, problems = config_from_args(args)
    print_problems(problems, sys.stderr, flags=True)
    if config is None:
        return ExitCode.INVALID
    try:
        save_config(config, args.output)
    except OSError as exc:
        raise UsageError(f"cannot write {args.output}: {exc.strerror or exc}") from exc
    print(
        f"Wrote {args.output}: {config.database_count} database(s) of {format_bytes(config.database_size_bytes)}, "
        f"{target_words(config.target_transactional_iops)}, {config.thread_count} thread(s)",
        file=sys.stderr,
    )
    return ExitCode.PASS
