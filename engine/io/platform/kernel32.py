"""Every kernel32 function Jetwise calls, declared once with its Win32 signature.

Without `restype` and `argtypes` ctypes passes and returns C ints: a 64-bit HANDLE is cut to
32 bits, and the pseudo-handle of `GetCurrentProcess()` ((HANDLE)-1) reaches the next call as
0x00000000FFFFFFFF, which names no process (Windows error 6, the invalid handle). So nothing
calls kernel32 except through `load()`, which declares everything in `SIGNATURES` first.

The types are chosen by size, not from `ctypes.wintypes`, whose DWORD and BOOL are C longs:
8 bytes on 64-bit Linux, where the structures and signatures are tested with a stand-in.
"""

from __future__ import annotations

import ctypes
import functools
from typing import Any

DWORD = ctypes.c_uint32
BOOL = ctypes.c_int32
HANDLE = ctypes.c_void_p
LPVOID = ctypes.c_void_p
LPCWSTR = ctypes.c_wchar_p
LPDWORD = ctypes.POINTER(DWORD)
PBOOL = ctypes.POINTER(BOOL)

# PHANDLER_ROUTINE: BOOL WINAPI HandlerRoutine(DWORD dwCtrlType), called on a thread Windows makes.
HANDLER_ROUTINE = getattr(ctypes, "WINFUNCTYPE", ctypes.CFUNCTYPE)(BOOL, DWORD)

# name: (restype, argtypes). OVERLAPPED* and the job's information are passed as void pointers
# (ctypes.byref of the structure), so this module needs none of the structures.
SIGNATURES: dict[str, tuple[Any, list[Any]]] = {
    # files (engine.io.platform.windows)
    "CreateFileW": (HANDLE, [LPCWSTR, DWORD, DWORD, LPVOID, DWORD, DWORD, HANDLE]),
    "ReadFile": (BOOL, [HANDLE, LPVOID, DWORD, LPDWORD, LPVOID]),
    "WriteFile": (BOOL, [HANDLE, LPVOID, DWORD, LPDWORD, LPVOID]),
    "FlushFileBuffers": (BOOL, [HANDLE]),
    "CloseHandle": (BOOL, [HANDLE]),
    "GetDiskFreeSpaceW": (BOOL, [LPCWSTR, LPDWORD, LPDWORD, LPDWORD, LPDWORD]),
    # a run's lifetime (engine.io.platform.lifetime)
    "CreateJobObjectW": (HANDLE, [LPVOID, LPCWSTR]),
    "SetInformationJobObject": (BOOL, [HANDLE, ctypes.c_int, LPVOID, DWORD]),
    "AssignProcessToJobObject": (BOOL, [HANDLE, HANDLE]),
    "IsProcessInJob": (BOOL, [HANDLE, HANDLE, PBOOL]),
    "GetCurrentProcess": (HANDLE, []),
    "SetConsoleCtrlHandler": (BOOL, [HANDLER_ROUTINE, BOOL]),
}


def declare(library: Any, signatures: dict[str, tuple[Any, list[Any]]] = SIGNATURES) -> Any:
    """Give each function of `library` its signature from `signatures` (kernel32's by default); returns the library."""
    for name, (restype, argtypes) in signatures.items():
        function = getattr(library, name)
        function.restype = restype
        function.argtypes = argtypes
    return library


@functools.cache
def load() -> Any:
    """kernel32 with every signature declared: Jetwise's own instance, so no other library's
    declarations (or lack of them) on `ctypes.windll.kernel32` reach it. Windows only."""
    return declare(ctypes.WinDLL("kernel32", use_last_error=True))  # type: ignore[attr-defined]


def last_error() -> int:
    """The Win32 error of the last call through `load()`'s functions (0 off Windows)."""
    get = getattr(ctypes, "get_last_error", None)
    return int(get()) if get is not None else 0
