"""Random bad input, generated: the configuration loader and the command line never crash on it.

(a) The loader is fed JSON-ish documents (real field names with random values, random objects,
random bytes, valid configurations cut short or edited) and returns a configuration or its
problems. (b) `run_cli` is fed argument lists built from the real sub-commands and their parsers'
flags, with the values engineers get wrong, and refuses them with exit 2 and a short message.

No measured run can start: the configurations `run`, `tune`, `suite` and `engine` are given are never
valid, and a runner asked for anyway stops the test. Everything is written below tmp_path.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.cli import COMMANDS, command_parser, run_cli
from app.cli import window as window_command
from app.cli.configs import load_checked
from app.opening import OpenRun
from engine.io.config_file import save_config
from engine.model.config import TestConfig
from engine.model.options import options
from engine.model.validation import check_rules, validate_data
from engine.protocol import ExitCode
from engine.run.sources.model import PROFILES
from engine.store.paths import DATA_DIR_ENV
from tests.cli.test_bad_input import good_config, good_data

FUZZ = settings(
    max_examples=150,
    deadline=None,  # a run of the command line opens files and the store: its time is not what is checked
    database=None,  # no example folder in the checkout
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


# (a) The configuration loader ------------------------------------------------------------------------

JSON_LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**20), max_value=10**20)
    | st.sampled_from([0, -1, 10**400, 2**63])
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20)
    | st.sampled_from(["", "2h", "1,000", "NaN", "C:\\DB1", "x\x00y", "performance", "on"])
)
JSON_VALUES = st.recursive(
    JSON_LEAVES, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12
)
FIELD_PATHS = sorted(options())
FIELD_NAMES = sorted(TestConfig.model_fields)


def _set(data: dict[str, Any], path: str, value: object, index: int) -> None:
    """Put `value` at an option's path ("profile.mailboxes", "databases[].log_path" at database `index`)."""
    *parents, leaf = path.split(".")
    here: Any = data
    for part in parents:
        if part.endswith("[]"):
            items = here.setdefault(part[:-2], [])
            if not isinstance(items, list) or not items:
                return  # an earlier edit took the list away: nothing to put the value in
            here = items[index % len(items)]
        else:
            here = here.setdefault(part, {})
        if not isinstance(here, dict):
            return
    here[leaf] = value


@st.composite
def edited_documents(draw: st.DrawFn, folder: Path) -> dict[str, Any]:
    """A valid configuration with a few settings given random values, some removed, some made up."""
    data = good_data(folder)
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        kind = draw(st.sampled_from(["set", "remove", "add"]))
        if kind == "set":
            _set(data, draw(st.sampled_from(FIELD_PATHS)), draw(JSON_VALUES), draw(st.integers(0, 3)))
        elif kind == "remove" and data:
            data.pop(draw(st.sampled_from(sorted(data))))
        else:
            data[draw(st.text(max_size=12))] = draw(JSON_VALUES)
    return data


def _documents(folder: Path) -> st.SearchStrategy[bytes]:
    valid = json.dumps(good_data(folder), indent=2)
    mixed = st.dictionaries(st.sampled_from(FIELD_NAMES) | st.text(max_size=10), JSON_VALUES, max_size=8)
    return st.one_of(
        edited_documents(folder).map(lambda d: json.dumps(d).encode()),
        mixed.map(lambda d: json.dumps(d).encode()),
        JSON_VALUES.map(lambda v: json.dumps(v).encode()),
        st.integers(0, len(valid)).map(lambda n: valid[:n].encode()),  # copied in part
        st.binary(max_size=400),
        st.integers(1, 100_000).map(lambda n: b'{"profile": ' * n),  # nested past any parser's depth
        st.sampled_from([valid.encode("utf-16"), b"\xef\xbb\xbf" + valid.encode(), valid.encode().replace(b"{", b"[", 1)]),
    )


def _figures(config: TestConfig) -> None:
    """What the run, the report and the wizard compute from a configuration that loaded."""
    assert config.database_size_bytes > 0 and config.database_cache_pages > 0
    assert config.flush_thresholds_pages[0] < config.flush_thresholds_pages[1]
    assert config.target_transactional_iops > 0
    check_rules(config)


def test_the_loader_returns_a_configuration_or_its_problems_for_any_file(tmp_path: Path) -> None:
    path = tmp_path / "fuzzed.json"

    @FUZZ
    @given(document=_documents(tmp_path))
    def loads(document: bytes) -> None:
        path.write_bytes(document)
        config, problems = load_checked(path)
        assert (config is None) == bool(problems)
        for problem in problems:
            assert str(problem) and len(str(problem)) <= 400, str(problem)
        if config is not None:
            _figures(config)

    loads()


@FUZZ
@given(data=edited_documents(Path("D:/jetwise")) | st.dictionaries(st.sampled_from(FIELD_NAMES) | st.text(max_size=10), JSON_VALUES,
                                                                   max_size=8))
def test_validating_data_as_the_wizard_and_init_give_it_never_raises(data: dict[str, Any]) -> None:
    config, problems = validate_data(data)
    assert (config is None) == bool(problems)
    if config is not None:
        _figures(config)


# (b) The command line ----------------------------------------------------------------------------------

class RunStarted(BaseException):
    """A runner was asked for: the fuzz found a way to a measured run, which it must never start."""


NUMBERS = ["0", "-1", "1", "2", "1.5", "2.0", "1,000", "0,5", "1e400", "-inf", "inf", "nan", "NaN",
           "99999999999999999999999999", "0x10", "1_000", " 7 ", ""]
DURATIONS = ["0", "0s", "-5m", "2x", "1h30m", "P1M", "PT0S", "90", "40d", "nan", "inf", "1:30", "99:99", "", "1" + "0" * 400]
WORDS = ["on", "off", "maybe", "performance", "database_backup", "a4", "a3", *sorted(PROFILES), "floppy", "-", "--",
         "\x00", "é", " "]


def _places(tmp: Path) -> dict[str, list[str]]:
    """Paths to give: `bad` ones only, where a valid configuration would start a run; `out` ones for init to write."""
    (tmp / "folder").mkdir()
    (tmp / "out").mkdir()
    (tmp / "a-file").write_text("not a folder, not JSON")
    (tmp / "bad.json").write_text(json.dumps({"schema_version": 1, "databases": [], "thread_count": "two"}))
    (tmp / "binary.json").write_bytes(bytes(range(256)))
    (tmp / "used").mkdir()
    (tmp / "used" / "result.json").write_text(json.dumps({"schema_version": 2}))
    save_config(good_config(tmp), tmp / "good.json")
    bad = [str(tmp / name) for name in ("folder", "a-file", "bad.json", "binary.json", "used", "missing/x.json")]
    bad += ["", "x\x00y", ".", "..", str(tmp / "a-file" / "inner.json"), "n" * 300]  # the last too long a name
    return {
        "bad": bad,
        "any": [*bad, str(tmp / "good.json")],
        "out": [str(tmp / "out" / "new.json"), str(tmp / "out"), str(tmp / "out" / "missing" / "x.json"), str(tmp / "out" / "\x00")],
    }


SAFE_TEXT = st.text(st.characters(exclude_characters="/\\", exclude_categories=["Cs"]), max_size=12)  # never a path elsewhere


def _value(action: argparse.Action, paths: list[str]) -> st.SearchStrategy[str]:
    pool = [*NUMBERS, *DURATIONS, *WORDS, *paths, *(str(c) for c in action.choices or ())]
    return st.sampled_from(pool) | SAFE_TEXT


def _flag_tokens(action: argparse.Action, paths: list[str]) -> st.SearchStrategy[list[str]]:
    flag = st.sampled_from(action.option_strings)
    if action.nargs == 0:
        return flag.map(lambda f: [f])
    count = (1, 3) if action.nargs in ("+", "*") else (0, 1)  # a flag without its value is a mistake too
    return st.tuples(flag, st.lists(_value(action, paths), min_size=count[0], max_size=count[1])).map(lambda t: [t[0], *t[1]])


@st.composite
def command_lines(draw: st.DrawFn, places: dict[str, list[str]]) -> list[str]:
    name = draw(st.sampled_from(sorted(COMMANDS)))
    parser, _ = command_parser(name)
    starts_runs = name in ("run", "tune", "suite", "engine", "window")
    paths = places["bad"] if starts_runs else places["out"] if name == "init" else places["any"]
    flags = [a for a in parser._actions if a.option_strings and "--quick" not in a.option_strings]
    positionals = [a for a in parser._actions if not a.option_strings]
    tokens: list[str] = []
    for _ in range(draw(st.integers(0, 4))):
        tokens += draw(_flag_tokens(draw(st.sampled_from(flags)), paths))
    for _ in positionals:
        if draw(st.integers(0, 4)):  # now and then the positional is left out
            typed = SAFE_TEXT if name != "init" and draw(st.integers(0, 3)) == 0 else st.sampled_from(paths)
            tokens.insert(draw(st.integers(0, len(tokens))), draw(typed))
    if draw(st.integers(0, 9)) == 0:
        tokens.append(draw(SAFE_TEXT))  # one argument too many
    return [name, *tokens]


FIRST_WORDS = st.sampled_from(["--help", "help", "--version", "frobnicate", "tuen", "-x", ""]) | SAFE_TEXT


@pytest.fixture
def sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The command line run in tmp_path, its store there too, and no runner to be had."""

    def no_runner(*_args: object, **_kwargs: object) -> None:
        raise RunStarted("a measured run was about to start")

    def window_closed(*_args: object, **_kwargs: object) -> int:
        return ExitCode.PASS  # the window opened and was closed again: a valid command line

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "store"))
    monkeypatch.setattr(OpenRun, "runner", no_runner)
    monkeypatch.setattr(window_command, "open_window", window_closed)
    return tmp_path


def _run(arguments: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = run_cli(arguments)
    return code, out.getvalue() + err.getvalue()


def test_the_command_line_refuses_random_bad_input_with_exit_2(sandbox: Path) -> None:
    places = _places(sandbox)

    @settings(FUZZ, max_examples=400)  # a command line is cheap and has many branches to reach
    @given(arguments=command_lines(places) | st.lists(SAFE_TEXT, max_size=3).flatmap(lambda rest: FIRST_WORDS.map(lambda w: [w, *rest])))
    def refuses(arguments: list[str]) -> None:
        code, text = _run(arguments)
        assert "Traceback" not in text, text
        assert code in (ExitCode.PASS, ExitCode.INVALID), text  # never a crash (3), never a verdict (1): no run starts
        if code == ExitCode.INVALID:
            assert "error" in text and len(text) <= 6_000 and text.count("\n") <= 30, text

    refuses()
