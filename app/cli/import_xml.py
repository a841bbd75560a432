"""`jetwise import-xml JetstressConfig.xml [-o CONFIG.json]`: a Jetstress configuration made into Jetwise's."""

from __future__ import annotations

import argparse
import sys

from app.cli.configs import load_xml_or_say
from app.cli.console import print_problems
from app.cli.options import add_folder_flags, path_type
from app.cli.xml_files import add_output, output_for, typed_databases, writable_output
from app.context import AppContext, UsageError
from engine.io.config_file import read_config_text, save_config
from engine.model.derive import target_words
from engine.model.validation import Problem
from engine.protocol import ExitCode


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("xml", type=path_type, metavar="JetstressConfig.xml")
    add_output(parser, "CONFIG.json", "the XML file's name with .json")
    add_folder_flags(parser, "in place of the file's EseInstances")


def run(args: argparse.Namespace, _context: AppContext) -> int:
    output = writable_output(output_for(args.output, args.xml, ".json"), args.force)
    if output.resolve() == args.xml.resolve():
        raise UsageError(f"{output} is the file being imported; give another output file")
    text = read_config_text(args.xml)
    if isinstance(text, Problem):
        print_problems([text], sys.stderr)
        return ExitCode.INVALID
    loaded = load_xml_or_say(args.xml, text, typed_databases(args), sys.stderr)
    if loaded is None or loaded.config is None:
        return ExitCode.INVALID
    config = loaded.config
    try:
        save_config(config, output)
    except OSError as exc:
        raise UsageError(f"cannot write {output}: {exc.strerror or exc}") from exc
    then = (f"jetwise tune {output} (SuppressTuning is false: Jetstress would auto-tune)" if loaded.auto_tune
            else f"jetwise run {output}")
    print(f"Wrote {output}: {config.database_count} database(s), {target_words(config.target_transactional_iops)}, "
          f"{config.thread_count} thread(s). Next: {then}", file=sys.stderr)
    return ExitCode.PASS
