"""Redraw time of the live plots holding a 24-hour run of one-second samples.

    QT_QPA_PLATFORM=offscreen python bench/plot_redraw.py [--samples 86400] [--instances 12] [--repeats 15]

Fills Jetwise's LivePlots (peak downsampling, clip to view) with the samples, then
times a full redraw of the widget (a new sample appended, the curves updated, the
widget painted into a pixmap). The reference is plain pyqtgraph plotting the same
arrays with neither downsampling nor clipping, measured in the same run. Prints the
median redraw times and the ratio. Target: Jetwise's redraw under 50 ms.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtWidgets import QApplication


def synthetic(samples: int, instances: int) -> tuple[np.ndarray, dict[str, np.ndarray], list[dict[str, np.ndarray]]]:
    rng = np.random.default_rng(7)
    minutes = np.arange(samples, dtype=float)  # seconds, as the run view plots them
    summary = {
        "transactional_iops": 5000 + 300 * rng.standard_normal(samples),
        "db_read_avg_latency_ms": 12 + 2 * rng.standard_normal(samples) + (rng.random(samples) > 0.999) * 60,
        "log_write_avg_latency_ms": 1 + 0.2 * rng.standard_normal(samples),
    }
    rows = [
        {
            "transactional_iops": summary["transactional_iops"] / instances,
            "db_read_avg_latency_ms": summary["db_read_avg_latency_ms"] + rng.standard_normal(samples),
        }
        for _ in range(instances)
    ]
    return minutes, summary, rows


def time_redraws(redraw, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        redraw()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=86_400)
    parser.add_argument("--instances", type=int, default=12)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--per-instance", action="store_true", help="also show one curve pair per instance")
    args = parser.parse_args()
    app = QApplication.instance() or QApplication([])
    import pyqtgraph as pg

    from ui.widgets.plots import LivePlots, Series

    minutes, summary, rows = synthetic(args.samples, args.instances)
    plots = LivePlots()
    plots.resize(1100, 600)
    plots.reset(target=5000, read_limit=20, log_limit=10)
    plots.iops.extend(minutes, summary["transactional_iops"])
    plots.read.extend(minutes, summary["db_read_avg_latency_ms"])
    plots.log.extend(minutes, summary["log_write_avg_latency_ms"])
    for index, row in enumerate(rows):
        name = f"Instance {index + 1}"
        plots.instance_iops[name] = Series()
        plots.instance_iops[name].extend(minutes, row["transactional_iops"])
        plots.instance_read[name] = Series()
        plots.instance_read[name].extend(minutes, row["db_read_avg_latency_ms"])
    plots.per_instance.setChecked(args.per_instance)
    plots.show()
    app.processEvents()
    extra = [float(args.samples)]

    def jetwise_redraw() -> None:
        extra[0] += 1.0
        plots.iops.append(extra[0], 5000.0)
        plots.read.append(extra[0], 12.0)
        plots.log.append(extra[0], 1.0)
        plots.refresh()
        plots.grab()

    from PySide6.QtWidgets import QVBoxLayout, QWidget

    naive = QWidget()
    naive.resize(1100, 600)
    column = QVBoxLayout(naive)
    top_widget, bottom_widget = pg.PlotWidget(), pg.PlotWidget()
    column.addWidget(top_widget)
    column.addWidget(bottom_widget)
    top, bottom = top_widget.getPlotItem(), bottom_widget.getPlotItem()
    curves = [top.plot(minutes, summary["transactional_iops"]), bottom.plot(minutes, summary["db_read_avg_latency_ms"]),
              bottom.plot(minutes, summary["log_write_avg_latency_ms"])]
    for row in rows if args.per_instance else []:
        curves.append(top.plot(minutes, row["transactional_iops"]))
        curves.append(bottom.plot(minutes, row["db_read_avg_latency_ms"]))
    naive.show()
    app.processEvents()
    data = [(minutes, summary["transactional_iops"]), (minutes, summary["db_read_avg_latency_ms"]),
            (minutes, summary["log_write_avg_latency_ms"])]
    for row in rows if args.per_instance else []:
        data += [(minutes, row["transactional_iops"]), (minutes, row["db_read_avg_latency_ms"])]

    def naive_redraw() -> None:
        for curve, (x, y) in zip(curves, data, strict=False):
            curve.setData(x, y)
        naive.grab()

    jetwise_ms = time_redraws(jetwise_redraw, args.repeats)
    naive_ms = time_redraws(naive_redraw, max(3, args.repeats // 3))
    series = 3 + (2 * args.instances if args.per_instance else 0)
    shown = f"{args.instances} instances shown" if args.per_instance else "server totals"
    print(f"{args.samples:,} samples x {series} series ({shown}), {args.repeats} redraws")
    print(f"Jetwise live plots: {jetwise_ms:8.1f} ms per redraw (median)")
    print(f"plain pyqtgraph:    {naive_ms:8.1f} ms per redraw (median, no downsampling, no clipping)")
    print(f"ratio Jetwise / plain: {jetwise_ms / naive_ms:.3f}")
    print(f"target (< 50 ms): {'met' if jetwise_ms < 50 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
