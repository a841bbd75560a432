"""Render time of the report of a 24-hour run: 86,400 one-second samples, 12 instances.

    QT_QPA_PLATFORM=offscreen python bench/report_render.py [--samples 86400] [--instances 12]

Builds a synthetic run of that size in memory (result document, samples, a test log
of 2,000 lines), then times rendering the HTML report and the PDF report. The
reference is poppler's pdftoppm rasterising the same PDF at 100 dpi, measured in the
same run. Target: HTML and PDF together under 5 s.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.results.counters import Counters, StreamCounters
from engine.results.host_schema import HostFigures
from engine.results.sample_read import SampleList
from engine.results.sample_schema import IntervalSample
from reporting.bundle import RunBundle
from reporting.document import render_html
from tests.engine.test_report import known_result


def synthetic_bundle(samples: int, instances: int, folder: Path) -> RunBundle:
    result = known_result(folder)
    rows = result.instances
    result.instances = [rows[i % len(rows)].model_copy(update={"name": f"Instance {i + 1}"}) for i in range(instances)]
    rng = np.random.default_rng(3)
    iops = 5000 + 300 * rng.standard_normal(samples)
    reads = 12 + 2 * rng.standard_normal(samples)
    logs = 1 + 0.2 * rng.standard_normal(samples)
    shared = {f"Instance {i + 1}": Counters() for i in range(instances)}  # the report reads the server's counters
    host = HostFigures(cpu_percent=30.0, available_memory_mb=27_000.0)
    data = [
        IntervalSample(interval=i, phase="measure", time_utc="", elapsed_s=float(i + 1), duration_s=1.0, host=host,
                       server=Counters(streams={
                           "db_read": StreamCounters(count=int(iops[i]), sum_ns=int(iops[i] * reads[i] * 1e6)),
                           "log_write": StreamCounters(count=1000, sum_ns=int(1000 * logs[i] * 1e6))}),
                       instances=shared)
        for i in range(samples)
    ]
    log = [f"2026-11-21 10:{i // 60 % 60:02d}:{i % 60:02d} -- line {i}" for i in range(2000)]
    return RunBundle(result, SampleList(data), log, folder)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=86_400)
    parser.add_argument("--instances", type=int, default=12)
    args = parser.parse_args()
    from app.window import ensure_gui_application
    from ui.printing import write_pdf

    ensure_gui_application()
    folder = Path(tempfile.mkdtemp(prefix="jetwise-report-bench-"))
    try:
        bundle = synthetic_bundle(args.samples, args.instances, folder)
        start = time.perf_counter()
        html = render_html(bundle)
        html_s = time.perf_counter() - start
        (folder / "report.html").write_text(html, encoding="utf-8")
        start = time.perf_counter()
        pages = write_pdf(bundle, folder / "report.pdf")
        pdf_s = time.perf_counter() - start
        print(f"{args.samples:,} samples, {args.instances} instances: HTML {len(html) / 1e6:.2f} MB, PDF {pages} pages "
              f"({(folder / 'report.pdf').stat().st_size / 1e6:.2f} MB)")
        print(f"HTML render: {html_s:6.2f} s")
        print(f"PDF render:  {pdf_s:6.2f} s")
        print(f"together:    {html_s + pdf_s:6.2f} s (target < 5 s: {'met' if html_s + pdf_s < 5 else 'NOT met'})")
        if shutil.which("pdftoppm"):
            start = time.perf_counter()
            subprocess.run(["pdftoppm", "-r", "100", "-png", str(folder / "report.pdf"), str(folder / "page")], check=True)
            poppler_s = time.perf_counter() - start
            print(f"pdftoppm rasterising the same PDF at 100 dpi: {poppler_s:6.2f} s; ratio Jetwise PDF / pdftoppm: "
                  f"{pdf_s / poppler_s:.2f}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
