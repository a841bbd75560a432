"""`jetwise report RUN [--html FILE] [--pdf FILE] [--csv FILE]`: the report of a run, headless."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app.cli.options import path_type
from app.context import AppContext, UsageError
from engine.protocol import ExitCode
from engine.store.sqlite import Store, StoreError
from reporting.bundle import ReportError, RunBundle, load_run
from reporting.csv_export import write_csv
from reporting.document import render_html


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run", type=_run_reference, metavar="RUN", help="a run id from the store, or a run output folder")
    parser.add_argument("--html", type=path_type, default=None, metavar="FILE", help="self-contained HTML report")
    parser.add_argument("--pdf", type=path_type, default=None, metavar="FILE", help="PDF report")
    parser.add_argument("--csv", type=path_type, default=None, metavar="FILE",
                        help="interval samples, a row per interval per instance (a checksum or backup adds a row per database)")
    parser.add_argument("--page-size", choices=["a4", "letter"], default="a4", help="PDF page size (default A4)")


def run(args: argparse.Namespace, context: AppContext) -> int:
    if not (args.html or args.pdf or args.csv):
        args.html = Path(f"jetwise-report-{Path(args.run).name}.html")
    try:
        store: Store | None = context.store
    except StoreError:
        if not Path(args.run).is_dir():
            raise
        store = None  # a run folder reads without the store; only its session's other runs are missing
    for flag, target in (("--html", args.html), ("--pdf", args.pdf), ("--csv", args.csv)):
        if target is not None and (target.is_dir() or not target.parent.is_dir()):
            where = "is a folder" if target.is_dir() else f"is in a folder that does not exist ({target.parent})"
            raise UsageError(f"{flag} {target} {where}; give a file to write")
    try:
        bundle = load_run(args.run, store)
    except ReportError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return ExitCode.INVALID
    try:
        return _write(args, bundle)
    except OSError as exc:
        raise UsageError(f"cannot write {exc.filename or 'the report'}: {exc.strerror or exc}") from exc


def _run_reference(text: str) -> str:
    """A run id or folder as typed, refused as a path is when empty (the current folder) or holding a NUL."""
    path_type(text)
    return text


def _write(args: argparse.Namespace, bundle: RunBundle) -> int:
    if args.html:
        args.html.write_text(render_html(bundle), encoding="utf-8")
        print(f"HTML report: {args.html}", file=sys.stderr)
    if args.csv:
        rows = write_csv(bundle, args.csv)
        scanned = f", {len(bundle.result.scan.databases)} of them a database's scan" if bundle.result.scan else ""
        print(f"CSV samples: {args.csv} ({rows} rows{scanned})", file=sys.stderr)
    if args.pdf:
        from app.window import (
            ensure_gui_application,  # Qt's printing: offscreen when there is no display
        )
        from ui.printing import write_pdf

        ensure_gui_application()
        pages = write_pdf(bundle, args.pdf, args.page_size)
        print(f"PDF report: {args.pdf} ({pages} pages, {args.page_size.upper()})", file=sys.stderr)
    return ExitCode.PASS
