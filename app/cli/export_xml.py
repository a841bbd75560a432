"""`jetwise export-xml CONFIG -o JetstressConfig.xml`: a configuration a colleague can run in Jetstress 2013."""

from __future__ import annotations

import argparse
import sys

from app.cli.configs import load_or_say
from app.cli.options import path_type
from app.cli.xml_files import add_output, output_for, writable_output
from app.context import AppContext, UsageError
from engine.io.safety import write_text
from engine.model.jetstress.writing import export_notes, write_xml
from engine.protocol import ExitCode


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", type=path_type, metavar="CONFIG")
    add_output(parser, "JetstressConfig.xml", "the configuration's name with .xml")
    parser.add_argument("--auto-tune", action="store_true",
                        help="let Jetstress auto-tune the thread count (SuppressTuning false)")


def run(args: argparse.Namespace, _context: AppContext) -> int:
    output = writable_output(output_for(args.output, args.config, ".xml"), args.force)
    if output.resolve() == args.config.resolve():
        raise UsageError(f"{output} is the configuration being exported; give another output file")
    config = load_or_say(args.config, sys.stderr)
    if config is None:
        return ExitCode.INVALID
    try:
        write_text(output, write_xml(config, auto_tune=args.auto_tune))
    except OSError as exc:
        raise UsageError(f"cannot write {output}: {exc.strerror or exc}") from exc
    for note in export_notes(config):
        print(f"note: {note}", file=sys.stderr)
    print(f"Wrote {output} for {config.generation.jetstress}: {config.database_count} database(s), {config.thread_count} thread(s)"
          f"{', auto-tuned' if args.auto_tune else ''}", file=sys.stderr)
    return ExitCode.PASS
