"""`jetwise validate CONFIG.json`: every problem with a configuration and the machine, at once."""

from __future__ import annotations

import argparse
import sys

from app.cli.configs import load_checked
from app.cli.console import print_problems
from app.cli.options import path_type
from app.context import AppContext
from engine.io.platform import default_backend
from engine.io.preflight import validate_config
from engine.model.validation import Severity, errors_only
from engine.protocol import ExitCode


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", type=path_type, metavar="CONFIG")


def run(args: argparse.Namespace, _context: AppContext) -> int:
    config, problems = load_checked(args.config)
    if config is not None:  # what reading said (an imported JetstressConfig.xml's warnings), then the checks
        problems = problems + validate_config(config, default_backend())[0]
    print_problems(problems, sys.stdout)
    if errors_only(problems):
        print(f"{args.config}: {len(errors_only(problems)):,} problem(s)", file=sys.stderr)
        return ExitCode.INVALID
    warnings = sum(p.severity == Severity.WARNING for p in problems)  # valid, but not to be run unread
    print(f"{args.config}: valid" + (f", with {warnings:,} warning(s) above to read before running" if warnings else ""),
          file=sys.stderr)
    return ExitCode.PASS
