"""Jetwise's engine against fio on the same file with the same pattern.

32 KiB random reads, unbuffered (O_DIRECT), synchronous, N threads. fio and Jetwise
runs alternate and repeat, and the medians are compared, because a virtual disk's
throughput drifts by several percent from one run to the next.

    python bench/fio_compare.py [--dir DIR] [--size-mb 1024] [--seconds 5] [--repeats 3] [--threads 1 4 16]

Prints, per thread count, the IOPS ratio Jetwise/fio (target >= 0.97) and the mean
latency ratio Jetwise/fio (target <= 1.05).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.config import PAGE_SIZE_BYTES, DatabaseSource, TestConfig  # noqa: E402
from engine.files import database_file_path, prepare_database  # noqa: E402
from engine.platform import default_backend  # noqa: E402
from engine.runner import Runner  # noqa: E402


def run_fio(path: Path, threads: int, seconds: float, file_bytes: int) -> tuple[float, float]:
    """(IOPS, mean latency ms) of fio on pages 1.. of the database file."""
    command = [
        "fio", "--name=jetwise-compare", f"--filename={path}", "--rw=randread", "--bs=32k", "--direct=1",
        "--ioengine=psync", "--thread", f"--numjobs={threads}", "--group_reporting", "--time_based",
        f"--runtime={seconds}", f"--offset={PAGE_SIZE_BYTES}", f"--size={file_bytes - PAGE_SIZE_BYTES}",
        "--randrepeat=0", "--output-format=json",
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    read = json.loads(done.stdout)["jobs"][0]["read"]
    return float(read["iops"]), float(read["lat_ns"]["mean"]) / 1e6


def run_jetwise(folder: Path, threads: int, seconds: float, out: Path) -> tuple[float, float]:
    """(IOPS, mean latency ms) of Jetwise's engine, all reads, attached to the same file."""
    config = TestConfig.model_validate(
        {
            "databases": [{"database_path": str(folder), "log_path": str(folder / "logs")}],
            "thread_count": threads,
            "database_source": "attach",
            "duration_s": seconds,
            "warmup_s": 1.0,
            "operation_mix": {"insert_percent": 0, "delete_percent": 0, "replace_percent": 0, "read_percent": 100},
            "profile": {"mailboxes": 1, "iops_per_mailbox": 0.1, "mailbox_size_mb": 1},
        }
    )
    result = Runner(config, out, lambda _event: None).run()
    summary = result["summary"]
    return float(summary["db_reads_per_s"]), float(summary["db_read_avg_latency_ms"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", type=Path, default=None, help="folder on the disk to test (default: a scratch folder here)")
    parser.add_argument("--size-mb", type=int, default=1024)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--json", type=Path, default=None, help="also write the figures to this file")
    args = parser.parse_args()
    if shutil.which("fio") is None:
        print("fio is not installed (apt-get install fio)", file=sys.stderr)
        return 2
    scratch = Path(tempfile.mkdtemp(prefix="jetwise-bench-", dir=args.dir or Path.cwd()))
    try:
        folder = scratch / "db"
        folder.mkdir()
        (folder / "logs").mkdir()
        path = database_file_path(folder, 0)
        pages = args.size_mb * 1024 * 1024 // PAGE_SIZE_BYTES
        backend = default_backend()
        prepare_database(backend, path, pages, DatabaseSource.CREATE, unbuffered=backend.probe_unbuffered(folder).supported)
        rows = []
        print(f"file {path} ({args.size_mb} MB), {args.seconds:g} s per run, {args.repeats} alternating repeats")
        print(f"{'threads':>7} {'fio IOPS':>10} {'Jetwise IOPS':>12} {'IOPS ratio':>10} {'fio ms':>8} {'Jetwise ms':>10} {'lat ratio':>9}")
        for threads in args.threads:
            fio_runs, jw_runs = [], []
            for repeat in range(args.repeats):
                fio_runs.append(run_fio(path, threads, args.seconds, pages * PAGE_SIZE_BYTES))
                jw_runs.append(run_jetwise(folder, threads, args.seconds, scratch / f"run-{threads}-{repeat}"))
            fio_iops = statistics.median(r[0] for r in fio_runs)
            fio_ms = statistics.median(r[1] for r in fio_runs)
            jw_iops = statistics.median(r[0] for r in jw_runs)
            jw_ms = statistics.median(r[1] for r in jw_runs)
            row = {
                "threads": threads, "fio_iops": fio_iops, "jetwise_iops": jw_iops, "iops_ratio": jw_iops / fio_iops,
                "fio_mean_latency_ms": fio_ms, "jetwise_mean_latency_ms": jw_ms, "latency_ratio": jw_ms / fio_ms,
            }
            rows.append(row)
            print(
                f"{threads:>7} {fio_iops:>10,.0f} {jw_iops:>12,.0f} {row['iops_ratio']:>10.3f} "
                f"{fio_ms:>8.3f} {jw_ms:>10.3f} {row['latency_ratio']:>9.3f}",
                flush=True,
            )
        verdict = all(r["iops_ratio"] >= 0.97 and r["latency_ratio"] <= 1.05 for r in rows)
        print(f"target (IOPS ratio >= 0.97, latency ratio <= 1.05 at every thread count): {'met' if verdict else 'NOT met'}")
        if args.json:
            args.json.write_text(json.dumps(rows, indent=2) + "\n")
        return 0
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
