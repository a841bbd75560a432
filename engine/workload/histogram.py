"""Log-linear latency histogram in integer nanoseconds (fio's PLAT_BITS scheme).

Values below 2**BITS ns are kept exactly; above, each power of two is split into
2**BITS equal buckets, so any value is known to within 1/64 (about 1.6 %). A histogram
holds only the buckets something fell in (a one-second interval of a stream fills a few
dozen of the NBUCKETS), so making, merging and reading one costs what it holds; memory
is bounded (NBUCKETS counters at most) and histograms merge by adding counters.
"""

from __future__ import annotations

import sys
import zlib
from array import array
from collections import defaultdict
from collections.abc import Iterable, Mapping

BITS = 6
SUB = 1 << BITS
MAX_BITS = 42  # about 73 minutes in ns; anything longer lands in the last bucket
NBUCKETS = (MAX_BITS - BITS + 1) * SUB


def bucket_index(value_ns: int) -> int:
    """Index of the bucket holding `value_ns` (clamped to the histogram's range)."""
    if value_ns < SUB:
        return value_ns if value_ns > 0 else 0
    bits = value_ns.bit_length()
    if bits > MAX_BITS:
        return NBUCKETS - 1
    shift = bits - BITS - 1
    return ((shift + 1) << BITS) + ((value_ns >> shift) & (SUB - 1))


def bucket_bounds(index: int) -> tuple[int, int]:
    """[low, high) of the values that fall in bucket `index`."""
    group, low_bits = divmod(index, SUB)
    if group == 0:
        return low_bits, low_bits + 1
    shift = group - 1
    low = (SUB + low_bits) << shift
    return low, low + (1 << shift)


def bucket_value(index: int) -> float:
    """The value a bucket stands for: the middle of its range."""
    low, high = bucket_bounds(index)
    return (low + high - 1) / 2.0


Counts = defaultdict[int, int]  # bucket index -> how many values fell in it; a missing bucket holds none


def new_counts() -> Counts:
    return defaultdict(int)


def percentile_ns(counts: Mapping[int, int], fraction: float, total: int | None = None) -> float | None:
    """The value below which `fraction` of the samples fall (None for no samples)."""
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"percentile fraction {fraction} is outside 0..1")
    n = sum(counts.values()) if total is None else total
    if n == 0:
        return None
    # nearest-rank: the smallest bucket whose cumulative count reaches ceil(fraction * n)
    rank = max(1, -(-round(fraction * n * 1_000_000) // 1_000_000))
    seen = 0
    for index in sorted(counts):
        seen += counts[index]
        if seen >= rank:
            return bucket_value(index)
    return bucket_value(NBUCKETS - 1)


def percentiles_ms(counts: Mapping[int, int], fractions: Iterable[float] = (0.5, 0.9, 0.99, 0.999), *,
                   highest_ns: int | None = None) -> dict[str, float | None]:
    """{'p50': ms, 'p90': ms, ...} from a histogram; never above `highest_ns`, the highest value counted, when it is
    known (a bucket stands for the middle of its range, which may lie above the highest value that fell in it)."""
    total = sum(counts.values())
    out: dict[str, float | None] = {}
    for fraction in fractions:
        value = percentile_ns(counts, fraction, total)
        if value is not None and highest_ns:
            value = min(value, float(highest_ns))
        label = "p" + f"{fraction * 100:g}".replace(".", ".")
        out[label] = None if value is None else value / 1e6
    return out


def to_sparse(counts: Mapping[int, int]) -> dict[int, int]:
    return {index: count for index, count in sorted(counts.items()) if count}


def add_sparse(counts: Counts, sparse: Mapping[int, int] | Mapping[str, int]) -> None:
    for index, count in sparse.items():
        counts[int(index)] += count


def packed(counts: Mapping[int, int]) -> bytes:
    """A histogram in a few hundred bytes, as a samples file keeps it: each held bucket as its distance from the
    one before and its count (little-endian 64-bit), deflated."""
    values = array("Q")
    previous = 0
    for index, count in sorted(counts.items()):
        if count:
            values.extend((index - previous, count))
            previous = index
    if sys.byteorder == "big":
        values.byteswap()
    return zlib.compress(values.tobytes(), 6)


def unpacked(blob: bytes) -> Counts:
    """The histogram `packed` made."""
    values = array("Q")
    values.frombytes(zlib.decompress(blob))
    if sys.byteorder == "big":
        values.byteswap()
    counts = new_counts()
    index = 0
    for gap, count in zip(values[::2], values[1::2], strict=True):
        index += gap
        counts[index] += count
    return counts
