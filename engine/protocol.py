"""The contract between the engine and its front ends, defined once and imported by both ends.

Exit codes keep their meaning everywhere (every sub-command, the engine process): 0 pass,
1 fail, 2 invalid input, 3 aborted or an error. The engine process speaks the event
protocol on stdout (one JSON event per line, a `HelloEvent` first) and reads the stop
command on stdin.
"""

from __future__ import annotations

from enum import IntEnum

from engine.schema import Outcome

PROTOCOL_VERSION = 1  # the event stream's version; a front end refuses an engine that speaks another
STOP_COMMAND = "stop"  # a line on the engine process's stdin: end the run, keeping what it measured


class ExitCode(IntEnum):
    PASS = 0  # the test passed (or: valid, converged, written)
    FAIL = 1  # the test failed (or: out of reach)
    INVALID = 2  # bad input: a message says where
    ABORTED = 3  # stopped, killed, or an error ended it

    @classmethod
    def of(cls, outcome: Outcome) -> ExitCode:
        return {Outcome.PASS: cls.PASS, Outcome.FAIL: cls.FAIL, Outcome.ABORTED: cls.ABORTED}[outcome]

    def words(self) -> str:
        """What the code says of a run, for people."""
        return {0: "passed", 1: "failed", 2: "refused the configuration", 3: "was stopped or aborted"}[self.value]
