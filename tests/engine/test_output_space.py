"""The run folder's volume is checked before a run: refused when even the result would not fit, warned when the samples may not."""

from __future__ import annotations

from collections import namedtuple

import pytest

from engine.model.config import default_config
from engine.model.validation import Severity
from engine.run import sinks
from engine.run.runner import InvalidConfigError, Runner

Usage = namedtuple("Usage", "total used free")


def _free(monkeypatch, free: int) -> None:
    monkeypatch.setattr(sinks.shutil, "disk_usage", lambda _path: Usage(free * 2, free, free))


def test_a_volume_without_room_for_the_result_is_refused_before_anything_is_written(tmp_path, monkeypatch):
    config = default_config(tmp_path / "data")
    _free(monkeypatch, sinks.RESERVE_BYTES)
    with pytest.raises(InvalidConfigError) as refused:
        Runner(config, tmp_path / "out", lambda _e: None).run()
    (problem,) = [p for p in refused.value.problems if p.field == "output"]
    assert "has 1.0 MB free; a run folder needs at least 2.0 MB" in problem.message
    assert not (tmp_path / "out").exists()


def test_a_volume_the_samples_may_fill_is_a_warning_with_the_estimate(tmp_path, monkeypatch):
    config = default_config(tmp_path / "data", databases=4, duration_s=24 * 3600)
    _free(monkeypatch, 20 * 1024 * 1024)  # a day on four databases takes about 30 MB of samples
    problem = sinks.output_space_problem(config, tmp_path / "out")
    assert problem is not None and problem.severity == Severity.WARNING
    assert "this run's samples take about" in problem.message and "the run stops there, aborted" in problem.message
    _free(monkeypatch, 10 * 1024**3)
    assert sinks.output_space_problem(config, tmp_path / "out") is None
