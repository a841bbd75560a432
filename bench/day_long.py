"""A simulated day-long Stress test on 12 and 48 databases: what its samples cost in disk, memory and time.

    python bench/day_long.py [--hours 24] [--databases 12 48] [--base REV] [--base-hours 1] [--json FILE]

For each database count, in fresh processes with a store of their own:
- the run: `jetwise run --simulate sas-8x10k` of a Stress test that long (no warm-up, two threads per
  database): wall time and peak memory (the process's maximum resident set, from wait4);
- bytes written per hour of test: every file of the run folder and what the store grew by;
- the report: `jetwise report RUN --html --pdf`, wall time and peak memory;
- the window replaying it: the live plots fed every sample with every instance's figures each second (as a
  live run feeds them, per-instance curves shown), then one redraw: peak memory and redraw time.
The same run and report on `--base` (a git revision, default HEAD~1), checked out beside with `git worktree`,
at `--base-hours` (an older simulation is slow) and 12 databases, scaled per hour, are the reference
measured in the same run. The anchor is Jetstress's own performance log: counters every 15 s, a few MB a day.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROFILE = "sas-8x10k"

REPLAY = """
import resource, sys, time
from pathlib import Path
from PySide6.QtWidgets import QApplication
app = QApplication(["replay"])
from engine.results.document import read_samples
from ui.widgets.plots import LivePlots
plots = LivePlots()
plots.per_instance.setChecked(True)
redraw = plots.refresh
plots.refresh = lambda: None  # fed as fast as it reads; drawn once at the end, as the window draws after a sample
rows = []
for sample in read_samples(Path(sys.argv[1])):
    rows = sample.instance_figures() or rows  # each instance every second, as a live run sends them
    plots.add_sample(sample.elapsed_s, sample.summary, rows)
start = time.perf_counter()
redraw()
print(time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def _measured(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, str]:
    """Wall seconds, peak resident MB and stdout of a process."""
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert process.stdout is not None
    out = process.stdout.read()
    _pid, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"{' '.join(command)} ended with {os.waitstatus_to_exitcode(status)}")
    return wall, usage.ru_maxrss / 1024, out


def _size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) if path.is_dir() else (path.stat().st_size if path.exists() else 0)


def measure(code: Path, hours: float, databases: int, work: Path, *, replay: bool) -> dict[str, float]:
    work.mkdir(parents=True)
    env = dict(os.environ, JETWISE_DATA_DIR=str(work / "store"), QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(code))
    python = [sys.executable, "-m", "app"]
    config = work / "day.json"
    subprocess.run([*python, "init", "--databases", str(databases), "--db-path", str(work / "db"), "--log-path",
                    str(work / "log"), "--type", "stress", "--duration", f"{hours * 3600:.0f}s", "--warmup", "0s",
                    "--threads", str(2 * databases), str(config)], cwd=code, env=env, check=True, capture_output=True)
    store_before = _size(work / "store")
    run_s, run_mb, _ = _measured([*python, "run", str(config), "--simulate", PROFILE, "--output", str(work / "run")],
                                 code, env)
    written = _size(work / "run") + _size(work / "store") - store_before
    report_s, report_mb, _ = _measured([*python, "report", str(work / "run"), "--html", str(work / "r.html"), "--pdf",
                                        str(work / "r.pdf")], code, env)
    figures = {"hours": hours, "databases": databases, "run_s": run_s, "run_mb": run_mb,
               "written_mb_per_h": written / 1e6 / hours, "samples_mb": _size(work / "run" / "samples.sqlite") / 1e6,
               "report_s": report_s, "report_mb": report_mb}
    if replay:
        _wall, replay_mb, out = _measured([sys.executable, "-c", REPLAY, str(work / "run")], code, env)
        figures["redraw_s"] = float(out.split()[0])
        figures["window_mb"] = replay_mb
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hours", type=float, default=24.0)
    parser.add_argument("--databases", type=int, nargs="+", default=[12, 48])
    parser.add_argument("--base", default="HEAD~1", help="the revision to compare with ('' for none)")
    parser.add_argument("--base-hours", type=float, default=1.0)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="jetwise-day-"))
    rows = []
    try:
        if args.base:
            base = work / "base"
            subprocess.run(["git", "worktree", "add", "--detach", str(base), args.base], cwd=ROOT, check=True,
                           capture_output=True)
            try:
                rows.append({"code": args.base, **measure(base, args.base_hours, 12, work / "base-12", replay=False)})
            finally:
                subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT, capture_output=True)
        for databases in args.databases:
            rows.append({"code": "this", **measure(ROOT, args.hours, databases, work / f"this-{databases}", replay=True)})
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{'code':<8} {'hours':>5} {'DBs':>4} {'run s':>7} {'run MB':>7} {'MB/h written':>12} {'samples MB':>10} "
          f"{'report s':>8} {'report MB':>9} {'window MB':>9} {'redraw s':>8}")
    for row in rows:
        print(f"{row['code']:<8} {row['hours']:>5g} {row['databases']:>4} {row['run_s']:>7.1f} {row['run_mb']:>7.0f} "
              f"{row['written_mb_per_h']:>12.2f} {row['samples_mb']:>10.1f} {row['report_s']:>8.1f} {row['report_mb']:>9.0f} "
              f"{row.get('window_mb', float('nan')):>9.0f} {row.get('redraw_s', float('nan')):>8.2f}")
    if args.base and len(rows) > 1:
        base, this = rows[0], rows[1]
        print(f"per hour of 12 databases, this / {args.base}: bytes written {this['written_mb_per_h'] / base['written_mb_per_h']:.3f}, "
              f"simulated run time {this['run_s'] / this['hours'] / (base['run_s'] / base['hours']):.3f}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
