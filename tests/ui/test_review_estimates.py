"""Review says what auto-tune will do and how long it takes: a load sweep, then confirmation runs, each of the
calibration length; not the test's planned duration, nor "usually 2 to 4" runs."""

from __future__ import annotations

from engine.model.units import compact_duration
from tests.conftest import small_config
from ui.wizard import PAGE_REVIEW


def test_review_in_auto_tune_shows_the_sweep_and_the_confirmation_runs_and_manual_shows_the_run(qtbot, window, tmp_path):
    config = small_config(tmp_path / "data" / "dbs", duration_s=1200.0, warmup_s=60.0)
    window.wizard.load_config(config, session="estimates")
    window.state.set_auto_tune(True)
    window.wizard.tuning.calibration.set_value("45s")
    window.wizard.restart_at(PAGE_REVIEW)
    text = " ".join(window.wizard.review.text.toPlainText().split())
    assert "a load sweep of at most" in text and "then confirmation runs of at most 45s each, at most 8 runs in all" in text
    assert "usually 2 to 4" not in text
    assert "Duration each confirmation run:" in text and f"(the planned {compact_duration(1200.0)} is for the full-length test)" in text
    assert "a Jetwise database of this size already there is reused" in text
    window.state.set_auto_tune(False)
    window.wizard.restart_at(PAGE_REVIEW)
    text = " ".join(window.wizard.review.text.toPlainText().split())
    assert f"Duration {compact_duration(60.0)} warm-up + {compact_duration(1200.0)} measured" in text
    assert "load sweep" not in text


def test_a_confirmation_too_short_to_judge_is_said_at_its_field(qtbot, window, tmp_path):
    config = small_config(tmp_path / "data" / "dbs", thresholds={"minimum_measured_s": 30.0})  # half-second samples
    window.wizard.load_config(config, session="estimates")
    window.state.set_auto_tune(True)
    tuning = window.wizard.tuning
    tuning.calibration.set_value("20s")
    assert not tuning.isComplete()
    assert tuning.calibration.error.text() == ("at least 35s: a confirmation warms up, waits for its latency to "
                                               "settle, then measures the 30s a verdict needs")
    tuning.calibration.set_value("35s")
    assert tuning.isComplete() and not tuning.calibration.error.isVisibleTo(tuning)
