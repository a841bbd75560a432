"""The Windows memory counters Jetstress logs beside the processor and memory, read through PDH (pdh.dll).

Jetstress's Host System Performance table has Free System Page Table Entries, Transition Pages RePurposed/sec,
Pool Nonpaged Bytes and Pool Paged Bytes from the system's performance counters. `MemoryCounters` adds each by its
English path (`PdhAddEnglishCounterW`, so a German or Japanese Windows is asked the same), collects them once per
sample (a rate is measured between two collections, the first made when it starts) and formats each as a double.

A counter the system does not give (Wine gives none of these four) is left out: its figure is None, never a zero that
was not measured. As with kernel32, every function is declared with its signature before it is called.
"""

from __future__ import annotations

import ctypes
import functools
from typing import Any

from engine.io.platform import kernel32

# The Windows memory counters Jetstress logs beside the processor and memory: field -> the counter's English path.
WINDOWS_MEMORY_COUNTERS = {
    "free_system_ptes": r"\Memory\Free System Page Table Entries",
    "transition_pages_repurposed_per_s": r"\Memory\Transition Pages RePurposed/sec",
    "pool_nonpaged_bytes": r"\Memory\Pool Nonpaged Bytes",
    "pool_paged_bytes": r"\Memory\Pool Paged Bytes",
}
PDH_STATUS = ctypes.c_uint32  # ERROR_SUCCESS (0) or a PDH_* code
DWORD = ctypes.c_uint32
HANDLE = ctypes.c_void_p  # PDH_HQUERY, PDH_HCOUNTER
DWORD_PTR = ctypes.c_size_t
PDH_FMT_DOUBLE = 0x00000200
VALID = (0, 1)  # PDH_CSTATUS_VALID_DATA, PDH_CSTATUS_NEW_DATA


class PDH_FMT_COUNTERVALUE(ctypes.Structure):  # noqa: N801 - the Win32 name
    """DWORD CStatus, then a union of LONG, double, LONGLONG and string pointers: 8-aligned, so at offset 8."""

    _fields_ = [("CStatus", DWORD), ("doubleValue", ctypes.c_double)]


SIGNATURES: dict[str, tuple[Any, list[Any]]] = {
    "PdhOpenQueryW": (PDH_STATUS, [ctypes.c_wchar_p, DWORD_PTR, ctypes.POINTER(HANDLE)]),
    "PdhAddEnglishCounterW": (PDH_STATUS, [HANDLE, ctypes.c_wchar_p, DWORD_PTR, ctypes.POINTER(HANDLE)]),
    "PdhCollectQueryData": (PDH_STATUS, [HANDLE]),
    "PdhGetFormattedCounterValue": (PDH_STATUS, [HANDLE, DWORD, ctypes.POINTER(DWORD),
                                                 ctypes.POINTER(PDH_FMT_COUNTERVALUE)]),
    "PdhCloseQuery": (PDH_STATUS, [HANDLE]),
}


@functools.cache
def load() -> Any:
    """pdh.dll with every signature declared (Windows only)."""
    return kernel32.declare(ctypes.WinDLL("pdh"), SIGNATURES)  # type: ignore[attr-defined]


class MemoryCounters:
    """The four counters, collected at each `read()`; those the system lacks read None."""

    def __init__(self, library: Any | None = None) -> None:
        self._pdh = library if library is not None else load()
        self._query = HANDLE()
        if self._pdh.PdhOpenQueryW(None, 0, ctypes.byref(self._query)) != 0:
            raise OSError("the system's performance counters cannot be queried (PdhOpenQueryW failed)")
        self._counters: dict[str, HANDLE] = {}
        for name, path in WINDOWS_MEMORY_COUNTERS.items():
            counter = HANDLE()
            if self._pdh.PdhAddEnglishCounterW(self._query, path, 0, ctypes.byref(counter)) == 0:
                self._counters[name] = counter
        if self._counters:
            self._pdh.PdhCollectQueryData(self._query)  # a rate's first collection: the next read measures from here

    @property
    def available(self) -> list[str]:
        """The counters this system gives."""
        return list(self._counters)

    def read(self) -> dict[str, float | None]:
        figures: dict[str, float | None] = dict.fromkeys(WINDOWS_MEMORY_COUNTERS)
        if not self._counters or self._pdh.PdhCollectQueryData(self._query) != 0:
            return figures
        for name, counter in self._counters.items():
            value = PDH_FMT_COUNTERVALUE()
            if (self._pdh.PdhGetFormattedCounterValue(counter, PDH_FMT_DOUBLE, None, ctypes.byref(value)) == 0
                    and value.CStatus in VALID):
                figures[name] = float(value.doubleValue)
        return figures

    def close(self) -> None:
        if self._query:
            self._pdh.PdhCloseQuery(self._query)
            self._query = HANDLE()
