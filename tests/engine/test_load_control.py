"""The load changes inside a run: the workers follow a new thread count and SluggishSessions from the next transaction.

This is what a load sweep steps through. The run is real; the load asked for is extreme
(one thread of four, SluggishSessions 1,000), so its effect is orders of magnitude, not a timing.
"""

from __future__ import annotations

import threading

from engine.run.runner import Runner
from engine.run.sources import pool
from engine.workload.load import LoadControl, share
from tests.conftest import small_config


def _reads_per_s(base, name, monkeypatch, load=None):
    if load is not None:
        original = pool.WorkerProcesses.let_go

        def let_go_with_load(self, t0_ns):
            self.set_load(*load)  # asked for before the clocks start: the whole run runs at it
            original(self, t0_ns)

        monkeypatch.setattr(pool.WorkerProcesses, "let_go", let_go_with_load)
    config = small_config(base / name, thread_count=4)
    result = Runner(config, base / f"{name}-out", lambda _event: None).run()
    monkeypatch.undo()
    return result.summary.db_reads_per_s + result.summary.db_writes_per_s


def test_a_run_follows_the_load_asked_for_while_it_runs(disk_dir, monkeypatch):
    full = _reads_per_s(disk_dir, "full", monkeypatch)
    slowed = _reads_per_s(disk_dir, "slowed", monkeypatch, load=(2, 1000))
    assert full > 0
    assert slowed < full / 20, f"{slowed:.1f} I/O per s at 2 threads and SluggishSessions 1000 against {full:.1f}"


def test_threads_beyond_the_active_count_wait_until_the_load_grows_or_the_run_stops():
    control, stop = LoadControl(active=1, sluggish=1), threading.Event()
    waiting = threading.Thread(target=control.wait_turn, args=(1, stop))
    waiting.start()
    waiting.join(0.3)
    assert waiting.is_alive()  # thread 2 of 1 active waits
    control.set(2, 3)
    waiting.join(5)
    assert not waiting.is_alive() and control.sluggish == 3
    control.set(1, 1)
    stopped = threading.Thread(target=control.wait_turn, args=(1, stop))
    stopped.start()
    stop.set()
    stopped.join(5)
    assert not stopped.is_alive()


def test_a_thread_count_is_shared_over_the_databases_as_the_configuration_shares_it():
    assert [share(5, 2, i) for i in range(2)] == [3, 2]
    assert [share(4, 4, i) for i in range(4)] == [1, 1, 1, 1]
