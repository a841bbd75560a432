"""A load sweep on the simulated device, as auto-tune's first run makes it: its events and its result."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from engine.model.config import TestConfig, default_config
from engine.results.schema import RunResult
from engine.run.sinks import fan_out
from engine.run.sources.model import PROFILES, runner_for
from engine.run.sweep import plan_sweep
from engine.store.recorder import RunRecorder
from engine.store.sqlite import Store
from engine.tuning.tuner import Tuner

PROFILE = {"mailboxes": 1100, "iops_per_mailbox": 0.12, "headroom_percent": 0, "mailbox_size_mb": 500}


@dataclass
class SimulatedSweep:
    config: TestConfig  # at the sweep's first setting
    events: list[object]
    result: RunResult
    tuner: Tuner  # the auto-tune the sweep is the first run of, its result recorded


def simulated_sweep(folder: Path, store: Store | None = None, session: str = "sweep") -> SimulatedSweep:
    """Auto-tune's first run (a load sweep) on two simulated 7,200 rpm disks: its latency limit lies a few steps up."""
    config = default_config(folder / "data", databases=1, profile=PROFILE, seed=11)
    tuner = Tuner(config, [], device="sata-2x7k", cpu_count=2)
    first = tuner.next_run()
    assert first is not None and tuner.next_sweep() is not None
    events: list[object] = []
    emit = events.append if store is None else fan_out(RunRecorder(store, session, folder / "sweep"), events.append)
    result = runner_for(PROFILES["sata-2x7k"], first, folder / "sweep", emit, sweep=plan_sweep(first, 2),
                        session=session).run()
    tuner.record(result)
    return SimulatedSweep(first, events, result, tuner)
