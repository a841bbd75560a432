"""Steady-state detection for calibration runs, on made-up sample series."""

from __future__ import annotations

import pytest

from engine.run.settling import MeasureWindow, SettleRule, drift


def test_drift_is_the_trend_across_the_window_relative_to_the_mean():
    assert drift([10.0] * 10) == 0.0
    assert drift([10.0, 11.0, 12.0, 13.0]) == pytest.approx(3 / 11.5)
    assert drift([5.0, 15.0, 5.0, 15.0, 5.0]) == 0.0  # noisy but flat


def test_the_window_waits_for_the_latency_ramp_to_flatten():
    window = MeasureWindow(warmup_intervals=3, measure_intervals=100, settle=SettleRule(window=5, max_drift=0.05, measure_samples=10))
    ramp = [2.0, 4.0, 6.0, 8.0, 9.0, 9.5, 9.8, 9.9, 10.0, 10.0, 10.0, 10.0, 10.0]
    started = None
    for index, latency in enumerate(ramp):
        if window.observe(index, latency, 1000.0) is not None:
            started = index + 1
            break
    assert started == 10  # 9.5, 9.8, 9.9, 10.0, 10.0: the first five whose trend is under 5 %
    assert (window.warmup_intervals, window.total_intervals) == (10, 20)


def test_a_run_that_never_settles_is_judged_on_its_last_samples():
    window = MeasureWindow(warmup_intervals=0, measure_intervals=30, settle=SettleRule(window=5, max_drift=0.01, measure_samples=10))
    message = None
    for index in range(30):
        message = window.observe(index, float(index + 1), 100.0)  # ever rising latency
        if message:
            break
    assert message is not None and "did not settle" in message
    assert (window.warmup_intervals, window.total_intervals) == (20, 30)


def test_a_fixed_window_never_moves():
    window = MeasureWindow(warmup_intervals=5, measure_intervals=10)
    assert window.observe(0, 1.0, 1.0) is None and (window.warmup_intervals, window.total_intervals) == (5, 15)
