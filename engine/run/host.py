"""Facts about the host and its load during a run (psutil)."""

from __future__ import annotations

import platform
import socket
import sys
from datetime import datetime

import psutil

from engine.io.platform.pdh import MemoryCounters
from engine.version import TOOL_NAME, __version__


def host_info() -> dict[str, object]:
    memory = psutil.virtual_memory()
    return {
        "machine_name": socket.gethostname(),
        "operating_system": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "logical_processors": psutil.cpu_count(logical=True) or 1,
        "memory_bytes": int(memory.total),
        "python": sys.version.split()[0],
        "tool": TOOL_NAME,
        "tool_version": __version__,
        "utc_offset": utc_offset(),
    }


def utc_offset() -> str:
    """This machine's offset from UTC now, as +HH:MM."""
    offset = datetime.now().astimezone().strftime("%z")  # +0100
    return f"{offset[:3]}:{offset[3:]}" if len(offset) == 5 else ""


def memory_counters() -> MemoryCounters | None:
    """Windows's memory counters (engine.io.platform.pdh); None on any other system, or where they cannot be read."""
    if sys.platform != "win32":
        return None
    try:
        return MemoryCounters()
    except OSError:
        return None


class HostSampler:
    """CPU % since the previous sample and available memory, once per interval; on Windows, Jetstress's four memory
    counters beside them."""

    def __init__(self) -> None:
        psutil.cpu_percent(interval=None)  # prime: the first reading is measured from here
        self.counters = memory_counters()

    def sample(self) -> dict[str, float | None]:
        return {"cpu_percent": float(psutil.cpu_percent(interval=None)),
                "available_memory_mb": psutil.virtual_memory().available / (1024 * 1024),
                **(self.counters.read() if self.counters is not None else {})}
