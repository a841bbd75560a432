"""`jetwise report RUN [--html FILE] [--pdf FILE] [--csv FILE]`: the report of a run, headless."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from engine.protocol import ExitCode
from reporting.bundle import ReportError, load_run
from reporting.csv_export import write_csv
from reporting.document import render_html


def cmd_report(args: argparse.Namespace) -> int:
    if not (args.html or args.pdf or args.csv):
        args.html = Path(f"jetwise-report-{Path(args.run).name}.html")
    try:
        bundle = load_run(args.run)
    except ReportError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return ExitCode.INVALID
    if args.html:
        args.html.write_text(render_html(bundle), encoding="utf-8")
        print(f"HTML report: {args.html}", file=sys.stderr)
    if args.csv:
        rows = write_csv(bundle, args.csv)
        print(f"CSV samples: {args.csv} ({rows} rows)", file=sys.stderr)
    if args.pdf:
        from app.window import (
            ensure_gui_application,  # Qt's printing: offscreen when there is no display
        )
        from ui.printing import write_pdf

        ensure_gui_application()
        pages = write_pdf(bundle, args.pdf, args.page_size)
        print(f"PDF report: {args.pdf} ({pages} pages, {args.page_size.upper()})", file=sys.stderr)
    return ExitCode.PASS
