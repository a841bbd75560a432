"""What the flush map costs a run: memory and file per 100 GB of database, CPU per page read, and the engine against fio
before and after it.

Three parts, each its own reference measured in the same run:

- `memory`: a real `Written` (its `FlushMap`: two bits a page, the per-group versions, the writes in flight) for a
  database of each `--sizes-gb` (GiB) of 32 KiB pages, exercised as a run exercises it: the flushers' writes of runs
  of up to 8 pages at random (`--writes` page writes), the database grown by `--grow-percent` at its end, and 16
  flushers' runs of 8 pages left in flight, a few of their pages written twice at once. A first run without a map
  writes its `.jwfm` at its clean end through `engine.io.flush_file`; a second run starts from that kept map, and what
  it holds then is measured by `tracemalloc` (and by walking the objects' sizes), with the peaks of opening and closing
  the map. The file is measured as written (its length and the blocks it holds). Target: about 1 MB per 100 GB, each.
- `read`: `page_problem` on a real page (built by the flushers' `BlockWriter`, checksum verified and identity only)
  with the flush map check (`written` and the version the hot path takes before the read) against without it
  (`written=None`), and a two-page span read's `versions` tuple and `check_pages` with and without; the variants
  alternate, one batch each per round, in one process, so other work on the machine slows them alike; medians.
- `fio`: the engine before the flush map (`--before`, default c271af5, checked out beside with `git worktree`) and
  this tree, each by its own `bench/fio_compare.py` (`run_jetwise`, in a process whose PYTHONPATH is that tree) on
  database files of its own, against one fio run per round: reads and the model at each `--threads`, rounds
  alternating which tree goes first; each one's ratio to that round's fio, medians.

    python bench/flush_map_cost.py [--parts memory read] [--sizes-gb 10 100 1024] [--writes 1000000] [--rounds 41]
    python bench/flush_map_cost.py --parts fio [--before c271af5] [--dir DIR] [--databases 2] [--size-mb 1024]
                                   [--seconds 5] [--repeats 3] [--threads 1 16] [--workload reads model]

MB and GB here are MiB and GiB: 100 GB is 3,276,800 pages.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.fio_compare import run_fio
from engine.io.flush_file import close_clean, flush_map_path, open_for_run
from engine.io.pages import FLUSH_STATE_AT, SECTOR_BYTES, BlockWriter
from engine.io.platform import default_backend
from engine.model.sizing import PAGE_SIZE_BYTES
from engine.workload.cache import MAX_COALESCED_PAGES
from engine.workload.context import InstanceContext, RunClock, check_pages, page_problem
from engine.workload.flushmap import GROUPS, Written
from engine.workload.stats import DB_READ, ThreadMeter

ROOT = Path(__file__).resolve().parents[1]
MIB = 1024 * 1024
GIB = 1024 * MIB
DB_ID = bytes(range(16))
FLUSHERS = 16  # one per transaction thread: a 16-thread run
TARGET_MB_PER_100_GB = 1.0


# memory and file --------------------------------------------------------------------------------------------------


def deep_size(root: object) -> int:
    """The bytes of `root` and of every object it holds (containers, slots), each counted once; small ints and other
    objects the interpreter shares are counted as any other, so this is an upper bound."""
    seen: set[int] = set()
    total = 0
    todo = [root]
    while todo:
        obj = todo.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        if isinstance(obj, dict):
            todo.extend(obj.keys())
            todo.extend(obj.values())
        elif isinstance(obj, list | tuple | set | frozenset):
            todo.extend(obj)
        for name in getattr(type(obj), "__slots__", ()):
            if hasattr(obj, name):
                todo.append(getattr(obj, name))
    return total


def run_writes(written: Written, pages: int, writes: int, grow: int, rng: random.Random) -> list[int]:
    """Exercise the map as the flushers do: `writes` page writes in runs of up to 8 pages, then `grow` pages written
    at the database's end, then 16 flushers' runs left in flight (a few pages of them with two writes at once).
    Returns the pages in flight, once for each write of them."""
    flushes = written.map
    done = 0
    while done < writes:
        first = 1 + rng.randrange(pages - MAX_COALESCED_PAGES)
        count = rng.randint(1, MAX_COALESCED_PAGES)
        for page in range(first, first + count):
            flushes.stamp(page)
        for page in range(first, first + count):
            flushes.written(page, True)
        done += count
    for page in range(pages, pages + grow):
        flushes.stamp(page)
        flushes.written(page, True)
    flying = []
    for _ in range(FLUSHERS):
        first = 1 + rng.randrange(pages - MAX_COALESCED_PAGES)
        flying.extend(range(first, first + MAX_COALESCED_PAGES))
    flying.extend(flying[:: MAX_COALESCED_PAGES * 2])  # every other flusher's first page written twice at once
    for page in flying:
        flushes.stamp(page)
    return flying


def land(written: Written, flying: list[int]) -> None:
    for page in flying:
        written.map.written(page, True)


def map_cost(size_gb: int, writes: int, grow_percent: float, folder: Path, seed: int) -> dict[str, Any]:
    """Memory and file of one database's flush map, `size_gb` GiB of pages, as a run that starts from a kept map holds
    it: bytes."""
    backend = default_backend()
    pages = size_gb * GIB // PAGE_SIZE_BYTES
    grow = int(pages * grow_percent / 100)
    database = folder / f"DB{size_gb}.jwdb"  # the map is written beside it; the database itself is not needed
    rng = random.Random(seed)

    # a run with no map yet: it writes one whole at its clean end
    first = time.time_ns()
    written = Written([pages], first, [open_for_run(backend, database, DB_ID, 0)])
    land(written, run_writes(written, pages, writes, grow, rng))
    close_clean(backend, database, DB_ID, 0, written.map.states(0))
    del written
    stat = flush_map_path(database).stat()

    # the next run, from the map kept
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    kept = open_for_run(backend, database, DB_ID, 0)
    written = Written([pages], time.time_ns(), [kept])
    del kept
    open_peak = tracemalloc.get_traced_memory()[1] - base
    flying = run_writes(written, pages, writes, grow, rng)
    held = tracemalloc.get_traced_memory()[0] - base - sys.getsizeof(flying)  # the bench's own list is not the map's
    walked = deep_size(written)
    flushes = written.map  # what it holds, by part (the bench reads its slots)
    parts_bytes = deep_size(flushes._parts)
    versions_bytes = deep_size(flushes._versions)
    in_flight_bytes = deep_size(flushes._in_flight) + deep_size(flushes._overlapped)
    in_flight = len(flushes._in_flight)
    land(written, flying)
    states = written.map.states(0)
    state_bytes = len(states)
    tracemalloc.reset_peak()
    before_close = tracemalloc.get_traced_memory()[0]
    close_clean(backend, database, DB_ID, 0, states)
    close_extra = tracemalloc.get_traced_memory()[1] - before_close + state_bytes  # with the copy of the states it writes
    tracemalloc.stop()
    write_buffer = SECTOR_BYTES + -(-state_bytes // SECTOR_BYTES) * SECTOR_BYTES  # the buffer it is written from: mmap, untraced
    return {
        "size_gb": size_gb, "pages": pages, "pages_grown": grow, "page_writes": writes + grow, "in_flight": in_flight,
        "state_bytes": state_bytes, "held_bytes": held, "walked_bytes": walked, "walked_states_bytes": parts_bytes,
        "walked_versions_bytes": versions_bytes, "walked_in_flight_bytes": in_flight_bytes, "open_peak_bytes": open_peak,
        "close_extra_bytes": close_extra + write_buffer, "file_bytes": stat.st_size,
        "file_allocated_bytes": stat.st_blocks * 512,
    }


def per_100_gb(row: dict[str, Any], key: str) -> float:
    return float(row[key]) / MIB / (row["size_gb"] * (1 + row["pages_grown"] / row["pages"]) / 100)


def memory_part(args: argparse.Namespace) -> list[dict[str, Any]]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="jetwise-flushmap-", dir=args.dir) as folder:
        for size_gb in args.sizes_gb:
            rows.append(map_cost(size_gb, args.writes, args.grow_percent, Path(folder), seed=size_gb))
    print(f"\nmemory and file of one database's flush map ({args.writes:,} page writes, grown {args.grow_percent:g} %, "
          f"{FLUSHERS} flushers' writes in flight); MB per 100 GB of the database as grown:")
    print(f"{'database':>9} {'pages':>11} {'states':>9} {'held':>9} {'walked':>9} {'open peak':>9} {'close extra':>11} "
          f"{'file':>9} {'on disk':>9} | {'held':>6} {'walked':>6} {'file':>6} MB/100 GB")
    for row in rows:
        mb = {key: row[key] / MIB for key in ("state_bytes", "held_bytes", "walked_bytes", "open_peak_bytes",
                                              "close_extra_bytes", "file_bytes", "file_allocated_bytes")}
        print(f"{row['size_gb']:>6} GB {row['pages']:>11,} {mb['state_bytes']:>6.2f} MB {mb['held_bytes']:>6.2f} MB "
              f"{mb['walked_bytes']:>6.2f} MB {mb['open_peak_bytes']:>6.2f} MB {mb['close_extra_bytes']:>8.2f} MB "
              f"{mb['file_bytes']:>6.2f} MB {mb['file_allocated_bytes']:>6.2f} MB | {per_100_gb(row, 'held_bytes'):>6.3f} "
              f"{per_100_gb(row, 'walked_bytes'):>6.3f} {per_100_gb(row, 'file_bytes'):>6.3f}")
        row["held_mb_per_100_gb"] = per_100_gb(row, "held_bytes")
        row["file_mb_per_100_gb"] = per_100_gb(row, "file_bytes")
    print("what it holds, walked: the states (their bytearrays as allocated), the versions (a list of "
          f"{GROUPS:,} and its ints), the writes in flight; open peak: the most held while the kept map is read and made, "
          "close extra: what writing it at the end needs beside it")
    for row in rows:
        over = row["walked_states_bytes"] / row["state_bytes"] - 1
        worst = max(row["held_mb_per_100_gb"], row["file_mb_per_100_gb"])
        print(f"{row['size_gb']:>6} GB: states {row['walked_states_bytes'] / MIB:.3f} MB ({over:+.1%} on the states' "
              f"bytes), versions {row['walked_versions_bytes'] / 1024:.0f} KB, in flight "
              f"{row['walked_in_flight_bytes'] / 1024:.0f} KB ({row['in_flight']} pages); target (about "
              f"{TARGET_MB_PER_100_GB:g} MB per 100 GB, memory and file): "
              f"{'met' if worst <= TARGET_MB_PER_100_GB * 1.1 else 'NOT met'}")
    return rows


# CPU per page read ------------------------------------------------------------------------------------------------


def timed(calls: int, body: Callable[[], object]) -> float:
    """ns per call of `body`, over `calls` calls, the loop's own cost included (alike for every variant)."""
    clock = time.perf_counter_ns
    start = clock()
    for _ in range(calls):
        body()
    return (clock() - start) / calls


def read_variants(verify: bool) -> dict[str, Callable[[], object]]:
    """The checks a read makes, on real pages: the one-page read of the transaction threads, with and without the
    flush map (a page its last write stamped, so the whole check runs; and one no write of the run stamped), and the
    two-page span read (`_read_pages`: the versions tuple, then `check_pages`)."""
    backend = default_backend()
    ctx = InstanceContext(backend, "bench", RunClock(0, 10**9, 2**62), lambda _name, _problem: None,
                          lambda _text, _level: None, unbuffered=False, verify_checksum=verify)
    meter = ThreadMeter("bench", 0, 10**9)
    pages = 100 * GIB // PAGE_SIZE_BYTES
    written = Written([pages], time.time_ns())
    flushes = written.map
    blocks = BlockWriter(DB_ID, 1)
    buffer = backend.allocate(4 * PAGE_SIZE_BYTES)  # kept for the process's life: the variants read it
    view = buffer.view
    stamped, unstamped = 1_000, 2_000_000
    for i, page in enumerate((stamped, stamped + 1, unstamped)):
        state = flushes.stamp(page) if page != unstamped else 0
        if state:
            flushes.written(page, True)
        blocks.fill_page(view[i * PAGE_SIZE_BYTES :], page, time.time_ns() - 10**9, PAGE_SIZE_BYTES, state)
    second = view[2 * PAGE_SIZE_BYTES :]
    version = flushes.version
    for page, at in ((stamped, view), (unstamped, second)):
        assert page_problem(ctx, DB_READ, at, DB_ID, page, written, version(page)) is None
        assert written.map.expected(page) == (at[FLUSH_STATE_AT] if page == stamped else 0)
    return {
        "without": lambda: page_problem(ctx, DB_READ, view, DB_ID, stamped),
        "with": lambda: page_problem(ctx, DB_READ, view, DB_ID, stamped, written, version(stamped)),
        "with, page not stamped": lambda: page_problem(ctx, DB_READ, second, DB_ID, unstamped, written,
                                                       version(unstamped)),
        "span without": lambda: check_pages(ctx, meter, DB_READ, view, DB_ID, stamped, 2),
        "span with": lambda: check_pages(ctx, meter, DB_READ, view, DB_ID, stamped, 2, written,
                                         tuple(version(stamped + i) for i in range(2))),
    }


def read_part(args: argparse.Namespace) -> list[dict[str, Any]]:
    rows = []
    print(f"\nCPU of the check of a page read ({args.rounds} rounds of {args.calls:,} calls each, the variants "
          "alternating, medians; ns per read):")
    print(f"{'checksum':<17} {'read':<32} {'without':>8} {'with':>8} {'more':>6} {'ratio':>6}   "
          "with / without, 10th to 90th percentile of the rounds")
    for verify in (True, False):
        variants = read_variants(verify)
        names = list(variants)
        times: dict[str, list[float]] = {name: [] for name in names}
        for _ in range(3):  # warm up
            for name in names:
                timed(args.calls // 10, variants[name])
        for round_ in range(args.rounds):
            order = names[round_ % len(names):] + names[: round_ % len(names)]  # each goes first in turn
            for name in order:
                times[name].append(timed(args.calls, variants[name]))
        ns = {name: statistics.median(values) for name, values in times.items()}
        checksum = "checksum verified" if verify else "identity only"
        for label, without, with_ in (("one page", "without", "with"),
                                      ("one page, not stamped by the run", "without", "with, page not stamped"),
                                      ("span of two pages", "span without", "span with")):
            ratios = sorted(w / o for w, o in zip(times[with_], times[without], strict=True))
            row = {"checksum": checksum, "read": label, "without_ns": ns[without], "with_ns": ns[with_],
                   "more_ns": ns[with_] - ns[without], "ratio": ns[with_] / ns[without]}
            rows.append(row)
            print(f"{checksum:<17} {label:<32} {row['without_ns']:>8.0f} {row['with_ns']:>8.0f} "
                  f"{row['more_ns']:>6.0f} {row['ratio']:>6.3f}   {ratios[len(ratios) // 10]:.3f} .. "
                  f"{ratios[-1 - len(ratios) // 10]:.3f}")
    return rows


# the engine against fio, before and after -------------------------------------------------------------------------

# Run in a process of its own with the tree to measure as its working folder and PYTHONPATH: that tree's engine and
# its own bench/fio_compare.py, never this one's.
CHILD = """
import json, sys
from pathlib import Path
tree = Path.cwd().resolve()
sys.path.insert(0, str(tree / "bench"))
import engine, fio_compare
assert Path(engine.__file__).resolve().is_relative_to(tree), f"{engine.__file__} is not of {tree}"
ask = json.loads(sys.argv[1])
folders = [Path(folder) for folder in ask["folders"]]
if ask["do"] == "prepare":
    from engine.io.file_names import database_file_path
    from engine.io.files import prepare_database
    from engine.io.platform import default_backend
    from engine.model.config import DatabaseSource
    backend = default_backend()
    for index, folder in enumerate(folders):
        (folder / "logs").mkdir(parents=True)
        prepare_database(backend, database_file_path(folder, index), ask["pages"], DatabaseSource.CREATE,
                         unbuffered=backend.probe_unbuffered(folder).supported)
    print(json.dumps([str(database_file_path(folder, index)) for index, folder in enumerate(folders)]))
else:
    print(json.dumps(fio_compare.run_jetwise(folders, ask["threads"], ask["seconds"], Path(ask["out"]), ask["workload"])))
"""


def in_tree(tree: Path, ask: dict[str, Any]) -> Any:
    """What CHILD answers, run on `tree`'s code."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    done = subprocess.run([sys.executable, "-c", CHILD, json.dumps(ask)], cwd=tree, env=env, capture_output=True,
                          text=True)
    if done.returncode != 0:
        raise SystemExit(f"{tree}: {done.stderr.strip()}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def fio_part(args: argparse.Namespace) -> list[dict[str, Any]]:
    if shutil.which("fio") is None:
        raise SystemExit("fio is not installed (apt-get install fio)")
    scratch = Path(tempfile.mkdtemp(prefix="jetwise-bench-", dir=args.dir or Path.cwd()))
    before = Path(tempfile.mkdtemp(prefix="jetwise-before-")) / "code"  # the code apart from the disk under test
    rows: list[dict[str, Any]] = []
    started = time.monotonic()
    try:
        subprocess.run(["git", "worktree", "add", "--detach", str(before), args.before], cwd=ROOT, check=True,
                       capture_output=True)
        trees = {f"before ({args.before})": before, "after (this tree)": ROOT}
        pages = args.size_mb * MIB // PAGE_SIZE_BYTES
        folders = {name: [scratch / f"{tag}-DB{i + 1}" for i in range(args.databases)]
                   for name, tag in zip(trees, ("before", "after"), strict=True)}
        files = {name: in_tree(tree, {"do": "prepare", "folders": [str(f) for f in folders[name]], "pages": pages})
                 for name, tree in trees.items()}
        fio_files = [scratch / f"fio-{i + 1}.dat" for i in range(args.databases)]
        print(f"\n{args.databases} database file(s) of {args.size_mb} MB per tree in {scratch}, {args.seconds:g} s per "
              f"run, {args.repeats} rounds, each: fio, then both trees in turn")
        runs: dict[tuple[str, int], dict[str, list[tuple[float, float]]]] = {}
        for round_ in range(args.repeats):
            for workload in args.workload:
                for threads in args.threads:
                    used = min(args.databases, threads)
                    fio_paths = [Path(p) for p in files["after (this tree)"]] if workload == "reads" else fio_files
                    fio_iops, _ms = run_fio(fio_paths[:used], threads, args.seconds, pages * PAGE_SIZE_BYTES, workload)
                    figures = runs.setdefault((workload, threads), {"fio": [], **{name: [] for name in trees}})
                    figures["fio"].append((fio_iops, fio_iops))
                    order = list(trees) if round_ % 2 == 0 else list(reversed(trees))
                    for name in order:
                        out = scratch / f"run-{round_}-{workload}-{threads}-{name.split()[0]}"
                        iops, _ms = in_tree(trees[name], {"do": "run", "folders": [str(f) for f in folders[name][:used]],
                                                          "threads": threads, "seconds": args.seconds, "out": str(out),
                                                          "workload": workload})
                        figures[name].append((iops, iops / fio_iops))
                        shutil.rmtree(out, ignore_errors=True)
                    print(f"  round {round_ + 1} {workload} {threads:>2} threads: fio {fio_iops:,.0f} IOPS, "
                          + ", ".join(f"{name.split()[0]} {figures[name][-1][1]:.3f}" for name in trees), flush=True)
        print(f"\n{'workload':<8} {'threads':>7} {'fio IOPS':>9} " + " ".join(f"{n.split()[0] + ' IOPS':>12} "
                                                                         f"{n.split()[0] + ' ratio':>12}" for n in trees)
              + f" {'after / before':>14}")
        for (workload, threads), figures in runs.items():
            row: dict[str, Any] = {"workload": workload, "threads": threads,
                                   "fio_iops": statistics.median(f[0] for f in figures["fio"])}
            for name in trees:
                row[name.split()[0] + "_iops"] = statistics.median(f[0] for f in figures[name])
                row[name.split()[0] + "_ratio"] = statistics.median(f[1] for f in figures[name])
                row[name.split()[0] + "_ratios"] = [round(f[1], 3) for f in figures[name]]
            row["after_over_before"] = row["after_ratio"] / row["before_ratio"]
            rows.append(row)
            print(f"{workload:<8} {threads:>7} {row['fio_iops']:>9,.0f} {row['before_iops']:>12,.0f} "
                  f"{row['before_ratio']:>12.3f} {row['after_iops']:>12,.0f} {row['after_ratio']:>12.3f} "
                  f"{row['after_over_before']:>14.3f}   rounds: {row['before_ratios']} / {row['after_ratios']}")
        print(f"took {time.monotonic() - started:.0f} s")
        return rows
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(before)], cwd=ROOT, capture_output=True)
        shutil.rmtree(before.parent, ignore_errors=True)
        shutil.rmtree(scratch, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parts", choices=["memory", "read", "fio"], nargs="+", default=["memory", "read"])
    parser.add_argument("--sizes-gb", type=int, nargs="+", default=[10, 100, 1024], help="database sizes (GiB)")
    parser.add_argument("--writes", type=int, default=1_000_000, help="page writes a run makes before it is measured")
    parser.add_argument("--grow-percent", type=float, default=1.0, help="what the run grows its database by")
    parser.add_argument("--rounds", type=int, default=41, help="rounds of the read variants")
    parser.add_argument("--calls", type=int, default=20_000, help="calls of each read variant per round")
    parser.add_argument("--before", default="c271af5", help="the revision before the flush map")
    parser.add_argument("--dir", type=Path, default=None, help="folder on the disk to test (default: a scratch folder here)")
    parser.add_argument("--databases", type=int, default=2)
    parser.add_argument("--size-mb", type=int, default=1024, help="size of each database file")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--repeats", type=int, default=3, help="rounds of the fio part")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 16])
    parser.add_argument("--workload", choices=["reads", "model"], nargs="+", default=["reads", "model"])
    parser.add_argument("--json", type=Path, default=None, help="also write the figures to this file")
    args = parser.parse_args()
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f} at the start")
    figures: dict[str, Any] = {}
    if "memory" in args.parts:
        figures["memory"] = memory_part(args)
    if "read" in args.parts:
        figures["read"] = read_part(args)
    if "fio" in args.parts:
        figures["fio"] = fio_part(args)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
