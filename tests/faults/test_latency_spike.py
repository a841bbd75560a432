"""A single stalled read, as a paused virtual machine makes one: the Strict maximum fails, and the result, the report,
the console and a kill's rebuilt result all say it was one sample of many, when it came and how high it went."""

from __future__ import annotations

import io
import sys

import pytest

from app.cli.console import print_result
from engine.model.config import default_config
from engine.protocol import IntervalEvent
from engine.results.document import read_samples
from engine.run.runner import Runner
from engine.run.samples import rebuild_result
from reporting.bundle import load_run
from reporting.document import render_html
from tests.reporting.reading import html_text

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the stalled device is built on the POSIX backend")

STALL_MS = 250.0  # well over the Strict 100 ms maximum, whatever the disk does besides


def test_one_stalled_read_fails_the_maximum_and_every_view_says_when_and_that_it_was_one(tmp_path):
    from tests.faults.stalled_device import StalledDevice

    for name in ("DB1", "Log1"):
        (tmp_path / name).mkdir()
    config = default_config(tmp_path, databases=1, profile={"mailboxes": 20, "mailbox_size_mb": 1, "iops_per_mailbox": 1.0},
                            duration_s=6.0, warmup_s=1.0, database_cache_min_mb=1, database_cache_max_mb=2,
                            background_maintenance=False)
    ask = tmp_path / "stall"

    def emit(event: object) -> None:
        if isinstance(event, IntervalEvent) and event.sample.phase == "measure":
            ask.touch()  # measuring: the next database read stalls, once

    result = Runner(config, tmp_path / "run", emit, backend=StalledDevice(ask, STALL_MS)).run()

    assert (tmp_path / "stall.done").exists(), "the device stalled a read"
    assert result.summary.verdict == "fail"
    assert any("maximum database read latency" in r and "(Strict)" in r for r in result.summary.reasons)
    [spike] = result.summary.latency_spikes  # database reads only: the log writes were never held
    measured = round(result.summary.measured_s)
    assert spike.startswith("Database reads took longer than the Strict maximum of 100 ms in ")
    assert f" of the {measured} measured one-second samples, " in spike and " UTC, " in spike
    highest = float(spike.split("; ")[1].split(" ms at most")[0].replace(",", ""))
    assert highest >= STALL_MS
    if " in 1 of the " in spike:  # the disk itself stayed under the maximum every other second: one spike
        assert "run the test again before judging the storage on it" in spike

    rebuilt = rebuild_result(config, read_samples(tmp_path / "run"), result.run_id, "the engine process ended")
    assert rebuilt.summary.latency_spikes == result.summary.latency_spikes  # a kill's result says the same

    console = io.StringIO()
    print_result(result, console)
    assert f"    When: {spike}." in console.getvalue()
    page = html_text(render_html(load_run(str(tmp_path / "run"))))
    assert "Latency Spikes" in page and spike in page
