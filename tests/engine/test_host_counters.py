"""The host's counters as Jetstress's Host System Performance table has them: Windows's four memory counters read
through PDH by their English paths (a stand-in keeps the Win32 contract here; the Windows lane calls the real pdh.dll),
kept per sample, spread over the measured samples with the page fault stalls, and shown only where measured."""

from __future__ import annotations

import ctypes
from typing import Any

import pytest

from engine.io.platform import pdh
from engine.results.host_schema import HostFigures, HostPerformance, Spread
from engine.results.sample_file import SampleWriter
from engine.results.sample_read import SampleFile
from engine.results.sample_schema import Figures, IntervalSample

# The values a Windows server gave, from the paper's Performance report (its first sample's, say).
WINDOWS = {
    r"\Memory\Free System Page Table Entries": 33560171.0,
    r"\Memory\Transition Pages RePurposed/sec": 0.0,
    r"\Memory\Pool Nonpaged Bytes": 122459676.0,
    r"\Memory\Pool Paged Bytes": 136794283.0,
}


class StandIn:
    """pdh.dll as the Win32 contract has it: handles written through the out-pointers, a PDH_FMT_COUNTERVALUE filled
    for a counter the system has; PDH_CSTATUS_NO_COUNTER (0xC0000BB9) for one it has not."""

    def __init__(self, have: dict[str, float]) -> None:
        self.have = have
        self.handles: dict[int, str] = {}
        self.collected = 0
        self.closed = False

    def PdhOpenQueryW(self, source: Any, _user: int, query: Any) -> int:  # noqa: N802 - the Win32 names
        assert source is None
        ctypes.cast(query, ctypes.POINTER(pdh.HANDLE))[0] = 0x10
        return 0

    def PdhAddEnglishCounterW(self, query: Any, path: str, _user: int, counter: Any) -> int:  # noqa: N802
        assert query.value == 0x10
        if path not in self.have:
            return 0xC0000BB9
        handle = 0x100 + len(self.handles)
        self.handles[handle] = path
        ctypes.cast(counter, ctypes.POINTER(pdh.HANDLE))[0] = handle
        return 0

    def PdhCollectQueryData(self, query: Any) -> int:  # noqa: N802
        self.collected += 1
        return 0

    def PdhGetFormattedCounterValue(self, counter: Any, fmt: int, kind: Any, value: Any) -> int:  # noqa: N802
        assert fmt == pdh.PDH_FMT_DOUBLE
        out = ctypes.cast(value, ctypes.POINTER(pdh.PDH_FMT_COUNTERVALUE))[0]
        out.CStatus, out.doubleValue = 0, self.have[self.handles[counter.value]] + self.collected
        return 0

    def PdhCloseQuery(self, query: Any) -> int:  # noqa: N802
        self.closed = True
        return 0


def test_the_counter_value_is_laid_out_as_windows_lays_it_out():
    # DWORD CStatus, then the 8-byte union at offset 8: 16 bytes in all
    assert pdh.PDH_FMT_COUNTERVALUE.doubleValue.offset == 8 and ctypes.sizeof(pdh.PDH_FMT_COUNTERVALUE) == 16
    assert set(pdh.SIGNATURES) == {name for name in dir(StandIn) if name.startswith("Pdh")}


def test_each_counter_is_read_by_its_english_path_and_a_rate_from_a_first_collection():
    library = StandIn(WINDOWS)
    counters = pdh.MemoryCounters(library)
    assert library.collected == 1  # collected once when it starts: a rate needs two collections
    first = counters.read()
    assert first == {name: WINDOWS[path] + 2 for name, path in pdh.WINDOWS_MEMORY_COUNTERS.items()}
    assert set(first) == set(HostFigures.model_fields) - {"cpu_percent", "available_memory_mb"}
    counters.close()
    assert library.closed


def test_a_counter_the_system_lacks_reads_none_never_a_zero():
    have = {r"\Memory\Pool Paged Bytes": 1.0}
    counters = pdh.MemoryCounters(StandIn(have))
    assert counters.available == ["pool_paged_bytes"]
    figures = counters.read()
    assert figures["pool_paged_bytes"] == 3.0
    assert figures["free_system_ptes"] is None and figures["pool_nonpaged_bytes"] is None
    assert pdh.MemoryCounters(StandIn({})).read() == dict.fromkeys(pdh.WINDOWS_MEMORY_COUNTERS)


def _sample(index: int, host: HostFigures) -> IntervalSample:
    return IntervalSample(interval=index, phase="measure", elapsed_s=index + 1.0, duration_s=1.0, remaining_s=0.0,
                          host=host, summary=Figures(), instances=[])


def test_the_samples_file_keeps_the_counters_where_the_system_gave_them(tmp_path):
    windows = HostFigures(cpu_percent=30.0, available_memory_mb=27000.0, free_system_ptes=33560171.0,
                          transition_pages_repurposed_per_s=0.0, pool_nonpaged_bytes=122459676.0,
                          pool_paged_bytes=136794283.0)
    other = HostFigures(cpu_percent=12.0, available_memory_mb=1000.0)
    writer = SampleWriter(tmp_path / "samples.sqlite")
    writer.add(_sample(0, windows))
    writer.add(_sample(1, other))
    writer.close()
    back = [s.host for s in SampleFile(tmp_path / "samples.sqlite")]
    assert back == [windows, other]


def test_the_host_table_shows_what_was_measured_in_jetstress_order():
    windows = HostFigures(cpu_percent=30.0, available_memory_mb=27000.0, free_system_ptes=3.0,
                          transition_pages_repurposed_per_s=0.0, pool_nonpaged_bytes=1.0, pool_paged_bytes=2.0)
    performance = HostPerformance.of([windows, windows.model_copy(update={"cpu_percent": 10.0})], [0.0, 6.0])
    rows = dict(performance.rows(3.0))
    assert list(rows) == ["% Processor Time", "Available Mbytes", "Free System Page Table Entries",
                          "Transition Pages Repurposed/sec", "Pool Non-paged Bytes", "Pool Paged Bytes",
                          "Database Page Fault Stalls/sec"]
    assert rows["% Processor Time"] == Spread(average=20.0, minimum=10.0, maximum=30.0)
    assert rows["Database Page Fault Stalls/sec"] == Spread(average=3.0, minimum=0.0, maximum=6.0)
    # another system: no Windows rows; a result of an earlier schema: the stalls' average only; a scan: no stalls
    elsewhere = HostPerformance.of([HostFigures(cpu_percent=5.0)], [])
    assert [name for name, _ in elsewhere.rows(0.5)] == ["% Processor Time", "Available Mbytes",
                                                         "Database Page Fault Stalls/sec"]
    assert dict(elsewhere.rows(0.5))["Database Page Fault Stalls/sec"] == Spread(average=0.5)
    assert [name for name, _ in elsewhere.rows(None)] == ["% Processor Time", "Available Mbytes"]


@pytest.mark.parametrize("stalls", [[], [1.0]])
def test_a_spread_of_nothing_is_empty(stalls):
    assert HostPerformance.of([], stalls).cpu_percent == Spread()
