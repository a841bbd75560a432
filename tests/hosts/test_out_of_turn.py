"""A server in a test across servers that says what the schema accepts out of turn: words but never `ready`, a
creation that creeps, a phase backwards or before the test started, a result before it started. A peer holding the
server's own certificate and key takes its part in the real controller's test (`tests.hosts.hostile.take_part`): each
is refused or lost, said in the test's log, and the test ends with a result naming it. Beside them, a control whose
creation moves in time is lost only for the samples it never sends."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine.hosts import checks
from engine.hosts.controller import Controller
from engine.hosts.messages import Ended, PartEvent, Ready
from engine.hosts.roster import Roster
from engine.model.profile import ServerPart
from engine.protocol import LogEvent, Phase, PhaseEvent, ProgressEvent
from engine.results.document import read_result
from engine.results.schema import Outcome, RunResult
from engine.run.runner import Runner
from engine.run.sources.servers import HostsSource
from tests.conftest import small_config
from tests.hosts.agents import free_port
from tests.hosts.hostile import Heard, stolen, take_part

pytestmark = pytest.mark.slow  # the real controller's test over mutual TLS, its server a hostile peer
THIEF = "127.0.0.3"
MIB = 1 << 20
RESULT = Path(__file__).parent.parent / "data" / "tune-result-8-databases.json"


def _event(test_id: str, event: object) -> str:
    return PartEvent.model_validate({"test_id": test_id, "event": event}).model_dump_json()


def _log(test_id: str, words: str) -> str:
    return _event(test_id, LogEvent(time=datetime.now(UTC), level="warning", message=words))


def _progress(test_id: str, done: int, total: int) -> str:
    return _event(test_id, ProgressEvent(phase=Phase.PREPARING, done_bytes=done, total_bytes=total,
                                         rate_bytes_per_s=1.0, eta_s=None))


def _phase(test_id: str, phase: Phase) -> str:
    return _event(test_id, PhaseEvent(phase=phase, message=phase.value))


def chatty(test_id: str) -> Iterator[tuple[float, str]]:  # words, never ready
    for n in range(1_000):
        yield 0.1, _log(test_id, f"still preparing ({n})")


def creeping(test_id: str) -> Iterator[tuple[float, str]]:  # a creation that moves a byte at a time
    for n in range(1_000):
        yield 0.1, _progress(test_id, n + 1, 16 * MIB)


def backwards(test_id: str) -> Iterator[tuple[float, str]]:
    yield 0.0, _phase(test_id, Phase.PREPARING)
    yield 0.1, _phase(test_id, Phase.VALIDATING)


def measuring_first(test_id: str) -> Iterator[tuple[float, str]]:
    yield 0.0, _phase(test_id, Phase.MEASURING)


def result_first(test_id: str) -> Iterator[tuple[float, str]]:
    result = RunResult.model_validate_json(RESULT.read_text(encoding="utf-8"))
    yield 0.0, Ended(test_id=test_id, result=result).model_dump_json()


def ready_then_silent(test_id: str) -> Iterator[tuple[float, str]]:  # ready, then nothing: its link alive
    yield 0.0, Ready(test_id=test_id).model_dump_json()


def control(test_id: str) -> Iterator[tuple[float, str]]:  # its creation moves 1 MiB each 0.5 s, 4 s in all, then ready
    for n in range(8):
        yield 0.5, _progress(test_id, (n + 1) * MIB, 8 * MIB)
    yield 0.1, Ready(test_id=test_id).model_dump_json()


def _test_with(tmp_path: Path, keys: object, says: object, **overrides: object) -> tuple[RunResult, str, Heard]:
    port = free_port()
    roster = Roster(tmp_path / "hosts", keys)  # type: ignore[arg-type]
    roster.add(THIEF, f"tls://127.0.0.1:{port}", tmp_path)
    thief = stolen(roster, THIEF)
    config = small_config(tmp_path / "databases", sample_interval_s=1.0, warmup_s=1.0, duration_s=4.0, **overrides)
    config = config.model_copy(update={"servers": [ServerPart(host=THIEF, databases=config.databases)]})
    heard: list[Heard] = []
    with Controller(roster, host="127.0.0.1", port=port) as controller:
        peer = threading.Thread(target=lambda: heard.append(
            take_part(f"tls://127.0.0.1:{port}", roster.file.authority_pem, thief, THIEF, says)), daemon=True)  # type: ignore[arg-type]
        peer.start()
        controller.wait_for([THIEF], timeout_s=30)
        output = tmp_path / "test"
        result = Runner(config, output, lambda _event: None, source=HostsSource(controller)).run()
    peer.join(timeout=60)  # its link closed with the controller
    assert read_result(output).summary.verdict == result.summary.verdict  # the result it left in its run folder
    return result, (output / "test.log").read_text(encoding="utf-8"), heard[0]


CASES = {
    "chatty": ("lost", "its databases' creation did not move 16 MiB in 2 s, and it is not ready"),
    "creeping": ("lost", "its databases' creation did not move 16 MiB in 2 s, and it is not ready"),
    "backwards": ("refused", "a phase 'validating' after 'preparing' (a part's phases go forward)"),
    "measuring_first": ("refused", "a phase 'measuring' before the test started"),
    "result_first": ("refused", "a result before the test started"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_server_that_speaks_out_of_turn_is_refused_or_lost_and_the_test_ends_naming_it(
        tmp_path, keys, monkeypatch, case):
    monkeypatch.setattr(checks, "READY_QUIET_S", 2.0)
    result, log, heard = _test_with(tmp_path, keys, globals()[case])
    how, why = CASES[case]
    assert result.summary.verdict == Outcome.ABORTED
    assert any(f"{THIEF} was {how} (" in reason and why in reason for reason in result.summary.reasons), \
        result.summary.reasons
    [share] = result.servers
    assert share.end == ("lost" if how == "lost" else "rejected") and share.ended == why
    assert why in log
    if how == "refused":  # and told so, its link closed
        assert heard.code == 1008 and why in heard.reason, heard


def test_a_server_whose_creation_moves_is_not_lost_for_it_however_long_it_takes(tmp_path, keys, monkeypatch):
    monkeypatch.setattr(checks, "READY_QUIET_S", 2.0)
    monkeypatch.setattr(checks, "READY_STEP_BYTES", MIB)
    result, log, _heard = _test_with(tmp_path, keys, control)
    assert "databases ready" in log and "creation did not move" not in log  # 4 s of creation, 2 s of quiet allowed
    [share] = result.servers  # then it sent no sample: lost for that, after the test started
    assert share.end == "lost" and share.ended.startswith("it sent no sample for interval 0"), share


def test_a_server_whose_scan_moves_nothing_once_the_test_started_is_lost(tmp_path, keys, monkeypatch):
    """A Database Checksum's part ends when its reading is done, in its own time: it is working only while its samples
    come or its progress moves, so one that says it is ready and then nothing, its link alive, is lost."""
    monkeypatch.setattr(checks, "READY_QUIET_S", 2.0)
    result, log, _heard = _test_with(tmp_path, keys, ready_then_silent, test_type="database_checksum")
    why = "its scan or replay moved nothing for 2 s: no sample, and no progress"
    [share] = result.servers
    assert result.summary.verdict == Outcome.ABORTED and share.end == "lost" and share.ended == why, share
    assert "the test starts on all of them" in log and why in log
