"""A test being planned: the configuration as it is typed, with the engine's verdict on it. No Qt.

The wizard edits a `Draft`; each of its pages shows a part of it. The draft keeps the
configuration as JSON data, so a field may hold a value the model refuses while the
engineer types; every change is judged once by the engine's own rules, however many
pages ask, and every problem is tied to the field it is shown at. Front ends subscribe to
its notices (`changed`, `loaded`, `session_changed`), and tests drive it without a window.

A form asks a little more than the command line: a database or log folder must be a full
path (the command line reads a relative one against the folder it is typed in, which is
explicit there; a window has no such folder the engineer sees). And when Start hands the
configuration to the engine, the engine's answer comes back here: the problems it refused
the configuration for stand with the draft's own until a value changes or they are cleared.

In the disk throughput scenario the databases are sized from their volumes' free space (`sizer`,
given by the front end) once the configuration is valid, and the size is kept in the data; it is
sized again when what it comes from changes (the scenario, the capacity percentage, the folders).
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path, PureWindowsPath
from typing import Any, Generic, ParamSpec, Protocol, TypeVar

from engine.model.config import Scenario, TestConfig, default_config
from engine.model.profile import SIZED_FROM
from engine.model.validation import Problem, check_rules, validate_data

P = ParamSpec("P")


class Notice(Generic[P]):
    """Callbacks called in the order they were connected: what a Qt signal is to a widget, without Qt."""

    def __init__(self) -> None:
        self._callbacks: list[Callable[P, object]] = []

    def connect(self, callback: Callable[P, object]) -> None:
        self._callbacks.append(callback)

    def emit(self, *args: P.args, **kwargs: P.kwargs) -> None:
        for callback in list(self._callbacks):
            callback(*args, **kwargs)


class FirstSetting(Protocol):
    """The setting auto-tune starts from: what the draft needs of the advisor's answer."""

    @property
    def threads(self) -> int: ...

    @property
    def sluggish_sessions(self) -> int: ...


SettingT = TypeVar("SettingT", bound=FirstSetting)


class Draft(Generic[SettingT]):
    """The configuration being edited, as JSON data, with the engine's verdict on it.

    In auto-tune mode the thread count and SluggishSessions in `data` are not what runs:
    `first_setting` (the advisor, given by the front end, which knows the session's runs)
    picks them. `config()` is then the configuration with that setting in place, so every
    page and the review judge what will run, while `data` keeps the engineer's own values
    for a return to Manual.
    """

    def __init__(self, base: Path, first_setting: Callable[[TestConfig], SettingT],
                 sizer: Callable[[TestConfig], tuple[TestConfig, str]] | None = None) -> None:
        self.base = base
        self.first_setting = first_setting
        self.sizer = sizer  # the disk throughput scenario's sizing (raises ValueError when it cannot size)
        self.sizing = ""  # how the databases were sized, or why they could not be, in words
        self.data: dict[str, Any] = json.loads(default_config(base).model_dump_json())
        self.auto_tune = True
        self.calibration_s = 180.0
        self.parse_errors: dict[str, str] = {}  # text a field could not read, by option path
        self.changed: Notice[[]] = Notice()
        self.loaded: Notice[[]] = Notice()  # a whole configuration replaced the data (a file, a session)
        self.session_changed: Notice[[str]] = Notice()
        self.starting = False  # Start handed the configuration to the engine, which has neither begun nor refused it
        self.refusal: list[Problem] = []  # why the engine refused the configuration as it stands
        self._session = ""
        self._verdict: tuple[TestConfig | None, list[Problem]] | None = None
        self._advice: SettingT | None = None  # the first setting, asked once per change with the verdict

    @property
    def session(self) -> str:
        """The tuning session the next run belongs to."""
        return self._session

    @session.setter
    def session(self, name: str) -> None:
        if self._rename(name):
            # auto-tune's first setting reads the session's runs: another session, another start; the values are the
            # same, so what the engine refused them for stands
            self._announce(values_changed=False)

    def _rename(self, name: str) -> bool:
        if name == self._session:
            return False
        self._session = name
        self.session_changed.emit(name)
        return True

    def _announce(self, *, values_changed: bool = True) -> None:
        self._verdict = None
        if values_changed:
            self.refusal = []  # the engine refused other values
        self.changed.emit()

    def start_requested(self) -> None:
        """Start handed the configuration to the engine: until it answers, nothing else starts."""
        self.starting = True
        self.refusal = []
        self.changed.emit()

    def start_answered(self, refusal: Iterable[Problem] = ()) -> None:
        """The engine began the run (no problems), or refused the configuration for `refusal`."""
        self.starting = False
        self.refusal = list(refusal)
        self.changed.emit()

    def runs_changed(self) -> None:
        """The session's runs changed (a run ended): the advisor's first setting is asked again."""
        self._announce(values_changed=False)

    def applied(self, threads: int, sluggish_sessions: int) -> None:
        """The engineer ran the session's next run at this setting (the advice applied): it is the values' setting
        from now on, so New test starts from it."""
        self.data["thread_count"], self.data["sluggish_sessions"] = threads, sluggish_sessions
        self._announce()

    def clear_refusal(self) -> None:
        """What the engine refused for is gone (the checks of the machine pass again)."""
        if self.refusal:
            self.refusal = []
            self.changed.emit()

    def load(self, config: TestConfig, session: str = "", databases: list[dict[str, str]] | None = None) -> None:
        """Replace the data with `config`'s; `databases` in place of its own (a JetstressConfig.xml that lists none
        is loaded with [], so the configuration waits for the engineer's folders rather than runs on made-up ones)."""
        self.data = json.loads(config.model_dump_json())
        if databases is not None:
            self.data["databases"] = databases
        self._rename(session)  # announced below, with the data
        self.parse_errors.clear()
        self._announce()
        self.loaded.emit()

    def set_auto_tune(self, on: bool) -> None:
        """Auto-tune (the advisor picks the threads) or Manual (the fields' setting runs)."""
        if on != self.auto_tune:
            self.auto_tune = on
            self._announce()

    def get(self, path: str) -> Any:
        node: Any = self.data
        for part in path.split("."):
            node = node[int(part)] if part.isdigit() else node[part]
        return node

    def set(self, path: str, value: Any) -> bool:
        """Set one field (and forget what its text could not be read as); True if anything changed."""
        parts = path.split(".")
        node: Any = self.data
        for part in parts[:-1]:
            node = node[int(part)] if part.isdigit() else node[part]
        key: Any = int(parts[-1]) if parts[-1].isdigit() else parts[-1]
        cleared = self.parse_errors.pop(path, None) is not None
        if node[key] == value and not cleared:
            return False
        node[key] = value
        if path in SIZED_FROM:
            self._size_again(scenario_changed=path == "scenario")
        self._announce()
        return True

    def _size_again(self, scenario_changed: bool = False) -> None:
        """What the disk throughput scenario's size comes from changed: forget it, so it is sized again."""
        if scenario_changed or self.data.get("scenario") == Scenario.DISK_THROUGHPUT.value:
            self.data["database_size_mb"] = None
            self.sizing = ""

    def set_parse_error(self, path: str, message: str | None) -> None:
        """What the text typed for `path` cannot be read as (None: it reads again)."""
        if message:
            self.parse_errors[path] = message
        else:
            self.parse_errors.pop(path, None)
        self._announce()

    def set_databases(self, specs: list[dict[str, Any]]) -> None:
        if specs != self.data.get("databases"):
            self._size_again()
        self.data["databases"] = specs
        self._announce()

    def _validated(self) -> tuple[TestConfig | None, list[Problem]]:
        """The engine's verdict on the data, computed once per change however many pages ask."""
        if self._verdict is None:
            relative = _relative_folders(self.data)
            data = copy.deepcopy(self.data)
            if self.auto_tune:
                # a placeholder the advisor replaces: the fields the engineer cannot edit now
                # must not make the rest of the configuration invalid
                databases = data.get("databases")
                data["thread_count"] = min(4096, max(1, len(databases) if isinstance(databases, list) else 1))
                data["sluggish_sessions"] = 1
            config, problems = validate_data(data)
            if config is not None and not relative:
                config = self._sized(config)
            advice = self._advice = self.first_setting(config) if config is not None else None
            if config is not None and advice is not None and self.auto_tune:
                data = json.loads(config.model_dump_json())
                data.update(thread_count=advice.threads, sluggish_sessions=advice.sluggish_sessions)
                config, problems = validate_data(data)
            if relative:  # refused here as an empty folder is by the model: never checked, never run
                config, problems = None, relative + [p for p in problems if p.field not in {r.field for r in relative}]
            found = check_rules(config) if config is not None else problems
            self._verdict = (config, found)
        return self._verdict

    def _sized(self, config: TestConfig) -> TestConfig:
        """`config` with the disk throughput scenario's size, once sized (kept in the data too)."""
        if self.sizer is None or not config.seeks_maximum or config.database_size_mb is not None:
            return config
        try:
            config, self.sizing = self.sizer(config)
        except ValueError as exc:
            self.sizing = f"the databases cannot be sized from the free space: {exc}"
            return config
        self.data["database_size_mb"] = config.database_size_mb
        return config

    def config(self) -> TestConfig | None:
        """The configuration that would run, or None while the data is not valid."""
        return self._validated()[0]

    def first_advice(self) -> SettingT | None:
        """The advisor's first setting for the configuration as it stands (None while it is invalid)."""
        self._validated()
        return self._advice

    def problems(self) -> list[Problem]:
        """Every problem with the values, each at its field, and those the engine refused them for."""
        found = self._validated()[1]
        return found + [p for p in self.refusal if p not in found]


def _relative_folders(data: dict[str, Any]) -> list[Problem]:
    """A database or log folder given as a relative path: the wizard asks for a full one."""
    problems = []
    databases = data.get("databases")
    for index, spec in enumerate(databases if isinstance(databases, list) else []):
        more = spec.get("more_database_paths") if isinstance(spec, dict) else None
        folders = [(f"databases[{index}].{key}", spec.get(key) if isinstance(spec, dict) else None, leaf)
                   for key, leaf in (("database_path", "DB"), ("log_path", "Log"))]
        folders += [(f"databases[{index}].more_database_paths[{n}]", value, "DB")
                    for n, value in enumerate(more if isinstance(more, list) else [])]
        for field, value, leaf in folders:
            if isinstance(value, str) and value.strip() and "\0" not in value and not Path(value.strip()).is_absolute():
                drive = PureWindowsPath(value.strip()).drive
                why = (f"{value.strip()} is a Windows path (on {drive}), and this machine has no drive {drive}" if drive
                       else f"a relative path ({value.strip()}) would put the files wherever Jetwise was started from")
                problems.append(Problem(field, f"give a full path, e.g. {full_path_example(leaf, index + 1)}: {why}"))
    return problems


def full_path_example(leaf: str, number: int) -> str:
    """A full folder path as this system writes one: D:\\Databases\\DB1 on Windows, /srv/jetwise/DB1 elsewhere."""
    if os.name == "nt":
        return f"{'L:' if leaf == 'Log' else 'D:'}\\{'Logs' if leaf == 'Log' else 'Databases'}\\{leaf}{number}"
    return f"/srv/jetwise/{leaf}{number}"
