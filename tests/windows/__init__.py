"""The Windows lane: tests a Windows Python runs, calling the real kernel32 (under Wine here: `bash .ci/wine/lane.sh`).

Elsewhere they are skipped; what needs no Windows is tested beside the code it covers (tests/engine/test_kernel32.py,
tests/faults/test_windows_lifetime.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def windows_only() -> pytest.MarkDecorator:
    """A lane module's mark; elsewhere the whole module is skipped, in one line."""
    if sys.platform != "win32":
        pytest.skip("the Windows lane runs it: bash .ci/wine/lane.sh", allow_module_level=True)
    return pytest.mark.windows


def under_wine() -> bool:
    """Whether this Windows is Wine (its ntdll exports wine_get_version)."""
    if sys.platform != "win32":
        return False
    import ctypes

    return hasattr(ctypes.WinDLL("ntdll"), "wine_get_version")
