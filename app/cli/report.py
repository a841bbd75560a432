"""`jetwise report RUN [--html FILE] [--pdf FILE] [--csv FILE] [--jetstress DIR]`: the report of a run, or of an ESRP
suite, headless; with --jetstress, the run's result files in Jetstress's layout (written at a run's end too), for a
killed run as well.

RUN is a run id (or its first or last characters, when they name one run alone), a run folder, a suite's folder
(one `jetwise suite` wrote, with its suite.json): a suite's report is the combined one, its summary then each stage's
report, and its CSV holds every stage's rows. A test across servers is a run: its report has its servers' tables.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from app.cli.options import file_to_write, path_type
from app.context import AppContext, UsageError, writable_destination
from app.system_libraries import missing_library_words
from engine.io.locks import LOCK_FILE
from engine.io.safety import make_folders, write_text
from engine.protocol import ExitCode
from engine.results.document import RESULT_FILE, RUN_FILES
from engine.results.sample_file import SAMPLES_DB
from engine.run.suite import SUITE_FILE
from reporting.bundle import ReportError, RunBundle, load_run
from reporting.csv_export import write_csv, write_stages_csv
from reporting.document import render_html
from reporting.suite import SuiteBundle, is_suite_folder, load_suite, render_suite_html, suite_charts


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run", type=run_reference, metavar="RUN",
                        help="a run id from the store (or its first or last characters), a run output folder, or a suite's "
                             "folder (the combined ESRP report)")
    parser.add_argument("--html", type=path_type, default=None, metavar="FILE", help="self-contained HTML report")
    parser.add_argument("--pdf", type=path_type, default=None, metavar="FILE", help="PDF report")
    parser.add_argument("--csv", type=path_type, default=None, metavar="FILE",
                        help="interval samples, a row per interval for the server, per instance every 15 s (a checksum or "
                             "backup adds a row per database; a suite's rows name their stage)")
    parser.add_argument("--jetstress", type=path_type, default=None, metavar="DIR",
                        help="write the Jetstress-layout result files (<Type>_<yyyy>_<M>_<d>_<H>_<m>_<s>.html and .xml) "
                             "in this folder (made if it is new); a suite: each stage's")
    parser.add_argument("--page-size", choices=["a4", "letter"], default="a4", help="PDF page size (default A4)")


def run(args: argparse.Namespace, context: AppContext) -> int:
    named_html = not (args.html or args.pdf or args.csv or args.jetstress)
    suite = is_suite_folder(Path(args.run))
    if (Path(args.run) / OLD_ACROSS_FILE).exists() and not (Path(args.run) / RESULT_FILE).exists():
        print(f"error: {args.run} is a test across servers that an earlier Jetwise kept in another form, which this one "
              "cannot report: its combined report (report.html) stays beside it", file=sys.stderr)
        return ExitCode.INVALID
    store = None if suite else context.store_for(args.run)  # a suite's report reads its folder alone
    for flag, target in (("--html", args.html), ("--pdf", args.pdf), ("--csv", args.csv)):
        if target is not None:
            file_to_write(flag, target)
    if args.jetstress is not None:
        _jetstress_folder(args.jetstress)
    try:
        report: RunBundle | SuiteBundle
        if suite:
            report = load_suite(Path(args.run))
        else:
            report = load_run(args.run, store)
    except ReportError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return ExitCode.INVALID
    _outputs_apart(args, report.folder)
    if named_html:  # the run folder's name, or the run's whole id when part of it was typed
        name = Path(args.run).name if not isinstance(report, RunBundle) or Path(args.run).is_dir() else report.result.run_id
        args.html = file_to_write("", Path(f"jetwise-report-{name}.html"))
    try:
        return _write_suite(args, report) if isinstance(report, SuiteBundle) else _write(args, report)
    except OSError as exc:
        raise UsageError(f"cannot write {exc.filename or 'the report'}: {exc.strerror or exc}") from exc


OLD_ACROSS_FILE = "test.json"  # a test across servers as an earlier Jetwise kept it, beside its combined report

# A run's (or a suite's) own files, which no report may replace.
OWN_FILES = (*RUN_FILES, f"{SAMPLES_DB}-wal", f"{SAMPLES_DB}-shm", SUITE_FILE, LOCK_FILE)


def _outputs_apart(args: argparse.Namespace, folder: Path | None) -> None:
    """Refuse an output that is one of the run's own files, or two outputs that are one file."""
    seen: dict[str, str] = {}
    for flag, target in (("--html", args.html), ("--pdf", args.pdf), ("--csv", args.csv)):
        if target is None:
            continue
        where = os.path.realpath(target)
        if folder is not None and Path(where).parent == Path(os.path.realpath(folder)) and target.name in OWN_FILES:
            raise UsageError(f"{flag} {target} is the run's own {target.name}; give another file to write")
        if where in seen:
            raise UsageError(f"{flag} {target} is the file {seen[where]} writes too; give each output a file of its own")
        seen[where] = flag


def _jetstress_folder(folder: Path) -> None:
    """The folder --jetstress names, made when its parent exists (a new folder holds only what Jetwise writes)."""
    writable_destination("--jetstress", folder, folder=True)
    if folder.is_dir():
        return
    if not folder.parent.is_dir():  # a file in its way is said by writable_destination
        raise UsageError(f"--jetstress {folder} is in a folder that does not exist ({folder.parent}); give the folder to "
                         "write the files in")
    try:
        make_folders(folder)
    except OSError as exc:
        raise UsageError(f"--jetstress {folder} cannot be made: {exc.strerror or exc}") from exc


def run_reference(text: str) -> str:
    """A run id or folder as typed, refused as a path is when empty (the current folder) or holding a NUL."""
    path_type(text)
    return text


def _write(args: argparse.Namespace, bundle: RunBundle) -> int:
    if args.html:
        write_text(args.html, render_html(bundle))
        print(f"HTML report: {args.html}", file=sys.stderr)
    if args.csv:
        rows = write_csv(bundle, args.csv)
        scanned = f", {len(bundle.result.scan.databases)} of them a database's scan" if bundle.result.scan else ""
        print(f"CSV samples: {args.csv} ({rows} rows{scanned})", file=sys.stderr)
    if args.pdf:
        _gui()  # first: a missing system library is said, not raised
        from ui.printing import write_pdf

        pages = write_pdf(bundle, args.pdf, args.page_size)
        print(f"PDF report: {args.pdf} ({pages} pages, {args.page_size.upper()})", file=sys.stderr)
    if args.jetstress:
        return _jetstress(args.jetstress, [bundle])
    return ExitCode.PASS


def _jetstress(folder: Path, bundles: list[RunBundle]) -> int:
    from reporting.jetstress_files import JetstressFileError, write_jetstress_files

    for bundle in bundles:
        try:
            written = write_jetstress_files(bundle.result, bundle.log, folder, bundle.folder)
        except JetstressFileError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return ExitCode.INVALID
        print(f"Jetstress-layout result files: {', '.join(str(p) for p in written)}", file=sys.stderr)
    return ExitCode.PASS


def _write_suite(args: argparse.Namespace, suite: SuiteBundle) -> int:
    """A suite's report: its stages' runs in one."""
    what = f"the ESRP suite{suite.across}"
    if args.html:
        write_text(args.html, render_suite_html(suite, for_print=False))
        print(f"HTML report of {what}: {args.html}", file=sys.stderr)
    if args.csv:
        rows = write_stages_csv(suite.runs, args.csv)
        print(f"CSV samples: {args.csv} ({rows} rows of {len(suite.runs)} stage(s), each row naming its stage)",
              file=sys.stderr)
    if args.pdf:
        _gui()
        from ui.printing import write_html_pdf

        pages = write_html_pdf(render_suite_html(suite, for_print=True), suite_charts(suite), args.pdf, args.page_size,
                               title=suite.title, document_title=suite.document_title, ended_utc=suite.ended_utc)
        print(f"PDF report of {what}: {args.pdf} ({pages} pages, {args.page_size.upper()})", file=sys.stderr)
    if args.jetstress:
        return _jetstress(args.jetstress, [bundle for _, _, bundle in suite.runs])
    return ExitCode.PASS


def _gui() -> None:
    try:
        from app.window import ensure_gui_application  # Qt's printing: offscreen when there is no display
    except ImportError as exc:
        raise UsageError(f"a PDF needs Qt, which cannot load: {missing_library_words(exc)}") from exc
    ensure_gui_application()
