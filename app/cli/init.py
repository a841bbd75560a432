"""`jetwise init OUT.json`: a complete test configuration, the defaults filled in."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from app.cli.console import print_problems
from app.cli.options import add_option_flags, option_values
from app.context import AppContext, UsageError
from engine.model.config import TestConfig, save_config
from engine.model.derive import PathCountError, expand_paths, with_derived_defaults
from engine.model.options import option
from engine.model.units import format_bytes
from engine.model.validation import Problem, validate_data
from engine.protocol import ExitCode


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("output", type=Path, metavar="OUT.json")
    parser.add_argument("--force", action="store_true", help="overwrite OUT.json if it exists")
    databases = option("databases")
    parser.add_argument("--databases", type=int, default=2, metavar="N",
                        help=f"{databases.description} [{databases.bounds_words()}] (default 2)")
    for path, leaf in (("databases[].database_path", "DB"), ("databases[].log_path", "Log")):
        declared = option(path)
        parser.add_argument(
            declared.flag or "", dest=path.rpartition(".")[2], action="extend", nargs="+", type=str, default=None,
            metavar="DIR", help=f"{declared.description} One per database, or one with {{n}} (F:\\{leaf}{{n}}), "
            f"or a base folder that gets {leaf}1, {leaf}2, ...",
        )
    add_option_flags(parser)


def config_from_args(args: argparse.Namespace) -> tuple[TestConfig | None, list[Problem]]:
    most = int(option("databases").maximum or 1)
    if not 1 <= args.databases <= most:
        return None, [Problem("databases", f"give 1 to {most} databases (got {args.databases:,})")]
    base = Path.cwd() / "jetwise-data"
    try:
        db_paths = expand_paths(args.database_path, args.databases, base, "DB")
        log_paths = expand_paths(args.log_path, args.databases, base, "Log")
    except PathCountError as exc:
        raise UsageError(str(exc)) from exc
    data: dict[str, Any] = option_values(args)
    data["databases"] = [{"database_path": str(d), "log_path": str(lg)} for d, lg in zip(db_paths, log_paths, strict=True)]
    return validate_data(with_derived_defaults(data, args.databases))


def run(args: argparse.Namespace, _context: AppContext) -> int:
    if args.output.is_dir():
        raise UsageError(f"{args.output} is a folder; give the file to write, e.g. {args.output / 'test.json'}")
    if args.output.exists() and not args.force:
        raise UsageError(f"{args.output} exists; use --force to overwrite it")
    if not args.output.parent.is_dir():
        raise UsageError(f"the folder {args.output.parent} does not exist; create it or write the file elsewhere")
    config, problems = config_from_args(args)
    if config is None:
        print_problems(problems, sys.stderr, flags=True)
        return ExitCode.INVALID
    try:
        save_config(config, args.output)
    except OSError as exc:
        raise UsageError(f"cannot write {args.output}: {exc.strerror or exc}") from exc
    print(
        f"Wrote {args.output}: {config.database_count} database(s) of {format_bytes(config.database_size_bytes)}, "
        f"target {config.target_transactional_iops:,.1f} transactional IOPS, {config.thread_count} thread(s)",
        file=sys.stderr,
    )
    return ExitCode.PASS
