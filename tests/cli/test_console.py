"""The console: a run's summary says when nothing was measured instead of quoting IOPS over 0 s; interval lines come
as a run gives them in real time, a few a second when a simulated run gives them faster."""

from __future__ import annotations

import io

from app.cli.console import LINE_EVERY_S, ConsoleRenderer, print_result
from engine.model.config import default_config
from engine.model.units import format_duration
from engine.protocol import IntervalEvent
from engine.run.sources.model import PROFILES, runner_for


def _result(tmp_path):
    config = default_config(tmp_path / "data", duration_s=10.0, warmup_s=1.0)
    return runner_for(PROFILES["flash"], config, tmp_path / "run", lambda _e: None).run()


def test_a_run_with_nothing_measured_says_so_and_quotes_no_iops(tmp_path):
    result = _result(tmp_path)
    result.summary.measured_s = 0.1
    out = io.StringIO()
    print_result(result, out)
    assert "Nothing measured: 0.1 s of measurement" in out.getvalue() and "Achieved" not in out.getvalue()


def test_a_measured_run_quotes_its_iops(tmp_path):
    out = io.StringIO()
    print_result(_result(tmp_path), out)
    assert "Achieved" in out.getvalue() and "Nothing measured" not in out.getvalue()


def _events(tmp_path):
    """A simulated run's events as the console gets them: start, phases, 70 samples, the result."""
    events = []
    config = default_config(tmp_path / "data", duration_s=60.0, warmup_s=10.0)
    runner_for(PROFILES["flash"], config, tmp_path / "run", events.append).run()
    return events


def _shown(events, seconds_apart):
    """What the console prints when the events come `seconds_apart` of wall time after each other."""
    ticks = iter(range(len(events)))
    out = io.StringIO()
    renderer = ConsoleRenderer(out, clock=lambda: next(ticks) * seconds_apart)
    for event in events:
        renderer(event)
    return out.getvalue().splitlines()


def test_a_run_in_real_time_prints_every_sample(tmp_path):
    lines = _shown(_events(tmp_path), 1.0)
    assert sum("[warm-up" in line for line in lines) == 10 and sum("[measure" in line for line in lines) == 60


def test_a_simulated_run_prints_a_few_lines_a_second_and_the_last_of_each_phase(tmp_path):
    events = _events(tmp_path)
    warmup = [event.sample for event in events if isinstance(event, IntervalEvent) and event.sample.phase == "warmup"]
    lines = _shown(events, 0.01)  # 70 samples in 0.7 s of wall time
    shown = [line for line in lines if line.lstrip().startswith("[")]
    assert 3 <= len(shown) <= 2 + 0.7 / LINE_EVERY_S + 1
    before_measuring = lines[next(i for i, line in enumerate(lines) if line.startswith("== Measuring")) - 1]
    assert before_measuring.lstrip().startswith(f"[warm-up {format_duration(warmup[-1].elapsed_s)},")
    assert shown[-1].lstrip().startswith("[measure") and "0:00 left" in shown[-1]


def test_the_measure_counter_counts_from_the_start_of_measuring_not_of_the_warm_up(tmp_path):
    events = _events(tmp_path)  # 10 s of warm-up, then 60 s measured
    for seconds_apart in (1.0, 0.01):  # every line, or a few a second
        measured = [line.strip() for line in _shown(events, seconds_apart) if line.lstrip().startswith("[measure")]
        assert measured[-1].startswith(f"[measure {format_duration(60.0)}, 0:00 left]"), measured[-1]
    every = [line.strip() for line in _shown(events, 1.0) if line.lstrip().startswith("[")]
    assert every[9].startswith(f"[warm-up {format_duration(10.0)},") and every[10].startswith(
        f"[measure {format_duration(1.0)},")


def test_a_sweep_s_measure_counter_starts_again_at_each_step_once_it_settled():
    from engine.results.clock import MeasuredClock
    from engine.results.sample_schema import IntervalSample

    clock = MeasuredClock()
    phases = [("warmup", 0)] * 3 + [("measure", 0)] * 4 + [("warmup", 1)] * 2 + [("measure", 1)] * 2
    said = []
    for second, (phase, step) in enumerate(phases, start=1):
        sample = IntervalSample(interval=second - 1, phase=phase, elapsed_s=float(second), duration_s=1.0, step=step)
        clock.add(sample)
        said.append(clock.measured_s(sample))
    assert said == [None, None, None, 1.0, 2.0, 3.0, 4.0, None, None, 1.0, 2.0]
