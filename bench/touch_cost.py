"""What looking at the bytes of an unbuffered read costs the next read, apart from Jetwise.

One reader per file, all files at once, each in a process of its own, reads its file from
first byte to last at 64 KiB, unbuffered, and after each read does one of:

- nothing;
- spin: a 2 µs busy wait that touches no byte of the buffer;
- crc: the CRC-32 of the buffer's two 32 KiB pages (zlib-ng, as Jetwise's checks);
- copy: a plain copy of the buffer.

It prints each one's MiB/s and the median time of the read call itself. On a disk where the
modes read alike, a scan that checks its pages can match a plain reader; where `crc` and `copy`
make the read slower than `spin` does, no reader that looks at its data can.

    python bench/touch_cost.py FILE [FILE ...] [--rounds 3]
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.io.platform import default_backend
from engine.model.sizing import PAGE_SIZE_BYTES

READ_BYTES = 64 * 1024
MODES = ("nothing", "spin", "crc", "copy")
MIB = 1024 * 1024


def read_through(path: str, mode: str, results: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    from zlib_ng.zlib_ng import crc32

    backend = default_backend()
    buffer = backend.allocate(READ_BYTES)
    view = buffer.view
    clock = time.perf_counter_ns
    reads: list[int] = []
    with backend.open_file(Path(path), create=False, writable=False, unbuffered=True, write_through=False) as handle:
        size = handle.size_bytes() // READ_BYTES * READ_BYTES
        started = clock()
        for offset in range(0, size, READ_BYTES):
            before = clock()
            handle.read_into(buffer, offset, READ_BYTES)
            after = clock()
            reads.append(after - before)
            if mode == "spin":
                while clock() - after < 2000:
                    pass
            elif mode == "crc":
                for at in range(0, READ_BYTES, PAGE_SIZE_BYTES):
                    crc32(view[at + 16 : at + PAGE_SIZE_BYTES])
            elif mode == "copy":
                bytes(view[:READ_BYTES])
        seconds = (clock() - started) / 1e9
    buffer.release()
    results.put((size / seconds / MIB, statistics.median(reads) / 1000))


def run(paths: list[str], mode: str) -> tuple[float, float]:
    """MiB/s over all files and the median read call (µs) of the first."""
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    workers = [context.Process(target=read_through, args=(path, mode, results)) for path in paths]
    for worker in workers:
        worker.start()
    figures = [results.get() for _ in workers]
    for worker in workers:
        worker.join()
    return sum(rate for rate, _ in figures), statistics.median(read_us for _, read_us in figures)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path, help="files to read (a Jetwise database, or any large file)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    figures: dict[str, list[tuple[float, float]]] = {mode: [] for mode in MODES}
    for _ in range(args.rounds):
        for mode in MODES:
            figures[mode].append(run([str(p) for p in args.files], mode))
    for mode in MODES:
        rates = [round(rate) for rate, _ in figures[mode]]
        reads = [round(read_us) for _, read_us in figures[mode]]
        print(f"{mode:8} {statistics.median(rates):7.0f} MiB/s  read call {statistics.median(reads):5.0f} µs at the median"
              f"  (rounds: {rates} MiB/s, {reads} µs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
