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
