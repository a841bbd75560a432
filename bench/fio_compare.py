"""Jetwise's engine against fio on the same file, N threads, unbuffered (O_DIRECT).

Two workloads:

- `reads`: 32 KiB random reads, synchronous; fio `randread` vs Jetwise with a 100 %
  read mix. Targets: IOPS ratio >= 0.97, mean latency ratio <= 1.05.
- `model`: the full ESE model (Jetstress mix 40/20/5/35, 70 % lazy commits, database
  cache, flushers, log) vs fio `randrw` at 60 % reads, 32 KiB. The ratio compares
  Jetwise's database transfers plus log writes per second with fio's IOPS. Target:
  >= 0.90 (the model's bookkeeping must not cost the disk its throughput).

fio and Jetwise runs alternate and repeat, and the medians are compared, because a
virtual disk's throughput drifts by several percent from one run to the next.

    python bench/fio_compare.py [--workload reads model] [--dir DIR] [--databases 2]
                                [--size-mb 1024] [--seconds 5] [--repeats 3] [--threads 1 4 16]

Jetwise runs one worker process per database, as many as there are cores; fio gets the
same number of files with the same total size. With fewer threads than databases, the
run uses one database per thread. With `--one-instance`, the files are one instance's database
files (Jetstress's DatabasePaths: `more_database_paths`), driven by one worker process through
`engine.io.parts`; compare it with `--databases 1` to see what the routing costs.
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

from engine.io.file_names import database_file_path
from engine.io.files import prepare_database
from engine.io.platform import default_backend
from engine.model.config import DatabaseSource, TestConfig
from engine.model.sizing import PAGE_SIZE_BYTES
from engine.run.runner import Runner


def run_fio(paths: list[Path], threads: int, seconds: float, file_bytes: int, workload: str) -> tuple[float, float]:
    """(IOPS, mean read latency ms) of fio over pages 1.. of the given files."""
    pattern = ["--rw=randread"] if workload == "reads" else ["--rw=randrw", "--rwmixread=60"]
    command = [
        "fio", "--name=jetwise-compare", "--filename=" + ":".join(str(p) for p in paths), *pattern, "--bs=32k",
        "--direct=1", "--ioengine=psync", "--thread", f"--numjobs={threads}", "--group_reporting", "--time_based",
        f"--runtime={seconds}", f"--offset={PAGE_SIZE_BYTES}", f"--size={len(paths) * (file_bytes - PAGE_SIZE_BYTES)}",
        "--randrepeat=0", "--output-format=json",
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    job = json.loads(done.stdout)["jobs"][0]
    iops = float(job["read"]["iops"]) + float(job["write"]["iops"])
    return iops, float(job["read"]["lat_ns"]["mean"]) / 1e6


ALL_READS = {"insert_percent": 0, "delete_percent": 0, "replace_percent": 0, "read_percent": 100}


def run_jetwise(
    folders: list[Path], threads: int, seconds: float, out: Path, workload: str, *, verify: bool = True,
    one_instance: bool = False,
) -> tuple[float, float]:
    """(IOPS, mean read latency ms) of Jetwise's engine attached to the database files.

    A 32 MB cache per database keeps about 97 % of leaf reads going to the disk, as on
    a full-size database; maintenance is off (it is paced, not a load). Threads wait on their I/O
    only (`thread_weight: reads-only`), as fio's jobs do: this measures the engine's I/O path, not
    what a Jetstress thread spends besides its I/O (bench/thread_weight.py).
    """
    databases: list[dict[str, object]] = [{"database_path": str(f), "log_path": str(f / "logs")} for f in folders]
    if one_instance:
        databases = [{**databases[0], "more_database_paths": [str(f) for f in folders[1:]]}]
    config = TestConfig.model_validate(
        {
            "databases": databases,
            "thread_count": max(threads, len(databases)),
            "thread_weight": "reads-only",
            "database_source": "attach",
            "duration_s": seconds,
            "warmup_s": 1.0,
            "background_maintenance": False,
            "verify_checksum": verify,
            "database_cache_min_mb": 16 * len(folders),
            "database_cache_max_mb": 32 * len(folders),  # the server's, shared: 32 MB each
            **({"operation_mix": ALL_READS} if workload == "reads" else {}),
            "profile": {"mailboxes": 1, "iops_per_mailbox": 0.1, "mailbox_size_mb": 1},
        }
    )
    summary = Runner(config, out, lambda _event: None).run().summary
    iops = summary.db_reads_per_s
    if workload == "model":
        iops += summary.db_writes_per_s + summary.log_writes_per_s
    return iops, summary.db_read_avg_latency_ms


TARGETS = {"reads": (0.97, 1.05), "model": (0.90, None)}
DESCRIPTIONS = {
    "reads": "fio randread 32k vs Jetwise 100 % reads (IOPS: reads/s)",
    "model": "fio randrw 60 % reads 32k vs the ESE model (IOPS: DB reads + DB writes + log writes per s)",
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", type=Path, default=None, help="folder on the disk to test (default: a scratch folder here)")
    parser.add_argument("--databases", type=int, default=2, help="database files, one worker process each (default 2)")
    parser.add_argument("--size-mb", type=int, default=1024, help="size of each database file")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--workload", choices=["reads", "model"], nargs="+", default=["reads", "model"])
    parser.add_argument("--json", type=Path, default=None, help="also write the figures to this file")
    parser.add_argument("--one-instance", action="store_true",
                        help="the files are one instance's database files, in one worker process")
    parser.add_argument("--checksum-cost", action="store_true",
                        help="also run Jetwise without page checksum verification, interleaved, to show what it costs")
    args = parser.parse_args()
    if shutil.which("fio") is None:
        print("fio is not installed (apt-get install fio)", file=sys.stderr)
        return 2
    scratch = Path(tempfile.mkdtemp(prefix="jetwise-bench-", dir=args.dir or Path.cwd()))
    try:
        pages = args.size_mb * 1024 * 1024 // PAGE_SIZE_BYTES
        backend = default_backend()
        folders: list[Path] = []
        first = None
        for index in range(args.databases):
            folder = scratch / f"DB{index + 1}"
            (folder / "logs").mkdir(parents=True)
            unbuffered = backend.probe_unbuffered(folder).supported
            if args.one_instance:  # instance 1's files, the first's id on each
                made = prepare_database(backend, database_file_path(folder, 0, index), pages, DatabaseSource.CREATE,
                                        unbuffered=unbuffered, first=first if index else None, part=index)
                first = made if index == 0 else first
            else:
                prepare_database(backend, database_file_path(folder, index), pages, DatabaseSource.CREATE, unbuffered=unbuffered)
            folders.append(folder)
        files = [database_file_path(f, 0, i) if args.one_instance else database_file_path(f, i) for i, f in enumerate(folders)]
        # fio's writes would overwrite Jetwise's page headers: for randrw it gets files of its own
        fio_files = [scratch / f"fio-{i + 1}.dat" for i in range(args.databases)]
        rows = []
        print(f"{args.databases} database file(s) of {args.size_mb} MB in {scratch}, {args.seconds:g} s per run, "
              f"{args.repeats} alternating repeats")
        for workload in args.workload:
            target = TARGETS[workload]
            print(f"\n{workload}: {DESCRIPTIONS[workload]}")
            print(f"{'threads':>7} {'files':>5} {'fio IOPS':>10} {'Jetwise IOPS':>12} {'IOPS ratio':>10} "
                  f"{'fio ms':>8} {'Jetwise ms':>10} {'lat ratio':>9}")
            for threads in args.threads:
                used = args.databases if args.one_instance else min(args.databases, threads)
                fio_paths = (files if workload == "reads" else fio_files)[:used]
                fio_runs, jw_runs, plain_runs = [], [], []
                for repeat in range(args.repeats):
                    fio_runs.append(run_fio(fio_paths, threads, args.seconds, pages * PAGE_SIZE_BYTES, workload))
                    out = scratch / f"{workload}-{threads}-{repeat}"
                    jw_runs.append(run_jetwise(folders[:used], threads, args.seconds, out, workload,
                                               one_instance=args.one_instance))
                    if args.checksum_cost:
                        plain = scratch / f"{workload}-{threads}-{repeat}-no-verify"
                        plain_runs.append(run_jetwise(folders[:used], threads, args.seconds, plain, workload, verify=False))
                fio_iops = statistics.median(r[0] for r in fio_runs)
                fio_ms = statistics.median(r[1] for r in fio_runs)
                jw_iops = statistics.median(r[0] for r in jw_runs)
                jw_ms = statistics.median(r[1] for r in jw_runs)
                row = {
                    "workload": workload, "threads": threads, "files": used, "fio_iops": fio_iops,
                    "jetwise_iops": jw_iops, "iops_ratio": jw_iops / fio_iops, "fio_mean_read_latency_ms": fio_ms,
                    "jetwise_mean_read_latency_ms": jw_ms, "latency_ratio": jw_ms / fio_ms,
                }
                row["met"] = row["iops_ratio"] >= target[0] and (target[1] is None or row["latency_ratio"] <= target[1])
                if plain_runs:
                    row["jetwise_iops_without_checksums"] = statistics.median(r[0] for r in plain_runs)
                rows.append(row)
                print(
                    f"{threads:>7} {used:>5} {fio_iops:>10,.0f} {jw_iops:>12,.0f} {row['iops_ratio']:>10.3f} "
                    f"{fio_ms:>8.3f} {jw_ms:>10.3f} {row['latency_ratio']:>9.3f}"
                    + (f"   without checksums {row['jetwise_iops_without_checksums']:,.0f} IOPS "
                       f"(verified / not: {jw_iops / row['jetwise_iops_without_checksums']:.3f})" if plain_runs else ""),
                    flush=True,
                )
            met = all(r["met"] for r in rows if r["workload"] == workload)
            limit = f"IOPS ratio >= {target[0]}" + (f", latency ratio <= {target[1]}" if target[1] else "")
            print(f"target ({limit} at every thread count): {'met' if met else 'NOT met'}")
        if args.json:
            args.json.write_text(json.dumps(rows, indent=2) + "\n")
        return 0
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
