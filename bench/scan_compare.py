"""Jetwise's Database Checksum and Database Backup against fio's sequential direct read of the same files.

Both read every database file from its first byte to its last in the order and at the depth
Jetwise's test reads them (engine/run/scanning.py): a checksum reads the files of one volume one
after another (the files here share one) with its checksum buffers in flight (64 reads by
default), a backup reads every file at once with two reads in flight each; unbuffered (O_DIRECT),
at the test's read size: 64 KiB for the checksum, 256 KiB for the backup. fio keeps the same
reads in flight (`--ioengine=libaio --iodepth=N`, `--stonewall` between files read one after
another). Jetwise checks every
page it reads (header, page number, CRC-32); fio's plain read checks nothing. The ratio
compares the server's read rate over the database files (Jetwise's log files, which a
checksum reads after its database, are left out on both sides). Targets: backup >= 0.90,
checksum >= 0.85, against fio's plain read.

A second reference is fio checking what it reads: files of the same size that fio wrote with
a CRC-32C per 32 KiB (a database page's size), read back at the same read size with
`--verify_only`. It answers what a reader pays for looking at its data on the machine at
hand, apart from Jetwise: Jetwise against it is the price of Jetwise's own checks.

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

from engine.io.file_names import database_file_path
from engine.io.files import prepare_database
from engine.io.platform import default_backend
from engine.model.config import DatabaseSource, TestConfig
from engine.model.sizing import PAGE_SIZE_BYTES
from engine.run.runner import Runner

TESTS = {"database_checksum": 64 * 1024, "database_backup": 256 * 1024}
TARGETS = {"database_checksum": 0.85, "database_backup": 0.90}
MIB = 1024 * 1024


FIO_VERIFY = ["--verify=crc32c", f"--verify_interval={PAGE_SIZE_BYTES}", "--verify_state_save=0"]


SHAPE: dict[int, tuple[int, bool]] = {}  # read size -> (reads in flight per file, files one after another)


def _fio(paths: list[Path], block: int, options: list[str]) -> subprocess.CompletedProcess[str]:
    """fio over each file once, sequentially, one job per file, in Jetwise's order and depth for that read size."""
    depth, one_by_one = SHAPE.get(block, (1, False))
    command = ["fio", "--direct=1", "--ioengine=libaio", f"--iodepth={depth}", "--thread", f"--bs={block}",
               "--group_reporting", "--output-format=json", *options]
    for index, path in enumerate(paths):
        command += [f"--name=file{index}", f"--filename={path}", f"--size={path.stat().st_size}"]
        if one_by_one and index:
            command.append("--stonewall")
    return subprocess.run(command, capture_output=True, text=True, check=True)


def _read_mib_s(done: subprocess.CompletedProcess[str]) -> float:
    return float(json.loads(done.stdout)["jobs"][0]["read"]["bw_bytes"]) / MIB


def run_fio(paths: list[Path], block: int) -> float:
    """MiB/s of fio's plain read: the bytes land in its buffer and nothing looks at them."""
    return _read_mib_s(_fio(paths, block, ["--rw=read"]))


def write_fio_copies(folder: Path, paths: list[Path], block: int) -> list[Path]:
    """Files of the databases' sizes that fio writes with a CRC-32C per page, for `run_fio_checking`."""
    folder.mkdir()
    copies = [folder / f"fio{index}" for index in range(len(paths))]
    for copy, path in zip(copies, paths, strict=True):
        with copy.open("wb") as handle:
            handle.truncate(path.stat().st_size)
    _fio(copies, block, ["--rw=write", "--do_verify=0", *FIO_VERIFY])
    return copies


def run_fio_checking(copies: list[Path], block: int) -> float:
    """MiB/s of fio reading its own files back and checking every page's CRC-32C (`--verify_only`)."""
    done = _fio(copies, block, ["--rw=write", "--verify_only", *FIO_VERIFY])
    if "verify failed" in done.stderr:
        raise RuntimeError(f"fio found a page of its own files damaged: {done.stderr[:500]}")
    return _read_mib_s(done)


def run_jetwise(folders: list[Path], test_type: str, out: Path) -> float:
    """MiB/s of Jetwise's scan over the database files: their bytes over the time from the first read to the end of
    the last database file. Notes the test's order and depth for fio (`SHAPE`)."""
    config = TestConfig.model_validate({
        "databases": [{"database_path": str(f), "log_path": str(f / "logs")} for f in folders],
        "thread_count": len(folders),
        "database_source": "attach",
        "test_type": test_type,
        "profile": {"mailboxes": 1, "iops_per_mailbox": 0.1, "mailbox_size_mb": 1},
    })
    result = Runner(config, out, lambda _event: None).run()
    assert result.scan is not None and result.verdict == "pass", result.summary.reasons
    SHAPE[config.scan_read_bytes] = (result.scan.reads_in_flight, result.scan.by_volume)
    return result.scan.bytes_per_s / MIB


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
            copies = write_fio_copies(root / f"fio-{block}", paths, block)
            fio, checking, jetwise = [], [], []
            for repeat in range(args.repeats):  # Jetwise first: its order and depth are fio's
                jetwise.append(run_jetwise(folders, test_type, root / f"out-{test_type}-{repeat}"))
                fio.append(run_fio(paths, block))
                checking.append(run_fio_checking(copies, block))
            ratio = statistics.median(jetwise) / statistics.median(fio)
            row: dict[str, Any] = {"test": test_type, "read_kib": block // 1024, "fio_mib_s": statistics.median(fio),
                                   "fio_checking_mib_s": statistics.median(checking),
                                   "jetwise_mib_s": statistics.median(jetwise), "ratio": ratio,
                                   "ratio_to_checking": statistics.median(jetwise) / statistics.median(checking),
                                   "target": TARGETS[test_type], "fio_runs": fio, "fio_checking_runs": checking,
                                   "jetwise_runs": jetwise}
            rows.append(row)
            print(f"{test_type:18} {block // 1024:4} KiB  fio {row['fio_mib_s']:7.1f} MiB/s  fio checking "
                  f"{row['fio_checking_mib_s']:7.1f}  Jetwise {row['jetwise_mib_s']:7.1f}  ratio {ratio:.3f} "
                  f"(target >= {row['target']:.2f}), to fio checking {row['ratio_to_checking']:.3f}  runs fio "
                  f"{[round(x) for x in fio]} checking {[round(x) for x in checking]} Jetwise {[round(x) for x in jetwise]}")
        if args.json is not None:
            args.json.write_text(json.dumps(rows, indent=2) + "\n")
        return 0 if all(r["ratio"] >= r["target"] for r in rows) else 1
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
