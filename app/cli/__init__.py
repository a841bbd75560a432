"""The headless command line (the JetstressCmd of Jetwise): one module per sub-command, listed here.

Each sub-command module has `add_arguments(parser)` and `run(args, context) -> int`, and is
imported only when it is the one asked for (pip's `commands_dict`): `jetwise --help` and
`jetwise run` do not load the window, the report renderer or the tuner. Exit codes are
`engine.protocol.ExitCode`: 0 pass (or valid), 1 fail, 2 invalid input, 3 aborted or an error.
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import NoReturn

from app.context import AppContext, UsageError, WaitStoppedError
from app.crash import record_crash
from app.system_libraries import display_problem, missing_library_words
from engine.protocol import ExitCode
from engine.store.sqlite import StoreError
from engine.version import __version__


@dataclass(frozen=True)
class Command:
    module: str
    summary: str


COMMANDS: dict[str, Command] = {
    "init": Command("app.cli.init", "write a complete test configuration with defaults"),
    "validate": Command("app.cli.validate", "check a configuration and print every problem"),
    "import-xml": Command("app.cli.import_xml", "make a JetstressConfig.xml into a Jetwise configuration"),
    "export-xml": Command("app.cli.export_xml", "write a configuration as a JetstressConfig.xml for its Exchange's Jetstress"),
    "run": Command("app.cli.run", "run a test and judge it"),
    "tune": Command("app.cli.tune", "find the passing thread count and SluggishSessions in short runs"),
    "suite": Command("app.cli.suite", "the ESRP qualification: Performance, Stress, Checksum, Backup, Soft Recovery"),
    "report": Command("app.cli.report", "the printable report of a run: HTML, PDF, CSV"),
    "export": Command("app.cli.export", "a run's full sample series: CSV, JSON lines or Parquet"),
    "history": Command("app.cli.history", "tuning sessions and their runs"),
    "clean": Command("app.cli.clean", "the test databases and log files a configuration left, and the space they free"),
    "cmd": Command("app.cli.jetstress_cmd", "JetstressCmd's switches (/c JetstressConfig.xml /timeout ...) for runbooks"),
    "window": Command("app.cli.window", "open the window, a configuration loaded (--start: started)"),
    "engine": Command("app.cli.engine", "run a test, writing events as JSON lines (for front ends)"),
    "hosts": Command("app.cli.hosts", "the servers of a test across servers: enrol, list, remove"),
    "agent": Command("app.cli.agent", "this server as an agent of a test across servers (--enrol FILE first)"),
}

MESSAGE_LIMIT = 400  # characters of a parse error: a pasted page is cut, not repeated back

DESCRIPTION = "Prove that storage carries an Exchange-style mailbox workload."


def _usage() -> str:
    width = max(len(name) for name in COMMANDS)
    lines = [f"  {name:<{width}}  {command.summary}" for name, command in COMMANDS.items()]
    return (
        "usage: jetwise [--version] [COMMAND [ARGS...]]\n\n"
        f"{DESCRIPTION}\nWith no command, the window opens.\n\ncommands:\n" + "\n".join(lines)
        + "\n\n'jetwise COMMAND --help' says more about each.\n"
    )


class CommandParser(argparse.ArgumentParser):
    """A sub-command's parser whose complaint is one line naming the flag, not the whole usage over it."""

    def error(self, message: str) -> NoReturn:
        found = re.match(r"argument ([^:]+): (.*)", message, re.DOTALL)
        if found:  # "argument --mailboxes: --mailboxes takes ..." names the flag once, as our own messages do
            flag, said = found.group(1).split("/")[-1], found.group(2)
            message = said if said.startswith(flag) else f"{flag}: {said}"
        if len(message) > MESSAGE_LIMIT:  # "unrecognized arguments:" repeats whatever was pasted
            message = message[: MESSAGE_LIMIT - 1] + "…"
        self.exit(ExitCode.INVALID, f"error: {message} ('{self.prog} --help' lists what it takes)\n")


def command_parser(name: str) -> tuple[argparse.ArgumentParser, ModuleType]:
    """The sub-command's own parser, and its module (imported now, not before)."""
    module = importlib.import_module(COMMANDS[name].module)
    parser = CommandParser(prog=f"jetwise {name}", description=COMMANDS[name].summary)
    module.add_arguments(parser)
    return parser, module


def open_window(config: Path | None = None, *, start: bool = False) -> int:
    """`jetwise` alone opens the wizard (`jetwise window CONFIG` with a configuration loaded, `--start`: started);
    without a display it says how to run headless."""
    headless = sys.platform.startswith("linux") and not any(
        os.environ.get(name) for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    )
    if headless:
        print("error: no display to open the window on; on a headless machine use: jetwise run --quick "
              "(or jetwise --help)", file=sys.stderr)
        return ExitCode.ABORTED
    try:
        from app.window import main as window_main
    except ImportError as exc:  # Qt's system libraries are missing
        print(f"error: the window cannot start: {missing_library_words(exc)}; on a headless machine use: jetwise run "
              "--quick", file=sys.stderr)
        return ExitCode.ABORTED
    if (problem := display_problem()) is not None:  # Qt's desktop platform cannot load: said before Qt aborts
        print(f"error: the window cannot start: {problem}; on a headless machine use: jetwise run --quick",
              file=sys.stderr)
        return ExitCode.ABORTED
    return window_main([], config, start=start)


def run_cli(argv: Sequence[str]) -> int:
    args = list(argv)
    if not args:
        return open_window()
    first = args[0]
    if first in ("-h", "--help", "help"):
        sys.stdout.write(_usage())
        return ExitCode.PASS
    if first == "--version":
        print(f"Jetwise {__version__}")
        return ExitCode.PASS
    if first not in COMMANDS:
        close = difflib.get_close_matches(first, COMMANDS, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else f"; the commands are: {', '.join(COMMANDS)}"
        print(f"error: unknown command '{first}'{hint}", file=sys.stderr)
        return ExitCode.INVALID
    parser, module = command_parser(first)
    try:
        parsed = parser.parse_args(args[1:])
    except SystemExit as exc:  # argparse has printed its message; its code 2 is ours for bad input
        return int(exc.code or 0)
    context = AppContext()
    try:
        return int(module.run(parsed, context))
    except (UsageError, StoreError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return ExitCode.INVALID
    except EOFError:  # a prompt's input ended (Ctrl-D, Ctrl-Z, a closed console) before an answer
        print(f"\nerror: the input ended before an answer was typed; nothing was done (jetwise {first} --help lists "
              "the options that answer instead)", file=sys.stderr)
        return ExitCode.INVALID
    except WaitStoppedError as exc:
        print(exc, file=sys.stderr)
        return ExitCode.ABORTED
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return ExitCode.ABORTED
    except Exception as exc:  # anything unforeseen: one line here, the details in the crash log
        log = record_crash(exc, f"jetwise {first}")
        where = f"; the details are in {log}" if log else ""
        print(f"error: jetwise {first} stopped on an unexpected error: {type(exc).__name__}: {exc}{where}", file=sys.stderr)
        return ExitCode.ABORTED
    finally:
        context.close()
