"""The load sweep's planner on every simulated storage profile: it brackets the latency limit in a few steps,
and the capacity it names is within 10 % of an exhaustive sweep of the same storage."""

from __future__ import annotations

import itertools

import pytest

from engine.model.config import TestConfig, default_config
from engine.model.derive import default_thread_count
from engine.run.sources.model import PROFILES
from engine.run.sweep import MAX_STEPS, Load, Step, Sweep, ladder
from engine.tuning.curve import choose
from tests.engine.steady import steady_iops

DATABASES = 2
LOADS = ladder(DATABASES, max_threads=64, max_sluggish=20)


def _base(tmp_path) -> TestConfig:
    return default_config(tmp_path, databases=DATABASES, profile={"mailboxes": 500, "mailbox_size_mb": 100})


def _measure(model, base: TestConfig, load: Load) -> Step:
    config = TestConfig.model_validate(base.model_dump() | {"thread_count": load.threads, "sluggish_sessions": load.sluggish})
    iops, point = steady_iops(model, config)
    limits = config.thresholds.strict
    return Step(load, iops, point.read_ms <= limits.db_read_avg_latency_ms and point.log_ms <= limits.log_write_avg_latency_ms)


def _sweep(model, base: TestConfig, start: Load) -> list[Step]:
    sweep, steps = Sweep(LOADS, start), []
    while (load := sweep.next_load(steps)) is not None:
        steps.append(_measure(model, base, load))
    return steps


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_the_sweep_brackets_the_limit_and_names_the_capacity_an_exhaustive_sweep_finds(tmp_path, name):
    model, base = PROFILES[name], _base(tmp_path)
    everything = [_measure(model, base, load) for load in LOADS]
    best = max((s.iops for s in everything if s.latency_ok), default=None)
    start = Load(default_thread_count(base.target_transactional_iops, DATABASES), 1)
    steps = _sweep(model, base, start)
    assert 1 <= len(steps) <= MAX_STEPS
    assert len({s.load for s in steps}) == len(steps), "a load was measured twice"
    low, high = Sweep(LOADS, start).bracket(steps)
    if high is not None and low is not None:
        assert high - low == 1, f"bracket {LOADS[low]}..{LOADS[high]} not closed in {len(steps)} steps"
    answer = choose(steps, target_iops=10 * (best or 1), loads=LOADS)  # out of reach: what does it carry?
    assert not answer.reachable
    if best is None:
        assert answer.max_passing_iops is None
    else:
        assert answer.max_passing_iops == pytest.approx(best, rel=0.10)


@pytest.mark.parametrize("name", sorted(PROFILES))
def test_a_reachable_target_is_met_by_the_chosen_load_and_never_beyond_the_measured_ones(tmp_path, name):
    model, base = PROFILES[name], _base(tmp_path)
    start = Load(default_thread_count(base.target_transactional_iops, DATABASES), 1)
    steps = _sweep(model, base, start)
    passing = [s for s in steps if s.latency_ok]
    if not passing:
        pytest.skip(f"{name}: no load keeps the thresholds")
    target = 0.8 * max(s.iops for s in passing)
    answer = choose(steps, target, LOADS)
    assert answer.reachable and answer.load is not None
    assert answer.basis is not None
    assert answer.basis.words.startswith(("the lightest passing step", "interpolated between the measured steps"))
    heaviest = max(s.load.effective for s in passing)
    assert answer.load.effective <= heaviest
    confirmed = _measure(model, base, answer.load)  # the confirmation run
    assert confirmed.latency_ok and confirmed.iops >= 0.95 * target


def test_steps_are_chosen_toward_the_limit_from_both_sides():
    loads = ladder(1, max_threads=32, max_sluggish=4)
    sweep = Sweep(loads, Load(4, 1))
    first = sweep.next_load([])
    assert first == Load(4, 1)
    up = sweep.next_load([Step(first, 100, True)])
    assert up is not None and up.effective > first.effective  # passing: heavier
    down = sweep.next_load([Step(first, 100, False)])
    assert down is not None and down.effective < first.effective  # failing: lighter
    between = sweep.next_load([Step(Load(4, 1), 100, True), Step(Load(16, 1), 150, False)])
    assert between is not None and 4 < between.threads < 16
    assert sweep.next_load([Step(Load(5, 1), 100, True), Step(Load(6, 1), 110, False)]) is None  # neighbours
    filled = sweep.next_load([Step(Load(4, 1), 100, True), Step(Load(5, 1), 110, False)])
    assert filled == Load(9, 2)  # 4 to 5 threads is 25 % more load: 9 threads at SluggishSessions 2 lies between


def test_the_ladder_rises_strictly_and_fills_wide_gaps_with_few_sluggish_sessions():
    for databases in (1, 2, 4, 24):
        loads = ladder(databases, max_threads=64, max_sluggish=100)
        efforts = [load.effective for load in loads]
        assert efforts == sorted(set(efforts)), "the ladder rises strictly"
        assert all(load.threads >= databases for load in loads), "at least one thread per database"
        wide = [(a, b) for a, b in itertools.pairwise(loads) if b.effective > a.effective * 1.26]
        assert not wide, f"{databases} databases: gaps {wide}"
        assert all(load.sluggish <= 8 for load in loads if load.threads > databases)


def test_a_host_bound_step_that_kept_the_thresholds_ends_the_ladder_at_it_as_a_lower_bound():
    loads = ladder(1, max_threads=32, max_sluggish=4)
    sweep = Sweep(loads, Load(4, 1))
    steps = [Step(Load(4, 1), 100, True), Step(Load(16, 1), 300, True, host_bound=True)]
    assert sweep.next_load(steps) is None  # the host drives no more: no heavier step, and the storage carried 300
    chosen = choose(steps, 250, loads)
    assert chosen.max_passing_iops == 300 and chosen.reachable  # at least 300 within the thresholds: the target's met
    assert chosen.load is not None and chosen.load.threads <= 16


def test_a_host_bound_step_that_broke_a_threshold_ends_the_ladder_below_it():
    loads = ladder(1, max_threads=32, max_sluggish=4)
    sweep = Sweep(loads, Load(4, 1))
    steps = [Step(Load(4, 1), 100, True), Step(Load(16, 1), 300, False, host_bound=True)]
    heavier = sweep.next_load(steps)
    assert heavier is not None and 4 < heavier.threads < 16  # its latency is the host's: not a ceiling, nor a pass
    steps.append(Step(Load(15, 1), 290, True))
    assert sweep.next_load(steps) is None  # everything below the host bound passes: nothing more to learn
    assert choose(steps, 1000, loads).max_passing_iops == 290


def test_a_sweep_with_only_host_bound_passing_steps_does_not_descend():
    """A busy host: the first step at Microsoft's rule kept the thresholds with the CPU saturated. The sweep used to
    walk down to 2 threads / SluggishSessions 20 looking for a load the host does not saturate."""
    loads = ladder(2, max_threads=160, max_sluggish=100)
    sweep = Sweep(loads, Load(27, 1))
    steps = [Step(Load(27, 1), 8339, True, host_bound=True)]
    assert sweep.next_load(steps) is None
