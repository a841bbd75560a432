"""`jetwise window [CONFIG] [--start]`: the window, with a test configuration loaded, and started when asked.

`jetwise` alone opens it empty. A shortcut or a file association opens a JSON configuration or a
JetstressConfig.xml in it, as Open or a drop would; --start then starts the test as Start on the review
page would (a configuration the window refuses stays on the screen with the reason, and nothing starts).
"""

from __future__ import annotations

import argparse

from app.cli import open_window
from app.cli.options import path_type
from app.context import AppContext, UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", type=path_type, metavar="CONFIG", nargs="?", default=None,
                        help="a Jetwise configuration (.json) or a JetstressConfig.xml to load")
    parser.add_argument("--start", action="store_true", help="start the test once it is loaded")


def run(args: argparse.Namespace, _context: AppContext) -> int:
    if args.start and args.config is None:
        raise UsageError("--start needs a CONFIG to start")
    if args.config is not None and not args.config.is_file():
        raise UsageError(f"{args.config} is not a file")
    return open_window(args.config, start=args.start)
