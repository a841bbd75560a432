"""What one Jetwise thread carries against one Jetstress thread of the ESRP paper.

The reference is Jetstress itself, as the paper measured it (`esrp-zfs7320-jetstress-reports.txt`,
12 databases, 13 threads each, 156 in all):

| report | database read latency | transfers per thread per second | share of a thread's time waiting on reads |
|---|--:|--:|--:|
| Performance | 17.16 ms | 37.4 | 0.386 |
| Stress | 16.72 ms | 39.0 | 0.392 |
| Soft Recovery (its log generation) | 15.00 ms | 37.9 | 0.340 |

Two measurements, each with Jetwise's default thread weight (Jetstress's) and with `reads-only` (the
thread of results before schema 10), so the table shows what the weight changes:

1. **The simulated device at the paper's latencies.** The paper's configuration (12 databases of
   10,000 one-GB mailboxes, 156 threads, 2 copies, maintenance on) on a storage model whose reads take
   each report's latency. Transfers per thread per second are compared with the paper's, and the databases'
   growth per transfer is shown beside the paper's 290 bytes.
2. **Real files on a slow disk.** One database on this machine's disk behind a queue that serves each
   database I/O in turn for `--service-ms` (tests/faults/slow_device.py), so reads queue and take
   about the paper's latency; and the same on the plain disk. Each thread's share of time waiting on
   reads (database reads per second per thread × their average latency) is compared with the paper's
   0.386. POSIX only (the slow device queues with flock).

Targets: within ±15 % of the paper for the default weight.

    python bench/thread_weight.py [--dir DIR] [--service-ms 8] [--threads 4] [--seconds 60] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.model.config import TestConfig, ThreadWeight, default_config
from engine.results.figures import database_bytes
from engine.results.schema import RunResult
from engine.run.runner import Runner
from engine.run.sources.model import StorageModel, runner_for

PAPER = {  # report: (database read latency ms, transfers per thread per second, share waiting on reads)
    "Performance": (17.16, 37.4, 0.386),
    "Stress": (16.72, 39.0, 0.392),
    "Soft Recovery": (15.00, 37.9, 0.340),
}
PAPER_SHARE = PAPER["Performance"][2]


def paper_at(read_ms: float) -> float:
    """Transfers per thread per second a Jetstress thread carries at `read_ms`, scaled from the Performance report
    (its time besides reads grows with the latency: engine/workload/pacing.py)."""
    latency, transfers, _share = PAPER["Performance"]
    return transfers * latency / read_ms
TOLERANCE = 0.15
WEIGHTS = (ThreadWeight.JETSTRESS, ThreadWeight.READS_ONLY)


def _per_thread(result: RunResult) -> tuple[float, float, float]:
    """(transfers per thread per second, database read latency ms, share of a thread's time waiting on reads)."""
    summary = result.summary
    threads = summary.threads
    share = summary.db_reads_per_s / threads * summary.db_read_avg_latency_ms / 1000.0
    return summary.achieved_transactional_iops / threads, summary.db_read_avg_latency_ms, share


def grown_per_transfer(result: RunResult) -> float:
    """Bytes the databases grew by per database transfer, over the whole run (its warm-up too)."""
    initial, final = database_bytes(result)
    config = result.configuration
    transfers = result.summary.achieved_transactional_iops * (config.duration_s + config.warmup_s)
    return (final - initial) / transfers if initial is not None and final is not None and transfers else 0.0


def simulated(folder: Path, latency_ms: float, weight: ThreadWeight) -> tuple[float, float, float, float]:
    """The paper's configuration on a device whose reads take `latency_ms` (many servers: no queueing); with the
    databases' growth per transfer (the paper's Performance run: 290 bytes)."""
    model = StorageModel("paper", f"reads at {latency_ms} ms", 2000, latency_ms, 0.0, 0.87, logs_share_servers=False)
    config = default_config(folder, databases=12, copies_per_database=2, seed=7,
                            profile={"mailboxes": 10000, "mailbox_size_mb": 1024, "iops_per_mailbox": 0.5})
    config = config.model_copy(update={"thread_count": 156, "thread_weight": weight, "duration_s": 600.0, "warmup_s": 60.0})
    result = runner_for(model, config, folder / f"sim-{latency_ms}-{weight.value}", lambda _e: None).run()
    return (*_per_thread(result), grown_per_transfer(result))


def on_disk(folder: Path, threads: int, seconds: float, weight: ThreadWeight, service_ms: float | None) -> tuple[float, float, float]:
    """One database on real files, on the plain disk or behind the slow device's queue."""
    for name in ("DB1", "Log1"):
        (folder / name).mkdir(parents=True, exist_ok=True)
    # 2 GB of database against a 16 MB cache: nearly every transaction reads, as in the paper (3.4 TB in 2.9 GB).
    config = default_config(folder, databases=1, background_maintenance=False, seed=3, database_size_mb=2048,
                            database_cache_min_mb=8, database_cache_max_mb=16,
                            profile={"mailboxes": 100, "mailbox_size_mb": 1, "iops_per_mailbox": 1.0})
    config = TestConfig.model_validate(config.model_dump() | {
        "thread_count": threads, "thread_weight": weight, "duration_s": seconds, "warmup_s": 10.0})
    backend = None
    if service_ms is not None:
        from tests.faults.slow_device import SlowDevice

        backend = SlowDevice(folder / "spindle.lock", service_ms)
    out = folder / f"run-{weight.value}-{service_ms}"
    return _per_thread(Runner(config, out, lambda _e: None, backend=backend).run())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", type=Path, default=None, help="where the database goes (default: a temporary folder)")
    parser.add_argument("--service-ms", type=float, default=8.0, help="the slow disk's service time per database I/O")
    parser.add_argument("--threads", type=int, default=4, help="threads on the one database on disk")
    parser.add_argument("--seconds", type=float, default=60.0, help="measured seconds of each run on disk")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="jetwise-weight-", dir=args.dir))
    rows: list[dict[str, Any]] = []
    try:
        print("Simulated device at the paper's latencies (156 threads on 12 databases):")
        print(f"{'report':<15}{'weight':<12}{'read ms':>9}{'transfers/thread/s':>20}{'paper':>8}{'ratio':>8}{'share':>8}"
              f"{'growth B/transfer':>19}")
        for report, (latency, transfers, _share) in PAPER.items():
            for weight in WEIGHTS:
                per, read_ms, share, grown = simulated(work, latency, weight)
                ratio = per / transfers
                rows.append({"measure": "simulated", "report": report, "weight": weight.value, "read_ms": read_ms,
                             "transfers_per_thread": per, "paper": transfers, "ratio": ratio, "share": share,
                             "growth_bytes_per_transfer": grown})
                print(f"{report:<15}{weight.value:<12}{read_ms:>9.2f}{per:>20.1f}{transfers:>8.1f}{ratio:>8.3f}{share:>8.3f}"
                      f"{grown:>19.0f}")
        print(f"\nReal files, one database, {args.threads} threads, {args.seconds:g} s measured:")
        print(f"{'disk':<28}{'weight':<12}{'read ms':>9}{'transfers/thread/s':>20}{'paper at it':>12}{'share':>8}"
              f"{'paper':>8}{'ratio':>8}")
        for service in (args.service_ms, None):
            disk = f"slow, {service:g} ms per I/O" if service is not None else "plain"
            for weight in WEIGHTS:
                per, read_ms, share = on_disk(work / disk.split(",")[0], args.threads, args.seconds, weight, service)
                ratio = share / PAPER_SHARE
                rows.append({"measure": "disk", "disk": disk, "weight": weight.value, "read_ms": read_ms,
                             "transfers_per_thread": per, "paper_at_latency": paper_at(read_ms), "share": share,
                             "paper": PAPER_SHARE, "ratio": ratio})
                print(f"{disk:<28}{weight.value:<12}{read_ms:>9.2f}{per:>20.1f}{paper_at(read_ms):>12.1f}{share:>8.3f}"
                      f"{PAPER_SHARE:>8.3f}{ratio:>8.3f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    judged = [r for r in rows if r["weight"] == ThreadWeight.JETSTRESS.value
              and (r["measure"] == "simulated" or r["disk"].startswith("slow"))]
    ok = all(abs(r["ratio"] - 1) <= TOLERANCE for r in judged)
    print(f"\nJetstress weight within ±{TOLERANCE:.0%} of the paper: {'yes' if ok else 'NO'}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
