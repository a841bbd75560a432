"""`jetwise export RUN --format csv|jsonl|parquet [--interval 15s] [--output FILE]`: a run's full sample series.

The server's figures per sample interval (or per `--interval`, added up), each instance's per window
(15 s, or the interval when longer). Written as read: a day-long run on 48 databases is never held in
memory. RUN is a run id from the store or a run folder, killed runs included.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app.cli.options import file_to_write, path_type
from app.cli.report import run_reference
from app.context import AppContext, UsageError
from engine.model.units import parse_duration_s
from engine.protocol import ExitCode
from reporting.bundle import ReportError, load_run
from reporting.export import FORMATS, export

SUFFIXES = {"csv": ".csv", "jsonl": ".jsonl", "parquet": ".parquet"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run", type=run_reference, metavar="RUN",
                        help="a run id from the store (or its first or last characters) or a run output folder")
    parser.add_argument("--format", choices=FORMATS, default="csv",
                        help="csv (a row per interval: the server's as _Total, each instance's every 15 s), jsonl (a "
                             "sample per line, as older run folders kept them) or parquet (needs pyarrow) (default csv)")
    parser.add_argument("--interval", type=_interval, default=None,
                        metavar="DURATION", help="add the samples up over this long each, e.g. 15s or 1m (default: "
                                                 "as recorded)")
    parser.add_argument("--output", type=path_type, default=None, metavar="FILE",
                        help="the file to write (default jetwise-samples-RUN.<format> here)")
    parser.add_argument("--force", action="store_true", help="overwrite the file if it exists")


def _interval(text: str) -> float:
    try:
        return parse_duration_s(text, allow_zero=False)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def run(args: argparse.Namespace, context: AppContext) -> int:
    if args.output is not None:
        _check_output(args.output, args.force)  # before the run is read: a mistyped --output is said at once
    store = context.store_for(args.run)
    try:
        bundle = load_run(args.run, store)
        name = Path(args.run).name if Path(args.run).is_dir() else bundle.result.run_id  # the whole id, when part was typed
        output: Path = args.output or _check_output(Path(f"jetwise-samples-{name}{SUFFIXES[args.format]}"), args.force)
        rows = export(bundle, output, args.format, args.interval)
    except ReportError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return ExitCode.INVALID
    except OSError as exc:
        raise UsageError(f"cannot write {exc.filename or 'the samples'}: {exc.strerror or exc}") from exc
    what = "lines" if args.format == "jsonl" else "rows"
    print(f"Samples of {bundle.result.run_id}: {output} ({rows:,} {what}, {args.format})", file=sys.stderr)
    return ExitCode.PASS


def _check_output(output: Path, force: bool) -> Path:
    file_to_write("--output", output)
    if output.exists() and not force:
        raise UsageError(f"{output} exists; use --force to overwrite it")
    return output
