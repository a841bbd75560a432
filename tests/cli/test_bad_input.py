"""Bad input on the command line: a message saying what and where, exit code 2, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import run_cli


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "ok.json"
    assert run_cli(["init", str(path), "--mailboxes", "10", "--mailbox-size-mb", "1",
                    "--db-path", str(tmp_path / "D{n}"), "--log-path", str(tmp_path / "L{n}")]) == 0
    return path


def _binary(tmp_path: Path) -> str:
    path = tmp_path / "binary.json"
    path.write_bytes(bytes(range(128, 256)) * 8)
    return str(path)


def _a_file(tmp_path: Path) -> str:
    path = tmp_path / "a-file"
    path.write_text("not a folder")
    return str(path)


def _used_folder(tmp_path: Path) -> str:
    folder = tmp_path / "used"
    folder.mkdir()
    (folder / "result.json").write_text(json.dumps({"schema_version": 2}))
    return str(folder)


CASES = [
    # (arguments, the words the message must hold); {tmp} is a scratch folder, {config} a valid configuration
    (["init", "{tmp}/missing/t.json"], "the folder {tmp}/missing does not exist"),
    (["init", "{tmp}", "--force"], "is a folder; give the file to write"),
    (["init", "{tmp}/t.json", "--databases", "100000"], "--databases: give 1 to 256 databases (got 100,000)"),
    (["init", "{tmp}/t.json", "--databases", "0"], "--databases: give 1 to 256 databases (got 0)"),
    (["init", "{tmp}/t.json", "--iops-per-mailbox", "inf"], "--iops-per-mailbox: input should be less than or equal to 100"),
    (["init", "{tmp}/t.json", "--iops-per-mailbox", "nan"], "--iops-per-mailbox:"),
    (["init", "{tmp}/t.json", "--mailboxes", "1.5"], "--mailboxes takes a whole number (got '1.5')"),
    (["init", "{tmp}/t.json", "--background-maintenance", "maybe"], "say on or off (got 'maybe')"),
    (["init", "{tmp}/t.json", "--duration", "2x"], "cannot read duration '2x'"),
    (["init", "{tmp}/t.json", "--db-path", "a", "b", "c"], "3 paths given for 2 databases"),
    (["validate", "{binary}"], "is not a text file"),
    (["validate", "{tmp}"], "is a folder; give the configuration file"),
    (["validate", "{tmp}/nothing.json"], "cannot read"),
    (["run", "{config}", "--output", "{a_file}"], "is a file; a run needs a folder of its own"),
    (["run", "{config}", "--output", "{used}"], "already holds a run (result.json)"),
    (["run", "{config}", "--duration", "0s"], "duration '0s' must be positive"),
    (["run"], "give either CONFIG.json or --quick"),
    (["run", "{config}", "--simulate", "floppy"], "no simulated storage profile 'floppy'"),
    (["report", "{used}", "--html", "{tmp}/nowhere/r.html"], "is in a folder that does not exist"),
    (["report", "no-such-run"], "is neither a run folder nor a run id"),
    (["history", "--session", "no such session"], "no tuning session 'no such session'"),
    (["tune", "{config}", "--max-runs", "0"], "--max-runs must be at least 1"),
    (["frobnicate"], "unknown command 'frobnicate'"),
]


@pytest.mark.parametrize(("arguments", "words"), CASES, ids=[" ".join(c[0]) for c in CASES])
def test_bad_input_is_named_and_exits_2(arguments, words, tmp_path, config, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    places = {"tmp": str(tmp_path), "config": str(config), "binary": _binary(tmp_path), "a_file": _a_file(tmp_path),
              "used": _used_folder(tmp_path)}
    capsys.readouterr()
    code = run_cli([a.format(**places) for a in arguments])
    out = capsys.readouterr()
    err = out.out + out.err  # validate lists the problems it found on stdout
    assert code == 2, err
    assert words.format(**places) in err, err
    assert "Traceback" not in err


def test_an_unexpected_error_is_one_line_and_a_crash_log(tmp_path, config, capsys, monkeypatch):
    import app.cli.validate

    def broken(*_args: object) -> None:
        raise RuntimeError("the disk driver said no")

    monkeypatch.setattr(app.cli.validate, "validate_config", broken)
    assert run_cli(["validate", str(config)]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unexpected error: RuntimeError: the disk driver said no" in err
    log = Path(err.rsplit("the details are in ", 1)[1].strip())
    assert "RuntimeError: the disk driver said no" in log.read_text(encoding="utf-8")
