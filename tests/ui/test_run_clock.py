"""The run view's clock: the warm-up's seconds elapsed while warming up, then the seconds measured, from the start of
measuring."""

from __future__ import annotations

import pyqtgraph as pg

from engine.model.config import default_config
from engine.model.units import format_duration
from engine.protocol import IntervalEvent
from engine.run.sources.model import PROFILES, runner_for
from ui.views.run_view import RunView


def test_the_measuring_clock_counts_from_the_start_of_measuring_not_of_the_warm_up(qtbot, tmp_path):
    events = []
    config = default_config(tmp_path / "data", duration_s=60.0, warmup_s=10.0)
    runner_for(PROFILES["flash"], config, tmp_path / "run", events.append).run()
    view = RunView()
    qtbot.addWidget(view)
    view.begin(config, "Run 1")
    said = []
    for event in events:
        view.on_event(event)
        if isinstance(event, IntervalEvent):
            said.append(view.clock.text())
    assert said[9].startswith(f"attaining prerequisites (warm-up): {format_duration(10.0)} elapsed, ")
    assert said[10].startswith(f"measuring: {format_duration(1.0)} measured, ")
    assert said[-1] == f"measuring: {format_duration(60.0)} measured, {format_duration(0.0)} remaining"
    # the live plots mark where the warm-up ends and the measured window begins, once, on both plots
    marks = [item for item in view.plots.iops_plot.getPlotItem().items
             if isinstance(item, pg.InfiniteLine) and item.angle == 90]
    assert [(mark.value(), mark.label.toPlainText()) for mark in marks] == [(10.0, "measuring from here")]
    assert [item.value() for item in view.plots.latency_plot.getPlotItem().items
            if isinstance(item, pg.InfiniteLine) and item.angle == 90] == [10.0]


def test_a_failing_criterion_beyond_the_six_the_running_verdict_shows_is_said_below_them(qtbot, tmp_path):
    view = RunView()
    qtbot.addWidget(view)
    for number, profile in enumerate(({}, {"mailboxes": 10, "mailbox_size_mb": 10})):  # the second: the cache holds it
        events = []
        config = default_config(tmp_path / f"data{number}", duration_s=30.0, warmup_s=5.0, profile=profile)
        runner_for(PROFILES["flash"], config, tmp_path / f"run{number}", events.append).run()
        view.begin(config, f"Run {number + 1}")
        for event in events:
            view.on_event(event)
        if number == 0:
            assert view.others.isHidden()  # every criterion kept: nothing more to say
    # a criterion none of the six shows fails: said below them, not hidden
    assert not view.others.isHidden() and view.others.text().startswith("✗ Also failing: "), view.others.text()
    assert "Database reads the storage serves (by design)" in view.others.text()
