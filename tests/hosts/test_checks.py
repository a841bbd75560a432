"""The checks a server's message meets beyond its schema: its kind's size and number of values before it is validated,
a sample against the test's intervals as the controller runs them, and a peer's words as a line shows them."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine.hosts.checks import SampleCheck, out_of_range, shown
from engine.hosts.messages import (
    KIND_VALUES,
    VALUES_EACH_TEST,
    Ended,
    MalformedError,
    PartEvent,
    from_agent,
    most_values,
    sniffed,
)
from engine.protocol import IntervalEvent
from engine.results.sample_schema import IntervalSample
from engine.results.schema import RunResult


def _sample(interval: int, duration_s: float = 1.0, instances: tuple[str, ...] = ("Instance 1",)) -> IntervalSample:
    return IntervalSample.model_validate({"interval": interval, "phase": "measure", "elapsed_s": interval + 1.0,
                                          "duration_s": duration_s, "instances": {name: {} for name in instances}})


def test_a_peer_s_words_are_shown_with_every_control_character_visible_and_bounded():
    assert shown("ready\n12:00 -- 127.0.0.2: databases ready") == "ready\\n12:00 -- 127.0.0.2: databases ready"
    assert shown("a\x1b[2Jb\r") == "a\\x1b[2Jb\\r"
    long = shown("h" * 4 * 1024 * 1024)
    assert long.startswith("h" * 300 + "…") and "4,194,004 more characters" in long and len(long) < 400


def test_a_figure_out_of_range_is_found_where_it_is():
    assert out_of_range({"server": {"streams": {"db_read": {"count": 3, "sum_ns": 9}}}}) is None
    assert out_of_range({"host": {"cpu_percent": float("nan")}}) == "host.cpu_percent is nan"
    assert out_of_range({"instances": {"Instance 1": {"cache": [1, -4]}}}) == "instances.Instance 1.cache[1] is -4"
    assert out_of_range({"x": float("inf")}) == "x is inf"


def test_a_sample_fits_the_test_only_in_its_turn_its_time_and_its_length():
    check = SampleCheck(interval_s=1.0, total_intervals=10, real_time=True, started_at=1000.0)
    ours = {"Instance 1"}
    fits = check.problem(_sample(0), after=-1, short_s=None, instances=ours, now=1001.3)
    assert fits is None
    assert "which the test does not have (it has 10)" in check.problem(_sample(10), after=-1, short_s=None,
                                                                      instances=ours, now=2000.0)
    assert "after one for interval 3" in check.problem(_sample(3), after=3, short_s=None, instances=ours, now=1010.0)
    assert "before that interval ends" in check.problem(_sample(5), after=0, short_s=None, instances=ours, now=1002.0)
    assert "a sample 5.0 s long for an interval of 1 s" in check.problem(_sample(1, 5.0), after=0, short_s=None,
                                                                        instances=ours, now=1003.0)
    assert "naming instance Instance 9" in check.problem(_sample(1, instances=("Instance 9",)), after=0, short_s=None,
                                                         instances=ours, now=1003.0)
    assert "after one 0.4 s long" in check.problem(_sample(2), after=1, short_s=0.4, instances=ours, now=1004.0)
    # a simulated device plays its run ahead of time: not held to the clock
    ahead = SampleCheck(interval_s=1.0, total_intervals=10, real_time=False, started_at=1000.0)
    assert ahead.problem(_sample(5), after=4, short_s=None, instances=ours, now=1000.5) is None
    # the test's timing is the controller's: an interval is its length, the last up to the stop
    assert check.duration_s(3, None) == 1.0 and check.duration_s(3, 1003.25) == pytest.approx(0.25)


def test_a_message_past_its_kind_s_size_or_number_of_values_is_refused_before_it_is_validated():
    with pytest.raises(MalformedError, match="a 'hello' of 9,044 bytes, where one is at most 8,192"):
        sniffed(json.dumps({"kind": "hello", "host": "h" * 9000, "protocol": 1}))
    # a sample with 800,000 schema errors in 1.6 MB: refused by its count of values, not by 800,000 errors
    junk = json.dumps({"kind": "event", "test_id": "t", "event": {"event": "interval", "sample": {
        "interval": 0, "phase": "measure", "elapsed_s": 1, "duration_s": 1, "instances": {"x": [0] * 800_000}}}})
    with pytest.raises(MalformedError, match=f"more than {KIND_VALUES['event']:,} values"):
        from_agent(junk)
    with pytest.raises(MalformedError, match=re.escape("not the link's (a 'exec', which no agent sends)")):
        sniffed('{"kind": "exec", "code": "import os"}')
    with pytest.raises(MalformedError, match=re.escape("not the link's (not JSON)")):
        sniffed("{")
    honest = PartEvent(test_id="t", event=IntervalEvent(sample=_sample(0).model_copy(
        update={"time_utc": datetime.now(UTC)})))
    assert from_agent(honest.model_dump_json()) == honest
    assert from_agent(honest.model_dump_json(), instances=1) == honest


def test_a_server_in_the_test_is_held_to_the_values_its_databases_can_have():
    """A result of 400,000 bad rows in 6 MB cost 4.5 GB and 31 s of errors to validate; from a server of two databases
    anything past 11,000 values is refused unread, and a real tune's result of 8 databases passes."""
    rows = [{"x": i} for i in range(VALUES_EACH_TEST)]
    junk = json.dumps({"kind": "ended", "test_id": "t", "result": {"instances": rows}})
    with pytest.raises(MalformedError, match=re.escape("more than 11,000 values, where one from a server of 2 databases "
                                                       "in the test has fewer")):
        from_agent(junk, instances=2)
    assert most_values("ended", 2) == 11_000 and most_values("ended", 10_000) == KIND_VALUES["ended"]
    assert most_values("hello", 2) == KIND_VALUES["hello"]
    result = json.loads((Path(__file__).parents[1] / "data" / "tune-result-8-databases.json").read_text())
    real = Ended(test_id="t", result=RunResult.model_validate(result)).model_dump_json()
    assert from_agent(real, instances=8).kind == "ended"
