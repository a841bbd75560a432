"""How the checks start a program: Wine's passing CreateProcess failure is tried again, nothing else is."""

from __future__ import annotations

import subprocess

import pytest

from tests.frozen import programs


def _failing(winerror: int, times: int):
    calls: list[list[str]] = []

    def popen(command, **_options):
        calls.append(command)
        if len(calls) <= times:
            error = OSError("CreateProcess failed")
            error.winerror = winerror  # type: ignore[attr-defined]
            raise error
        return subprocess.CompletedProcess(command, 0)

    return popen, calls


def test_a_launch_wine_failed_internally_is_tried_again(monkeypatch):
    popen, calls = _failing(programs.WINE_INTERNAL_ERROR, times=programs.LAUNCH_TRIES - 1)
    monkeypatch.setattr(programs.subprocess, "Popen", popen)
    assert programs.started(["jetwise", "--help"]).args == ["jetwise", "--help"]
    assert len(calls) == programs.LAUNCH_TRIES


def test_any_other_launch_failure_and_the_last_try_are_raised(monkeypatch):
    popen, calls = _failing(2, times=1)  # ERROR_FILE_NOT_FOUND: not Wine's passing fault
    monkeypatch.setattr(programs.subprocess, "Popen", popen)
    with pytest.raises(OSError):
        programs.started(["jetwise"])
    assert len(calls) == 1
    popen, calls = _failing(programs.WINE_INTERNAL_ERROR, times=programs.LAUNCH_TRIES)
    monkeypatch.setattr(programs.subprocess, "Popen", popen)
    with pytest.raises(OSError):
        programs.started(["jetwise"])
    assert len(calls) == programs.LAUNCH_TRIES
