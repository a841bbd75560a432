"""The live plots keep every spike when they reduce a long run, and show every sample when zoomed."""

from __future__ import annotations

import numpy as np

from ui.widgets.plots import MAX_POINTS, LivePlots, envelope


def test_the_envelope_keeps_each_buckets_minimum_and_maximum():
    x = np.arange(100_000, dtype=float)
    y = np.zeros(100_000)
    y[54_321] = 500.0  # one spike in a day of samples
    y[77_777] = -3.0
    xs, ys = envelope(x, y, 1000)
    assert len(xs) <= 1000 + 100 and ys.max() == 500.0 and ys.min() == -3.0
    assert np.all(np.diff(xs) >= 0)
    small_x, _small_y = envelope(x[:10], y[:10], 1000)
    assert len(small_x) == 10  # short series are passed through as they are


def test_a_day_of_samples_is_drawn_reduced_and_zooming_shows_every_sample(qtbot):
    plots = LivePlots()
    qtbot.addWidget(plots)
    plots.reset(target=100.0)
    for second in range(86_400 // 10):  # a day at 10 s intervals
        plots.iops.append(second * 10.0, 100.0 + (second % 7))
        plots.read.append(second * 10.0, 5.0)
        plots.log.append(second * 10.0, 1.0)
    plots.refresh()
    x, _y = plots.iops_curve.getData()
    assert len(x) <= MAX_POINTS + 10
    box = plots.iops_plot.getPlotItem().getViewBox()
    box.setXRange(6000.0, 6600.0, padding=0)  # ten minutes: sixty samples
    x, y = plots.iops_curve.getData()
    assert 55 <= len(x) <= 70 and set(np.round(y).astype(int)) <= set(range(100, 107))


def test_no_negative_axis_no_repeated_ticks_and_an_interval_without_reads_is_a_gap(qtbot):
    """The IOPS axis used to reach −100, the time axis to repeat "0:00:01" before data came, and an interval that
    read nothing to draw a 0 ms read latency the storage never gave."""
    from engine.results.sample_schema import Figures
    from ui.widgets.plots import ElapsedAxis

    plots = LivePlots()
    qtbot.addWidget(plots)
    plots.reset(target=100.0)
    plots.show()
    box = plots.iops_plot.getPlotItem().getViewBox()
    # before any sample: from zero to the target, not a sliver around the target
    qtbot.waitUntil(lambda: box.viewRange()[1][0] <= 0 and box.viewRange()[1][1] >= 100, timeout=2000)
    labels = ElapsedAxis(orientation="bottom").tickStrings([0.5, 1.0, 1.5, 2.0], 1.0, 1.0)
    assert len(set(labels)) == len(labels)
    for second in range(1, 11):
        reads = 0.0 if second in (4, 5) else 50.0
        plots.add_sample(float(second), Figures(transactional_iops=80.0, db_reads_per_s=reads,
                                                db_read_avg_latency_ms=6.0 if reads else 0.0,
                                                log_writes_per_s=20.0, log_write_avg_latency_ms=1.0), [])
    for plot in (plots.iops_plot, plots.latency_plot):
        (x_low, _x_high), (y_low, _y_high) = plot.getPlotItem().getViewBox().viewRange()
        assert x_low >= 0 and y_low >= 0
    _x, y = plots.read_curve.getData()
    assert np.isnan(y[3]) and np.isnan(y[4]) and np.count_nonzero(np.isnan(y)) == 2 and np.nanmin(y) == 6.0
