"""The command line's shape: the registry of sub-commands, flags built from the model's option declarations."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli import COMMANDS, command_parser, run_cli
from app.cli.options import option_values
from engine.model.options import flagged, option

ROOT = Path(__file__).resolve().parents[2]


def test_help_lists_every_command_with_its_summary(capsys):
    assert run_cli(["--help"]) == 0
    out = capsys.readouterr().out
    for name, command in COMMANDS.items():
        assert f"  {name}" in out and command.summary in out


def test_an_unknown_command_is_refused_with_the_nearest_one(capsys):
    assert run_cli(["tuen", "x.json"]) == 2
    assert "unknown command 'tuen'; did you mean 'tune'?" in capsys.readouterr().err


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_command_builds_its_parser(name):
    parser, module = command_parser(name)
    assert parser.prog == f"jetwise {name}" and callable(module.run)


def test_every_declared_option_has_an_init_flag_with_the_models_words():
    parser, _ = command_parser("init")
    help_text = " ".join(parser.format_help().split())
    for declared in flagged():
        assert declared.flag in help_text, declared.path
        assert " ".join(declared.description.split()) in help_text, declared.path
    assert "(default 1,000)" not in help_text and "(default 1000)" in help_text  # the model's default, shown as typed


def test_typed_values_land_at_their_paths_and_untyped_ones_stay_out(tmp_path):
    parser, _ = command_parser("init")
    args = parser.parse_args([str(tmp_path / "t.json"), "--mailboxes", "50", "--headroom-percent", "0",
                              "--background-maintenance", "off", "--warmup", "1m30s", "--type", "stress"])
    assert option_values(args) == {
        "profile": {"mailboxes": 50, "headroom_percent": 0.0}, "background_maintenance": False, "warmup_s": 90.0,
        "test_type": "stress",
    }


def test_a_model_default_reaches_the_file_and_the_thread_count_follows_the_typed_profile(tmp_path, capsys):
    out = tmp_path / "t.json"
    assert run_cli(["init", str(out), "--mailboxes", "2700", "--iops-per-mailbox", "0.1", "--headroom-percent", "0",
                    "--db-path", str(tmp_path / "D{n}"), "--log-path", str(tmp_path / "L{n}")]) == 0
    data = json.loads(out.read_text())
    assert data["profile"]["headroom_percent"] == 0 and data["thread_count"] == 2  # 270 IOPS / 135
    assert data["duration_s"] == option("duration_s").default


def test_a_bad_value_is_named_by_the_flag_it_was_typed_with(tmp_path, capsys):
    assert run_cli(["init", str(tmp_path / "t.json"), "--headroom-percent", "900"]) == 2
    assert "error: --headroom-percent: " in capsys.readouterr().err
    assert run_cli(["init", str(tmp_path / "t.json"), "--mailboxes", "many"]) == 2
    assert "--mailboxes takes a whole number (got 'many')" in capsys.readouterr().err


def test_a_run_override_uses_the_same_declaration(tmp_path):
    parser, _ = command_parser("run")
    args = parser.parse_args(["c.json", "--duration", "90s"])
    assert option_values(args) == {"duration_s": 90.0}
    with pytest.raises(SystemExit):
        parser.parse_args(["c.json", "--duration", "0s"])  # a measured duration must be positive


def test_a_command_imports_only_what_it_needs(tmp_path):
    """`validate` loads neither Qt nor the report renderer nor the tuner: sub-commands are imported lazily."""
    config = tmp_path / "c.json"
    assert run_cli(["init", str(config), "--db-path", str(tmp_path / "D{n}"), "--log-path", str(tmp_path / "L{n}"),
                    "--mailboxes", "10", "--mailbox-size-mb", "1"]) == 0
    script = (
        "import sys; from app.cli import run_cli; code = run_cli(['validate', sys.argv[1]]); "
        "print(sorted(m for m in ('PySide6', 'reporting.document', 'engine.tuning.tuner', 'app.cli.run') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", script, str(config)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stderr
