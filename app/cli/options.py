"""Command-line flags built from the option declarations in the configuration model.

A flag's name, help, unit, bounds, choices and default all come from `engine.model.options`;
nothing about an option is restated here. Values the engineer did not type stay out of
the configuration data, so the model's defaults (and the derived ones) apply.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from app.context import UsageError, unusable_path, writable_destination
from engine.hosts.port import controller_endpoint, port_problem
from engine.io.safety import file_in_the_way
from engine.model import options as declared
from engine.model.host_names import host_problem
from engine.model.options import Option, assign, flagged
from engine.model.units import as_typed, parse_duration_s
from engine.results.suite import PERFORMANCE_S, STRESS_S
from engine.store.rows import session_name_problem


def duration_type(option: Option) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            return parse_duration_s(text, allow_zero=not option.minimum_open)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from exc

    return parse


def _on_off(text: str) -> bool:
    words = {"on": True, "off": False, "true": True, "false": False, "yes": True, "no": False}
    if text.lower() not in words:
        raise argparse.ArgumentTypeError(f"say on or off (got {as_typed(text)})")
    return words[text.lower()]


def number_type(kind: type[int] | type[float], flag: str) -> Callable[[str], int | float]:
    """A flag's number as typed: a whole one for `int`; a comma (1,000 or 0,5) is named, not guessed at."""

    def parse(text: str) -> int | float:
        try:
            return kind(text)
        except ValueError as exc:
            what = "a whole number" if kind is int else "a number"
            hint = "; write it without thousands separators and with a point for decimals (1000, 0.5)" if "," in text else ""
            raise argparse.ArgumentTypeError(f"{flag} takes {what} (got {as_typed(text)}){hint}") from exc

    return parse


def port_type(text: str) -> int:
    """A TCP port as typed: a whole number from 1 to 65535."""
    port = int(number_type(int, "--port")(text))
    if (problem := port_problem(port)) is not None:
        raise argparse.ArgumentTypeError(problem)
    return port


def host_type(text: str) -> str:
    """A server's name as typed: an RFC 1123 host name or an IP address (`engine.model.host_names`), never a path."""
    if (problem := host_problem(text)) is not None:
        raise argparse.ArgumentTypeError(problem)
    return text


def controller_type(text: str) -> str:
    """Where an agent finds its controller, as typed: tls://HOST:PORT or HOST:PORT (`controller_endpoint`)."""
    try:
        controller_endpoint(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def file_path_type(text: str) -> Path:
    """A file's path as typed: as `path_type`, and not ending in a separator, which names a folder."""
    path = path_type(text)
    if text.rstrip().endswith(("/", "\\")):
        raise argparse.ArgumentTypeError(f"{text} ends with a separator, so it names a folder; give the file to write")
    return path


def session_type(text: str) -> str:
    """A tuning session's name as typed (`engine.store.rows.session_name_problem`), without its outer blanks."""
    name = text.strip()
    if (problem := session_name_problem(name)) is not None:
        raise argparse.ArgumentTypeError(problem)
    return name


def path_type(text: str) -> Path:
    """A path as typed: an empty one would mean the current folder, and a NUL character no file system takes."""
    if not text.strip():
        raise argparse.ArgumentTypeError("the path is empty; give a file or folder name")
    if "\0" in text:
        raise argparse.ArgumentTypeError("the path holds a NUL character (\\x00), which no file system accepts")
    path = Path(text)
    unusable = unusable_path(path)
    if unusable is not None:
        raise argparse.ArgumentTypeError(f"the path cannot be used: {unusable}")
    return path


def file_to_write(flag: str, target: Path) -> Path:
    """`target`, the file `flag` names to write (no flag: a file named by default); a folder, a file in a folder that
    does not exist, and what the one rule of where Jetwise writes refuses (a link, a device, the root of a file
    system or a system folder: `writable_destination`) are refused."""
    parent = target.absolute().parent
    if target.is_dir() or not parent.is_dir():
        where = "is a folder" if target.is_dir() else f"is in a folder that does not exist ({parent})"
        raise UsageError(f"{flag} {file_in_the_way(target) or f'{target} {where}'}; give a file to write".lstrip())
    return writable_destination(flag, target)


def add_option_flags(parser: argparse.ArgumentParser, paths: Iterable[str] | None = None, *, prefix: str = "") -> None:
    """Add a flag for each declared option (or for those at `paths`), help built from the declaration."""
    wanted = set(paths) if paths is not None else None
    group = parser.add_argument_group("test settings")
    for option in flagged():
        if (wanted is not None and option.path not in wanted) or "[]" in option.path:
            continue  # each database's folders are flags of `init`, one value per database
        assert option.flag is not None
        kwargs: dict[str, Any] = {"dest": _dest(option), "default": None, "help": (prefix + option.help()).replace("%", "%%")}
        if option.kind == "duration":
            kwargs.update(type=duration_type(option), metavar="DURATION")
        elif option.kind == "bool":
            kwargs.update(type=_on_off, metavar="on|off")
        elif option.kind == "choice":
            kwargs.update(choices=option.choices, type=option.choice)
        elif option.kind == "int":
            kwargs.update(type=number_type(int, option.flag), metavar="N")
        elif option.kind == "float":
            kwargs.update(type=number_type(float, option.flag), metavar="X")
        elif option.kind == "path":
            kwargs.update(type=lambda text: str(path_type(text)), metavar="DIR")
        else:
            kwargs.update(metavar="TEXT")
        group.add_argument(option.flag, **kwargs)


def _dest(option: Option) -> str:
    return "option:" + option.path


def option_values(args: argparse.Namespace) -> dict[str, Any]:
    """The options typed on the command line, as nested configuration data."""
    data: dict[str, Any] = {}
    for option in flagged():
        value = getattr(args, _dest(option), None)
        if value is not None:
            assign(data, option.path, value)
    return data


def merged(base: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """`base` with `overrides` laid over it, nested dictionaries merged key by key."""
    out = dict(base)
    for key, value in overrides.items():
        out[key] = merged(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def add_length_flags(parser: argparse.ArgumentParser) -> None:
    """The stage lengths a suite is started (and resumed) with."""
    length = duration_type(declared.option("duration_s"))
    parser.add_argument("--performance-duration", type=length, default=PERFORMANCE_S, metavar="DURATION",
                        help="the Performance test's length (default 2h, as ESRP publishes it)")
    parser.add_argument("--stress-duration", type=length, default=STRESS_S, metavar="DURATION",
                        help="the Stress test's length (default 24h)")


FOLDERS = (("databases[].database_path", "DB"), ("databases[].log_path", "Log"))  # each database's two folders


def add_folder_flags(parser: argparse.ArgumentParser, more: str) -> None:
    """--db-path and --log-path: one folder per database, or one with {n}; `more` says what else they take."""
    for path, leaf in FOLDERS:
        folder = declared.option(path)
        parser.add_argument(
            folder.flag or "", dest=path.rpartition(".")[2], action="extend", nargs="+", type=str, default=None,
            metavar="DIR", help=f"{folder.description} One per database, or one with {{n}} (F:\\{leaf}{{n}}), "
            + more.format(leaf=leaf),
        )
