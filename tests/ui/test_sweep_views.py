"""A load sweep in the window: its curve drawn step by step in the run view, its steps in the results and session
views; a run at one setting keeps the plain view."""

from __future__ import annotations

import pyqtgraph as pg
import pytest

from engine.protocol import IntervalEvent, ResultEvent
from engine.results.verdict import CACHE_HIT_CRITERION
from engine.run.sources.model import PROFILES, runner_for
from engine.store.sqlite import Store
from engine.workload.stats import CACHE_HITS, CACHE_MISSES
from tests.ui.sweeps import simulated_sweep
from ui.views.results_view import ResultsView
from ui.views.run_view import RunView
from ui.views.session_view import COLUMNS as SESSION_COLUMNS
from ui.views.session_view import SessionView
from ui.widgets.style import verdict_colour
from ui.widgets.sweep_table import COLUMNS, OUTCOME


@pytest.fixture
def sweep(tmp_path):
    return simulated_sweep(tmp_path)


def _run_view(qtbot, config) -> RunView:
    view = RunView()
    qtbot.addWidget(view)
    view.begin(config, "Auto-tune run 1: load sweep")
    return view


def _markers(plot: pg.PlotWidget) -> dict[str, list[float]]:
    """The effective loads of the points drawn, by how they are filled (the verdict's colour, or white: hollow)."""
    drawn: dict[str, list[float]] = {}
    for item in plot.getPlotItem().listDataItems():
        if item.opts.get("symbol") is None:
            continue
        x, _y = item.getOriginalDataset()
        drawn.setdefault(pg.mkBrush(item.opts["symbolBrush"]).color().name(), []).extend(float(v) for v in x)
    return drawn


def test_the_run_view_draws_a_point_as_each_step_completes_with_the_bracket_and_the_chosen_setting(qtbot, sweep):
    view = _run_view(qtbot, sweep.config)
    steps = sweep.result.sweep.steps
    assert len(steps) >= 3
    third = next(i for i, e in enumerate(sweep.events) if isinstance(e, IntervalEvent) and e.sample.step == 2)
    for event in sweep.events[:third]:
        view.on_event(event)
    assert view.sweep_plots.isVisibleTo(view)
    assert [p.step for p in view.sweep_plots.points] == [0]  # step 2 is still measuring: only step 1 is complete
    view.on_event(sweep.events[third])  # the first sample of step 3 completes step 2
    assert sorted(p.step for p in view.sweep_plots.points) == [0, 1]
    for point in view.sweep_plots.points:  # judged live as the engine judged the step
        record = steps[point.step]
        assert point.latency_ok == record.latency_ok and point.iops == pytest.approx(record.transactional_iops, rel=1e-3)
        assert point.read_ms == pytest.approx(record.db_read_avg_latency_ms, rel=1e-3)
    assert "step 3 running" in view.sweep_plots.caption.text()

    for event in sweep.events[third + 1:]:
        view.on_event(event)
    view.on_event(ResultEvent(result=sweep.result))
    plots = view.sweep_plots
    assert sorted(p.step for p in plots.points) == [s.step for s in steps]
    passing = sorted(s.effective_load for s in steps if s.latency_ok)
    failing = sorted(s.effective_load for s in steps if not s.latency_ok)
    assert passing and failing
    for plot in (plots.iops_plot, plots.latency_plot):
        drawn = _markers(plot)
        assert sorted(drawn[verdict_colour("pass")]) == pytest.approx(passing)  # filled green
        assert sorted(drawn["#ffffff"]) == pytest.approx(failing)  # hollow
    low, high = plots.bracket
    assert low.effective_load == max(passing) and high.effective_load == min(f for f in failing if f > max(passing))
    assert f"Limit between steps {low.step + 1} and {high.step + 1}." in plots.caption.text()
    assert f"step {low.step + 1} ({low.threads} threads, SluggishSessions {low.sluggish_sessions}" in plots.caption.toolTip()

    advice = sweep.tuner.advice  # what the window's auto-tune confirms next
    view.show_sweep(sweep.result, advice)
    assert plots.chosen == advice
    assert f"Chosen: {advice.threads} threads, SluggishSessions {advice.sluggish_sessions}." in plots.caption.text()
    lines = [i for i in plots.iops_plot.getPlotItem().items if isinstance(i, pg.InfiniteLine) and i.angle == 90]
    assert len(lines) == 1


def test_a_step_that_says_nothing_of_the_storage_is_marked_and_named(qtbot, sweep):
    view = _run_view(qtbot, sweep.config)
    steps = sweep.result.sweep.steps
    bound = sweep.result.model_copy(deep=True)
    bound.sweep.steps[-1] = steps[-1].model_copy(update={"host_bound": True, "latency_ok": False})
    view.show_sweep(bound, None)
    labels = [i.toPlainText() for i in view.sweep_plots.latency_plot.getPlotItem().items if isinstance(i, pg.TextItem)]
    assert f"{len(steps)} host-bound" in labels
    assert _markers(view.sweep_plots.latency_plot)["#bbbbbb"] == [steps[-1].effective_load]
    # a host-bound step that kept the thresholds says the storage carried at least that: a kept step, so named
    bound.sweep.steps[-1] = steps[-1].model_copy(update={"host_bound": True, "latency_ok": True})
    view.show_sweep(bound, None)
    labels = [i.toPlainText() for i in view.sweep_plots.latency_plot.getPlotItem().items if isinstance(i, pg.TextItem)]
    assert f"{len(steps)} host-bound: at least" in labels
    assert "#bbbbbb" not in _markers(view.sweep_plots.latency_plot)


def test_a_run_at_one_setting_shows_no_sweep_plots(qtbot, tmp_path, sweep):
    config = sweep.config.model_copy(update={"duration_s": 20.0})
    events: list[object] = []
    result = runner_for(PROFILES["sata-2x7k"], config, tmp_path / "plain", events.append).run()
    view = _run_view(qtbot, config)
    for event in events:
        view.on_event(event)
    view.on_event(ResultEvent(result=result))
    assert result.sweep is None and view.plots.iops.n > 0
    assert not view.sweep_plots.isVisibleTo(view) and view.sweep_plots.points == []
    assert view.criteria_box.title() == "Running verdict (measured samples so far)"


def test_the_results_view_lists_a_sweeps_steps_and_the_step_its_verdict_judged(qtbot, sweep):
    view = ResultsView()
    qtbot.addWidget(view)
    view.show_result(sweep.result, sweep.tuner.advice)
    table = view.sweep.table
    steps = sweep.result.sweep.steps
    judged = sweep.result.sweep.judged_step
    assert view.sweep.isVisibleTo(view) and table.rowCount() == len(steps)
    assert [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())] == COLUMNS
    for row, step in enumerate(steps):
        assert table.item(row, 0).text() == str(step.step + 1)
        assert table.item(row, 1).text() == str(step.threads) and table.item(row, 2).text() == str(step.sluggish_sessions)
        outcome = table.item(row, OUTCOME).text()
        assert outcome.startswith("Kept every latency threshold") if step.latency_ok else outcome == f"Broke: {step.broke_words}"
        assert table.item(row, 0).font().bold() == (step.step == judged)
    assert f"The verdict judges step {judged + 1}" in view.sweep.summary.text()
    assert f"judged on step {judged + 1} of the load sweep" in view.headline.text()

    plain = sweep.result.model_copy(update={"sweep": None})
    view.show_result(plain, None)
    assert not view.sweep.isVisibleTo(view)


def test_the_session_view_draws_a_sweeps_steps_and_its_row_at_the_judged_setting(qtbot, tmp_path):
    store = Store(tmp_path / "store.db")
    try:
        sweep = simulated_sweep(tmp_path, store, "swept")
        view = SessionView()
        qtbot.addWidget(view)
        view.show_session("swept", store.runs("swept"), store.results("swept"))
    finally:
        store.close()
    summary = sweep.result.summary
    assert view.table.item(0, 0).text().endswith("(load sweep)")
    threads, sluggish = SESSION_COLUMNS.index("Threads"), SESSION_COLUMNS.index("Sluggish\nSessions")
    assert (view.table.item(0, threads).text(), view.table.item(0, sluggish).text()) == (
        str(summary.threads), str(summary.sluggish_sessions))
    diamonds = [i for i in view.latency_plot.getPlotItem().items if isinstance(i, pg.ScatterPlotItem) and i.opts["symbol"] == "d"]
    assert len(diamonds) == 1 and len(diamonds[0].data) == len(sweep.result.sweep.steps)


def test_the_running_verdict_says_as_it_runs_that_the_cache_served_the_reads(qtbot, tmp_path, sweep):
    """A run whose page references are nearly all cache hits shows that criterion failing while it runs, as its end
    judges it, not five green boxes and a FAIL at the end."""
    config = sweep.config.model_copy(update={"duration_s": 20.0})
    events: list[object] = []
    runner = runner_for(PROFILES["sata-2x7k"], config, tmp_path / "held", events.append)

    class HeldByTheCache(type(runner.source)):  # a few reads, 99.95 % of the page references cache hits
        def instance_interval(self, *args, **kwargs):
            part = super().instance_interval(*args, **kwargs)
            part.cache[CACHE_HITS] = part.cache[CACHE_MISSES] * 1999
            return part

    runner.source = HeldByTheCache(PROFILES["sata-2x7k"])
    result = runner.run()
    view = _run_view(qtbot, config)
    for event in events:
        if isinstance(event, IntervalEvent):
            view.on_event(event)
    shown = view.criteria["cache_hits"]
    assert shown.text().startswith("✗ ") and "Database cache hits: 99.95" in shown.text() and "(≤ 99.0 %)" in shown.text()
    assert [c.passed for c in result.criteria if c.name == CACHE_HIT_CRITERION] == [False] * config.database_count
