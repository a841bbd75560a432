"""A load sweep in lockstep, as each server of a sweep across servers runs it: fixed windows, its record to the lead,
its load until the lead's word (the test's own `SweepWord`, here with this run as its only server)."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

from engine.model.config import TestConfig, default_config
from engine.protocol import LogEvent
from engine.results.document import read_samples
from engine.results.sweep_schema import SweepStep
from engine.run.gate import Told
from engine.run.sources.model import PROFILES, runner_for
from engine.run.sources.sweep_word import GAP_S, SweepWord
from engine.run.sweep import SweepPlan, plan_sweep

SATA = PROFILES["sata-2x7k"]


def _config(tmp_path: Path) -> TestConfig:
    return default_config(tmp_path, databases=1, seed=11, profile={"mailboxes": 1100, "iops_per_mailbox": 0.12,
                                                                    "headroom_percent": 0, "mailbox_size_mb": 500})


class OneServerLead:
    """The test's lead with this run as its only server; `late` words name a sample already run."""

    def __init__(self, plan: SweepPlan, interval_s: float, late: bool = False) -> None:
        self.word, self.late = SweepWord(), late
        self.word.begin(plan, interval_s, lambda _step, _told: None)
        self.gap = max(1, math.ceil(GAP_S / interval_s - 1e-9))
        self.words: dict[int, Told] = {}

    def measured(self, record: SweepStep) -> None:
        self.word.measured(record)
        told = self.word.told(record.step + 1)
        assert told is not None
        self.words[record.step + 1] = Told(record.last_interval, told.load, told.end) if self.late else told

    def told(self, step: int) -> Told | None:
        return self.words.get(step)


def test_a_sweep_in_lockstep_judges_fixed_windows_and_steps_at_the_sample_its_lead_names(tmp_path):
    config = _config(tmp_path)
    plan = plan_sweep(config, 2)
    leader = OneServerLead(plan, config.sample_interval_s)
    result = runner_for(SATA, config, tmp_path / "run", lambda _e: None, sweep=plan, lead=leader).run()
    sweep = result.sweep
    assert sweep is not None and len(sweep.steps) >= 3
    samples = read_samples(tmp_path / "run")
    for number, step in enumerate(sweep.steps):
        mine = [s for s in samples if s.step == step.step]
        settle = plan.warmup if number == 0 else plan.min_settle
        # a fixed window on every server: the same settling, the same judged samples, however the latency moves
        assert [s.phase for s in mine if s.interval <= step.last_interval] == (
            ["warmup"] * settle + ["measure"] * plan.settle.measure_samples)
        if number:
            before = sweep.steps[number - 1]
            assert step.first_interval == before.last_interval + 1 + leader.gap  # the sample the word named
            between = [s for s in samples if before.last_interval < s.interval < step.first_interval]
            # between a step's last judged sample and the next step: its load runs on, judged by no step
            assert [(s.phase, s.threads) for s in between] == [("warmup", before.threads)] * leader.gap
    # the lead chose every step and the end: the sweep alone would have chosen the same from these records
    assert [(s.threads, s.sluggish_sessions) for s in leader.word.records] == [
        (s.threads, s.sluggish_sessions) for s in sweep.steps]
    last = leader.told(len(sweep.steps))
    assert last is not None and sweep.end == last.end and sweep.end is not None and sweep.end.why != "stopped"
    assert any(s.settled for s in sweep.steps)  # whether a step's fixed settling settled it is said, not waited for
    assert len(samples) == sweep.steps[-1].last_interval + 1 + leader.gap  # it ended at the sample the word named


def test_a_word_that_comes_after_its_sample_is_followed_at_once_and_said(tmp_path):
    config = _config(tmp_path)
    plan = plan_sweep(config, 2)
    events = []
    lead = OneServerLead(plan, config.sample_interval_s, late=True)
    result = runner_for(SATA, config, tmp_path / "run", events.append, sweep=plan, lead=lead).run()
    steps = result.sweep.steps
    assert len(steps) >= 2 and all(b.first_interval == a.last_interval + 2 for a, b in itertools.pairwise(steps))
    late = [e.message for e in events if isinstance(e, LogEvent) and "after the sample it named" in e.message]
    assert len(late) == len(steps), late  # each word, the end's too
    assert "the word to end the sweep came" in late[-1]
