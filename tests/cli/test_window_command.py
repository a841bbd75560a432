"""`jetwise window CONFIG --start`: the window opens with the configuration loaded and runs it to its result."""

from __future__ import annotations

from tests.frozen.programs import jetwise, source_program, window_run


def test_the_window_loads_a_configuration_and_starts_it_through_its_engine_sub_process(tmp_path):
    result, started = window_run(source_program(), tmp_path)
    assert result["summary"]["verdict"] in ("pass", "fail")
    assert any(line[1:4] == ["-m", "app", "engine"] for line in started), started  # the engine: not the window


def test_start_without_a_configuration_or_a_missing_file_is_exit_2(tmp_path):
    alone = jetwise(source_program(), "window", "--start", cwd=tmp_path)
    assert alone.returncode == 2 and "--start needs a CONFIG to start" in alone.stderr
    missing = jetwise(source_program(), "window", str(tmp_path / "gone.json"), cwd=tmp_path)
    assert missing.returncode == 2 and "gone.json is not a file" in missing.stderr
