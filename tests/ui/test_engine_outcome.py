"""How an engine process ended, in words: the window shows `str(outcome)`."""

from __future__ import annotations

from engine.protocol import ExitCode
from ui.controllers.engine_process import EngineOutcome


def test_every_ending_reads_as_a_sentence():
    assert str(EngineOutcome(0, False, None)) == "the engine passed (exit code 0)"
    assert str(EngineOutcome(2, False, None)) == "the engine refused the configuration (exit code 2)"
    assert EngineOutcome(ExitCode.INVALID, False, None).refused
    assert str(EngineOutcome(None, True, None)) == "the engine was killed or crashed after Stop (it did not end in time)"
    assert str(EngineOutcome(None, False, None)) == "the engine was killed or crashed"
    assert str(EngineOutcome(None, False, None, started=False)) == "the engine could not start"
    assert str(EngineOutcome(7, False, None)) == "the engine ended unexpectedly (exit code 7)"
