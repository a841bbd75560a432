"""Jetwise's Database Checksum and Database Backup against fio's sequential direct read of the same files.

Both read every database file from its first byte to its last, one reader per file, all
files at once (as Jetwise scans its databases in parallel), unbuffered (O_DIRECT), at the
test's read size: 64 KiB for the checksum, 256 KiB for the backup. Jetwise checks every
page it reads (header, page number, CRC-32); fio checks nothing. The ratio compares the
server's read rate over the database files (Jetwise's log files, which a checksum reads
after its database, are left out on both sides). Targets: backup >= 0.90, checksum >= 0.85.

fio and Jetwise alternate and repeat; the medians are compared, because a virtual disk's
throughput drifts from one run to the next.

    python bench/scan_compare.py [--dir DIR] [--databases 2] [--size-mb 1024] [--repeats 3] [--json FILE]
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
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.io.files import database_file_path, prepare_database
from engine.io.platform import default_backend
from engine.model.config import PAGE_SIZE_BYTES, DatabaseSource, TestConfig
from engine.run.runner import Runner

TESTS = {"database_checksum": 64 * 1024, "database_backup": 256 * 1024}
TARGETS = {"database_checksum": 0.85, "database_backup": 0.90}
MIB = 1024 * 1024


def run_fio(paths: list[Path], block: int) -> float:
    """MiB/s of fio reading each file through once, sequentially, one job per file, all at once."""
    command = ["fio", "--direct=1", "--ioengine=psync", "--thread", "--rw=read", f"--bs={block}", "--group_reporting",
               "--output-format=json"]
    for index, path in enumerate(paths):
        command += [f"--name=file{index}", f"--filename={path}", f"--size={path.stat().st_size}"]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    job = json.loads(done.stdout)["jobs"][0]
    return float(job["read"]["bw_bytes"]) / MIB


def run_jetwise(folders: list[Path], test_type: str, out: Path) -> float:
    """MiB/s of Jetwise's scan over the database files: their bytes over the slowest database's time."""
    config = TestConfig.model_validate({
        "databases": [{"database_path": str(f), "log_path": str(f / "logs")} for f in folders],
        "thread_count": len(folders),
        "database_source": "attach",
        "test_type": test_type,
        "profile": {"mailboxes": 1, "iops_per_mailbox": 0.1, "mailbox_size_mb": 1},
    })
    result = Runner(config, out, lambda _event: None).run()
    assert result.scan is not None and result.verdict == "pass", result.summary.reasons
    rows = result.scan.databases
    return sum(r.bytes_read for r in rows) / max(r.seconds for r in rows) / MIB


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=None, help="where the database files go (a disk, not tmpfs)")
    parser.add_argument("--databases", type=int, default=2)
    parser.add_argument("--size-mb", type=int, default=1024)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    if shutil.which("fio") is None:
        print("fio is not installed (apt-get install fio)", file=sys.stderr)
        return 2
    root = Path(tempfile.mkdtemp(prefix="jetwise-scan-bench-", dir=args.dir))
    try:
        backend = default_backend()
        folders = [root / f"DB{i + 1}" for i in range(args.databases)]
        pages = args.size_mb * MIB // PAGE_SIZE_BYTES
        paths = []
        for index, folder in enumerate(folders):
            (folder / "logs").mkdir(parents=True)
            path = database_file_path(folder, index)
            prepare_database(backend, path, pages, DatabaseSource.CREATE, unbuffered=True)
            paths.append(path)
        rows: list[dict[str, Any]] = []
        for test_type, block in TESTS.items():
            fio, jetwise = [], []
            for repeat in range(args.repeats):
                fio.append(run_fio(paths, block))
                jetwise.append(run_jetwise(folders, test_type, root / f"out-{test_type}-{repeat}"))
            ratio = statistics.median(jetwise) / statistics.median(fio)
            row: dict[str, Any] = {"test": test_type, "read_kib": block // 1024, "fio_mib_s": statistics.median(fio),
                                   "jetwise_mib_s": statistics.median(jetwise), "ratio": ratio,
                                   "target": TARGETS[test_type], "fio_runs": fio, "jetwise_runs": jetwise}
            rows.append(row)
            print(f"{test_type:18} {block // 1024:4} KiB  fio {row['fio_mib_s']:8.1f} MiB/s  Jetwise "
                  f"{row['jetwise_mib_s']:8.1f} MiB/s  ratio {row['ratio']:.3f} (target >= {row['target']:.2f})  "
                  f"runs fio {[round(x) for x in fio]} Jetwise {[round(x) for x in jetwise]}")
        if args.json is not None:
            args.json.write_text(json.dumps(rows, indent=2) + "\n")
        return 0 if all(r["ratio"] >= r["target"] for r in rows) else 1
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
