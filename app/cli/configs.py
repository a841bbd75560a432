"""Configuration files as the command line meets them (Jetwise's JSON or a JetstressConfig.xml): read, parsed and
checked, every problem said."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from app.cli.console import print_problems
from app.cli.options import merged
from engine.io.capacity import CapacityError, sized_if_throughput
from engine.io.config_file import read_config_text
from engine.model.config import TestConfig
from engine.model.config_text import is_jetstress_xml
from engine.model.jetstress.loading import XmlConfig, config_from_xml
from engine.model.jetstress.reading import JetstressXmlError
from engine.model.profile import SIZED_FROM
from engine.model.validation import Problem, Severity, check_rules, errors_only, validate_data

_JSON_KINDS = {list: "list", str: "string", int: "number", float: "number", bool: "true or false", type(None): "null"}


def load_xml(path: Path, text: str, databases: list[dict[str, str]] | None = None) -> XmlConfig | Problem:
    """A JetstressConfig.xml made into a configuration, with all its import says; or why it cannot be one."""
    try:
        return config_from_xml(text, databases)
    except JetstressXmlError as exc:
        return Problem("", f"{path} cannot be read as a JetstressConfig.xml: {exc}")


def load_xml_or_say(path: Path, text: str, databases: list[dict[str, str]] | None, stream: TextIO) -> XmlConfig | None:
    """A JetstressConfig.xml made into a configuration, all its import says printed; None when it gives none.

    A disk throughput file's databases are sized from their volumes' free space where those are on this machine."""
    loaded = load_xml(path, text, databases)
    if isinstance(loaded, Problem) or loaded.config is None:
        print_problems([loaded] if isinstance(loaded, Problem) else loaded.said(), stream)
        return None
    loaded.config, said = sized_or_problem(loaded.config, loaded.said())
    print_problems(said, stream)
    return loaded


def sized_or_problem(config: TestConfig, said: Sequence[Problem] = ()) -> tuple[TestConfig, list[Problem]]:
    """A disk throughput configuration without a database size, sized from its volumes' free space, and what to say:
    `said` (what was said of it already, less its warning that it has no size once sized), then how it was sized and
    the cache's warning if it now holds the whole database (a warning instead when a volume is not on this machine:
    the profile sizes them); any other configuration as it is, with `said`."""
    try:
        sized, words = sized_if_throughput(config)
    except CapacityError as exc:
        return config, [*said, Problem("databases[0].database_path", f"disk throughput: {exc}; the mailbox profile "
                                       "sizes the databases until the configuration is made on the server",
                                       Severity.WARNING)]
    if not words:
        return sized, list(said)
    kept = [p for p in said if p.field != "database_size_mb"]
    cache = [p for p in check_rules(sized) if p.field == "database_cache_max_mb"]
    return sized, [*kept, Problem("", f"disk throughput: {words}", Severity.NOTE), *cache]


def with_changes(config: TestConfig, changes: dict[str, Any], stream: TextIO, said: Sequence[Problem] = ()) -> TestConfig | None:
    """`config` with `changes` laid over it and checked again, `said` (what was said of `config`) printed first; None
    once what refuses them is printed.

    A disk throughput configuration whose size comes from something changed (`SIZED_FROM`) is sized again from the
    free space, unless the changes set the size."""
    data = config.model_dump(mode="json")
    moved = any(key in changes and changes[key] != data[key] for key in SIZED_FROM)
    if moved and "database_size_mb" not in changes and (config.seeks_maximum or "scenario" in changes):
        changes = {**changes, "database_size_mb": None}
    changed, problems = validate_data(merged(data, changes))
    if changed is None:
        print_problems(said, stream)
        print_problems(problems, stream, flags=True)
        return None
    sized, told = sized_or_problem(changed, said)
    print_problems(told, stream)
    return sized


def load_checked(path: Path) -> tuple[TestConfig | None, list[Problem]]:
    """A configuration file (Jetwise's JSON or a JetstressConfig.xml) read and checked, or every problem with it."""
    text = read_config_text(path)
    if isinstance(text, Problem):
        return None, [text]
    return checked_text(path, text)


class _RepeatedKeyError(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _once_each(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys come once each (JSON lets the last of two win, silently)."""
    data: dict[str, Any] = {}
    for key, value in pairs:
        if key in data:
            raise _RepeatedKeyError(key)
        data[key] = value
    return data


def checked_text(path: Path, text: str) -> tuple[TestConfig | None, list[Problem]]:
    """The text of the configuration file at `path` parsed and checked, or every problem with it."""
    if not text.strip():
        return None, [Problem("", f"{path} is empty; write a configuration with jetwise init")]
    if is_jetstress_xml(path, text):
        loaded = load_xml(path, text)
        return (None, [loaded]) if isinstance(loaded, Problem) else (loaded.config, loaded.said())
    try:
        data = json.loads(text, object_pairs_hook=_once_each)
    except _RepeatedKeyError as exc:
        return None, [Problem("", f"{path} sets {exc.key!r} twice in one object; which one is meant? Keep one of them")]
    except json.JSONDecodeError as exc:
        return None, [Problem("", f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})")]
    except RecursionError:
        return None, [Problem("", f"{path} nests its JSON too deeply to be a configuration")]
    except ValueError:  # Python reads at most 4,300 digits of an integer
        return None, [Problem("", f"{path} holds a number of thousands of digits, too long to be any setting")]
    if not isinstance(data, dict):
        kind = _JSON_KINDS.get(type(data), "value")
        return None, [Problem("", f"{path} holds a JSON {kind}, not a configuration: that is an object of settings, "
                                  "{ ... }, as jetwise init writes")]
    return validate_data(text)


def load_or_say(path: Path, stream: TextIO) -> TestConfig | None:
    """The configuration at `path`, or None once every problem with it is printed, the file named. A disk throughput
    configuration without a database size is sized from the free space (a Jetwise database already there counts as
    free, so every run of it sizes the same)."""
    config, problems = load_checked(path)
    if config is None:
        print_problems(problems, stream)
        if any(problem.field for problem in problems):  # a field's problem does not say which file it is in
            print(f"{path}: {len(errors_only(problems)):,} problem(s)", file=stream)
        return None
    sized, said = sized_or_problem(config, problems)  # what an imported JetstressConfig.xml said, and how it was sized
    print_problems(said, stream)
    return sized
