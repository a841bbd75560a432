"""The shortest measured window judged: a Performance or Stress run that measured less ends FAIL, not enough
measured, whatever its figures; the advisor does not read it; a confirmation run always measures it; a duration
below it is said where it is typed."""

from __future__ import annotations

import math
from pathlib import Path

from engine.model.config import default_config
from engine.model.profile import MINIMUM_MEASURED_S
from engine.model.validation import Severity, check_rules
from engine.results.schema import Outcome
from engine.results.verdict import WINDOW_CRITERION, too_short
from engine.run.sources.model import PROFILES, runner_for
from engine.tuning.advisor import advise_session
from engine.tuning.evidence import evidence
from engine.tuning.tuner import calibration_rule, shortest_calibration_s
from tests.engine.test_advisor import simulated_tuning

FLASH = PROFILES["flash"]


def _config(folder: Path, **changes: object):
    profile = {"mailboxes": 200, "iops_per_mailbox": 0.5, "mailbox_size_mb": 500, "headroom_percent": 0}
    values: dict[str, object] = {"duration_s": 10.0, "warmup_s": 5.0, "thread_count": 8, "seed": 3, **changes}
    return default_config(folder, databases=2, profile=profile, **values)  # type: ignore[arg-type]


def _run(config, folder: Path):
    return runner_for(FLASH, config, folder, lambda _event: None).run()


def test_a_run_measured_shorter_than_a_verdict_needs_fails_not_enough_measured_and_longer_is_judged(tmp_path):
    short = _config(tmp_path / "data")
    assert short.thresholds.minimum_measured_s == MINIMUM_MEASURED_S == 30.0
    result = _run(short, tmp_path / "short")
    assert result.verdict == Outcome.FAIL and too_short(result)
    [window] = [c for c in result.criteria if c.name == WINDOW_CRITERION]
    assert not window.passed and window.value == result.summary.measured_s < 30 and window.limit == 30
    assert result.summary.reasons[0].startswith(f"not enough measured: {result.summary.measured_s:.1f} s, and a "
                                                "verdict needs at least 30 s measured")
    # everything else it measured passed: the window alone failed it
    assert all(c.passed for c in result.criteria if c.name != WINDOW_CRITERION)

    long_enough = _run(_config(tmp_path / "data", duration_s=30.0), tmp_path / "long")
    assert long_enough.verdict == Outcome.PASS and not too_short(long_enough)
    assert WINDOW_CRITERION not in {c.name for c in long_enough.criteria}
    rehearsal = _run(_config(tmp_path / "data", thresholds={"minimum_measured_s": 0}), tmp_path / "rehearsal")
    assert rehearsal.verdict == Outcome.PASS  # asked for by name: any length is judged

    points, notes = evidence(short, [result, long_enough], FLASH.name)
    assert [(p.threads, p.achieved_iops) for p in points] == [(8, long_enough.summary.achieved_transactional_iops)]
    assert len(notes) == 1 and "less than the 30 s a verdict needs, so its figures are not read" in notes[0].words
    advice = advise_session(short, [long_enough, result], device=FLASH.name)  # the latest too short: its setting again, for longer
    assert (advice.status, advice.threads, advice.sluggish_sessions) == ("next", 8, 1)
    assert advice.rationale.startswith("the same setting for longer: 8 threads / SluggishSessions 1 measured 10 s, "
                                       "and a verdict needs at least 30 s measured")
    assert advise_session(short, [result, long_enough], device=FLASH.name).rationale != advice.rationale  # a longer run answered it


def test_a_stopped_run_stays_aborted_not_too_short(tmp_path):
    config = _config(tmp_path / "data")
    runner = runner_for(FLASH, config, tmp_path / "stopped", lambda _event: None)
    runner.request_stop("Stopped by the engineer")
    stopped = runner.run()
    assert stopped.verdict == Outcome.ABORTED and not too_short(stopped)


def test_a_duration_below_the_window_is_warned_of_at_the_duration_not_refused(tmp_path):
    [warning] = [p for p in check_rules(_config(tmp_path)) if p.field == "duration_s"]
    assert warning.severity == Severity.WARNING
    assert warning.message.startswith("a verdict needs at least 30 s measured (Shortest measured window judged): a "
                                      "run measuring 10 s ends FAIL, not enough measured")
    assert not [p for p in check_rules(_config(tmp_path, duration_s=30.0)) if p.field == "duration_s"]
    assert not [p for p in check_rules(_config(tmp_path, test_type="database_checksum")) if p.field == "duration_s"]


def test_a_confirmation_run_always_judges_the_shortest_window_however_short_it_was_asked(tmp_path):
    config = _config(tmp_path / "data", duration_s=7200.0)
    assert shortest_calibration_s(config) == 40.0  # 5 samples of warm-up, 5 to settle, 30 judged
    for asked in (10.0, 30.0, 180.0):
        shaped, rule = calibration_rule(config, asked)
        assert rule.measure_samples * shaped.sample_interval_s >= 30
        assert shaped.duration_s >= (rule.measure_samples + rule.window) * shaped.sample_interval_s
        assert shaped.warmup_s + shaped.duration_s >= asked
    halved = config.model_copy(update={"sample_interval_s": 0.5})
    assert calibration_rule(halved, 30.0)[1].measure_samples == math.ceil(30 / 0.5)

    confirmed = simulated_tuning(FLASH, tmp_path / "runs", calibration_s=30.0)(config, 1)
    assert confirmed.summary.measured_s >= 30 and not too_short(confirmed)
    assert confirmed.verdict == Outcome.PASS
