"""The advisor: from a session's runs to the next thread count and SluggishSessions.

The model. A session with SluggishSessions s is busy 1/s of the time, so a setting
of t threads puts an effective load of x = t / s threads on the storage. By
Little's law the transfers in flight are X·R (throughput times read latency), and
per effective thread that is a constant c of the workload; so X(x) = c·x / R(x).
Read latency rises with load; it is fitted as the classic single-bottleneck curve
R(x) = sqrt(R0² + (c·x / Xmax)²): flat at R0 while the storage has headroom,
rising in proportion to the load once it is saturated at Xmax transfers/s.

With one run the curve is underdetermined, so the advisor assumes the storage is
not yet saturated when the latency passes (R0 = the measured latency) and that it
is when the latency fails (Xmax = the measured throughput). With two or more runs
both parameters are fitted to the runs (least squares on log latency over a grid).

The next setting is the smallest load predicted to reach the target, with the read
latency predicted under 85 % of its limit. It never repeats a setting that failed
for the same reason, never adds load beyond a setting whose latency failed, and never
removes load below one whose latency passed but missed the target. A target is
declared out of reach only on evidence: a run whose latency failed while its
throughput was still below the target (throughput only falls with less load); a
maximum a stall failed beside low averages is run again before it counts.

A session whose latest run failed on I/O errors gets no setting at all until a later run
measures without any: the advice says first what the storage returned and where.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, TypeVar

from engine.model.config import TestConfig
from engine.model.derive import MICROSOFT_IOPS_PER_THREAD, default_thread_count
from engine.model.validation import cache_design, cache_holds_database
from engine.results.schema import RunResult
from engine.results.verdict import iops_floor
from engine.tuning.carried import Broken, Capacity, Carried
from engine.tuning.curve import curve, read_curve, sweeps_of, swept_most
from engine.tuning.evidence import (
    RunPoint,
    again,
    evidence,
    longer,
    others,
    returned,
    short_retry,
    spike_retry,
    unresolved_errors,
)
from engine.tuning.fit import fit, load_for_iops, load_for_latency
from engine.tuning.host_bound import held_back, host_held, lower_bound
from engine.tuning.most import host_limited, read_most
from engine.tuning.notes import Returned, Stepped, Unused, merged, note_from
from engine.tuning.why import FirstRun, Fitted, FixStorage, LargerThanCache, OutOfReach, Passed, Said, Why, dump, why_from

LATENCY_SAFETY = 0.85  # aim for predicted read latency under this share of its limit
MAX_THREADS_PER_CORE = 32
MAX_SLUGGISH = 100


def advise_session(config: TestConfig, results: Iterable[RunResult | None], cpu_count: int = 1, *, device: str) -> Advice:
    """The advice for `config` on `device` (`RunResult.device`) from a session's results: what every front end and the
    report show. Across servers (`config.servers`) the setting is every server's, and each runs its share of the
    target: the first setting is one server's. It reads the runs of `device` alone, and its first notes say which others
    it set aside and why (`engine.tuning.evidence.others`).

    While the storage's latest I/O errors stand (no later run measured without any), the advice
    is to fix the storage, said first: no setting can be judged on storage that does not
    return what was written. It retries the setting that met them.
    """
    # A Checksum or Backup test reads the databases through once: it says nothing of a load (its own verdict
    # says whether the storage kept what was written). A Soft Recovery's load lasts as long as its logs take to
    # write and ends in a replay: it is judged on its own, not read as a setting to tune from.
    listed, aside = others(config, device, [r for r in results if r is not None and not r.configuration.open_ended])
    advice = _advise(config, listed, cpu_count, device)
    return replace(advice, notes=merged([*aside, *advice.notes]))


def _advise(config: TestConfig, listed: list[RunResult], cpu_count: int, device: str) -> Advice:
    """The advice from the session's runs of `device`."""
    if cache_holds_database(config):  # no setting makes it a test of the storage: what to change instead
        _points, notes = evidence(config, listed, device)
        return Advice("cache_held", config.thread_count, config.sluggish_sessions, None, None, None,
                      LargerThanCache(**cache_design(config)._asdict()), notes=notes)
    broken = unresolved_errors(listed)
    if broken is not None:
        _points, notes = evidence(config, [r for r in listed if r is not broken], device)
        s = broken.summary
        return Advice("io_errors", s.threads, s.sluggish_sessions, None, None, None, FixStorage(), notes=notes,
                      returned=returned(broken))
    points, notes = evidence(config, listed, device)
    if (short := short_retry(listed)) is not None:  # too few seconds to judge: its setting again, for longer
        s = short.summary
        return Advice("next", s.threads, s.sluggish_sessions, None, None, None, longer(short), notes=notes)
    if (stalled := spike_retry(listed)) is not None and not config.seeks_maximum:  # a stall: its setting again
        s, best = stalled.summary, max((p.achieved_iops for p in points if p.latency_passed), default=None)
        return Advice("next", s.threads, s.sluggish_sessions, None, None, None, again(stalled), best, notes=notes)
    if not config.seeks_maximum and not any(p.passed for p in points) and (bound := held_back(listed)) is not None:
        return advise_host_bound(config, bound, listed, points, device)
    if config.seeks_maximum:
        advice = advise_most(config, listed, points, cpu_count)
    elif sweeps_of(listed) and not any(p.passed for p in points):
        advice = advise_from_curve(config, listed, points)
    else:
        advice = advise(config, points, cpu_count)
        if advice.status == "converged" and (most := swept_most(listed, points)) is not None:
            # what the storage carries is the sweep's most within the thresholds, not the passing run's own figure
            advice = replace(advice, max_passing_iops=most.iops,
                             capacity=capacity_of(config, most.iops, at_least=most.host_bound))
    return replace(advice, notes=merged([*notes, *advice.notes]))


def advise_host_bound(config: TestConfig, run: RunResult, results: Sequence[RunResult], points: Sequence[RunPoint],
                      device: str) -> Advice:
    """The host's CPU held the latest run back: no heavier setting, the setting that carried the most, and what the
    session proves of the storage (`engine.tuning.host_bound`). That run is the rationale; the notes are the others'."""
    bound = lower_bound(config, results, points)
    _points, notes = evidence(config, [r for r in results if r is not run], device)
    s = run.summary
    threads, sluggish = (bound.load.threads, bound.load.sluggish) if bound else (s.threads, s.sluggish_sessions)
    return Advice("host_bound", threads, sluggish, None, None, None, host_held(config, run, bound),
                  max_passing_iops=bound.iops if bound else None,
                  capacity=capacity_of(config, bound.iops, at_least=True) if bound else None, notes=notes)


def advise_from_curve(config: TestConfig, results: Sequence[RunResult], points: Sequence[RunPoint]) -> Advice:
    """The advice of a session with a load sweep: the setting its curve supports, or what the storage carries."""
    reading = read_curve(config, curve(results, points))
    load = reading.load
    carried = reading.max_passing_iops
    status: Literal["next", "unreachable"] = "unreachable" if reading.status == "unreachable" else "next"
    return Advice(status, load.threads, load.sluggish, reading.iops, reading.read_ms, reading.log_ms, reading.why,
                  max_passing_iops=carried,
                  capacity=capacity_of(config, carried) if status == "unreachable" and carried else None)


def advise_most(config: TestConfig, results: Sequence[RunResult], points: Sequence[RunPoint], cpu_count: int) -> Advice:
    """The disk throughput scenario's advice: the next run in search of the most that passes, or that most."""
    found = curve(results, points)
    if not found:
        threads, sluggish = starting_setting(config, cpu_count)
        return Advice("start", threads, sluggish, None, None, None, FirstRun(load=(threads, sluggish), sweep=True))
    reading = read_most(config, found, cpu_count)
    load, carried = reading.load, reading.max_passing_iops
    status: Literal["next", "converged", "unreachable"] = "next"
    if reading.status in ("most", "unreachable"):
        status = "converged" if reading.status == "most" else "unreachable"
    capacity = None
    if status == "converged" and carried:
        capacity = capacity_of(config, carried, at_least=host_limited(found, load))
    return Advice(status, load.threads, load.sluggish, reading.iops, reading.read_ms, reading.log_ms, reading.why,
                  max_passing_iops=carried, capacity=capacity)


@dataclass(frozen=True)
class Advice:
    # io_errors: the storage's latest I/O errors stand; the first note says what and where, the rationale what to do
    # host_bound: the host's CPU held the latest run back; the setting is the one that carried the most
    # cache_held: the design is not a test of the storage (its cache serves the reads); the rationale says what to change
    status: Literal["start", "next", "converged", "unreachable", "io_errors", "host_bound", "cache_held"]
    threads: int
    sluggish_sessions: int
    predicted_iops: float | None
    predicted_read_ms: float | None
    predicted_log_ms: float | None
    why: Why
    max_passing_iops: float | None = None
    capacity: Capacity | Said | None = None  # Said: advice kept before capacity was a fact
    notes: list[Unused | Stepped | Said] = field(default_factory=list)  # the runs it cannot learn from, and why
    returned: Returned | Said | None = None  # io_errors: what the storage returned, said first

    @property
    def rationale(self) -> str:
        """Why, in words."""
        return self.why.words

    def said(self) -> dict[str, Any]:
        """The advice in words, for a reader of `jetwise tune --json` beside its facts."""
        return {"why": self.rationale, "capacity": self.capacity.words if self.capacity is not None else None,
                "returned": self.returned.words if self.returned is not None else None,
                "notes": [note.words for note in self.notes]}

    @property
    def lines(self) -> list[str]:
        """What the storage returned (if it did), then the notes, in words: a console's lines."""
        return [*([self.returned.words] if self.returned is not None else []), *(note.words for note in self.notes)]

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "threads": self.threads,
            "sluggish_sessions": self.sluggish_sessions,
            "predicted_iops": self.predicted_iops,
            "predicted_read_ms": self.predicted_read_ms,
            "predicted_log_ms": self.predicted_log_ms,
            "why": dump(self.why),
            "max_passing_iops": self.max_passing_iops,
            "capacity": self.capacity.model_dump(mode="json") if self.capacity is not None else None,
            "notes": [note.model_dump(mode="json") for note in self.notes],
            "returned": self.returned.model_dump(mode="json") if self.returned is not None else None,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Advice:
        """The advice `to_dict` gave (as the store keeps it with a run); kept before its reasons were facts, its words."""
        capacity, notes, returned = data.get("capacity"), list(data.get("notes", [])), None
        if isinstance(data.get("returned"), dict):
            returned = _kept(data["returned"], Returned)
        elif data["status"] == "io_errors" and notes and isinstance(notes[0], str):  # its first note said it
            returned, notes = Said(said=notes[0]), notes[1:]
        return cls(data["status"], int(data["threads"]), int(data["sluggish_sessions"]), data.get("predicted_iops"),
                   data.get("predicted_read_ms"), data.get("predicted_log_ms"),
                   why_from(data["why"] if "why" in data else str(data.get("rationale", ""))),
                   max_passing_iops=data.get("max_passing_iops"),
                   capacity=_kept(capacity, Capacity) if capacity is not None else None,
                   notes=[note_from(note) for note in notes], returned=returned)


_Fact = TypeVar("_Fact", Capacity, Returned)


def _kept(kept: Any, fact: type[_Fact]) -> _Fact | Said:
    """A kept fact of type `fact`, or the words advice kept before it was one (as text, or kept as `Said`)."""
    if isinstance(kept, str):
        return Said(said=kept)
    return Said.model_validate(kept) if kept.get("what") == "said" else fact.model_validate(kept)


def setting_for(load: float, databases: int) -> tuple[int, int]:
    """Threads (at least one per database) and SluggishSessions whose ratio is at or above
    `load`, with the fewest SluggishSessions that come within 10 %."""
    best: tuple[float, int, int] | None = None
    for sluggish in range(1, MAX_SLUGGISH + 1):
        threads = max(databases, math.ceil(load * sluggish - 1e-9))
        error = threads / sluggish / load - 1
        if error <= 0.10:
            return threads, sluggish
        if best is None or error < best[0]:
            best = (error, threads, sluggish)
    assert best is not None
    return best[1], best[2]


def starting_setting(config: TestConfig, cpu_count: int) -> tuple[int, int]:
    """Microsoft's rule of thumb (`default_thread_count`) on one server's target (across servers, each runs the
    setting on its share), within what the host's cores can drive; with no target (the disk throughput scenario), the
    configured setting."""
    if config.seeks_maximum:
        return max(config.database_count, config.thread_count), config.sluggish_sessions
    threads = default_thread_count(config.target_transactional_iops, config.database_count)
    return min(threads, max(config.database_count, MAX_THREADS_PER_CORE * max(1, cpu_count))), 1


def capacity_of(config: TestConfig, iops: float, at_least: bool = False) -> Capacity:
    """What a throughput means in the profile's terms (in the disk throughput scenario: mailboxes at its throughput
    percentage, each at the profile's IOPS per mailbox); `at_least`: the host, not the storage, set the limit."""
    p = config.as_one().profile  # across servers: every server's mailboxes
    share = config.throughput_percent / 100.0 if config.seeks_maximum else 1.0
    planned = not config.seeks_maximum
    return Capacity(iops=iops, at_least=at_least, mailboxes=int(iops * share / (p.iops_per_mailbox * p.headroom_factor)),
                    iops_per_mailbox=p.iops_per_mailbox, headroom_percent=p.headroom_percent,
                    throughput_percent=config.throughput_percent if config.seeks_maximum else None,
                    planned_mailboxes=p.mailboxes if planned else None,
                    per_planned_mailbox=iops / (p.mailboxes * p.headroom_factor) if planned else None)


def advise(config: TestConfig, runs: Sequence[RunPoint], cpu_count: int = 1) -> Advice:
    """The next setting for this design (across servers, each server's: `starting_setting`), or the conclusion."""
    target = config.test_target_iops
    floor = iops_floor(config)
    read_limit = config.active_thresholds.db_read_avg_latency_ms
    databases = config.database_count

    passed = [r for r in runs if r.passed]
    if passed:
        best = min(reversed(passed), key=lambda r: r.load)  # the least load that passed; its latest run
        most = max((r for r in runs if r.latency_passed), key=lambda r: r.achieved_iops)
        return Advice(
            "converged", best.threads, best.sluggish_sessions, best.achieved_iops, best.read_ms, best.log_ms,
            Passed(load=(best.threads, best.sluggish_sessions), iops=best.achieved_iops, target=target,
                   read_ms=best.read_ms),
            max_passing_iops=most.achieved_iops,
            capacity=capacity_of(config, most.achieved_iops, at_least=most.host_bound))
    measured = [r for r in runs if r.achieved_iops > 0 and r.read_ms > 0]
    if not measured:
        servers = max(1, len(config.servers))
        threads, sluggish = starting_setting(config, cpu_count)
        return Advice("start", threads, sluggish, threads * MICROSOFT_IOPS_PER_THREAD * servers, None, None,
                      FirstRun(load=(threads, sluggish), servers=servers))

    latency_passing = [r for r in measured if r.latency_passed]
    proof = [r for r in measured if not r.latency_passed and r.achieved_iops < floor]
    if proof and latency_passing:
        best = max(latency_passing, key=lambda r: r.achieved_iops)
        failed = min(proof, key=lambda r: r.load)
        return Advice(
            "unreachable", best.threads, best.sluggish_sessions, best.achieved_iops, best.read_ms, best.log_ms,
            OutOfReach(target=target,
                       failed=Broken(load=(failed.threads, failed.sluggish_sessions), broke=failed.latency_failure,
                                     iops=failed.achieved_iops),
                       best=Carried(iops=best.achieved_iops, load=(best.threads, best.sluggish_sessions))),
            max_passing_iops=best.achieved_iops,
            capacity=capacity_of(config, best.achieved_iops))

    model = fit(measured)
    # bounds the runs set: no more load than a latency failure, no less than a pass that fell short
    ceiling = min((r.load for r in measured if not r.latency_passed), default=math.inf)
    floor_load = max((r.load for r in measured if r.latency_passed and not r.iops_passed), default=0.0)
    safe_ms = LATENCY_SAFETY * read_limit
    needed = load_for_iops(model, target)
    allowed = load_for_latency(model, safe_ms)
    notes: list[Unused | Stepped | Said] = []
    reaches = needed is not None and needed <= allowed
    if needed is not None and reaches:
        load = needed
        read_ms = model.read_ms(load)
    else:
        load = min(allowed, ceiling * 0.9) if math.isfinite(ceiling) else allowed
        read_ms = safe_ms
    if math.isfinite(ceiling) and load >= ceiling:
        load = (max(floor_load, ceiling / 2) + ceiling) / 2
    if load <= floor_load:
        upper = ceiling if math.isfinite(ceiling) else floor_load * 1.3
        load = min(floor_load * 1.1, (floor_load + upper) / 2)
    threads, sluggish = setting_for(max(load, 1e-3), databases)
    threads, sluggish = _unseen(threads, sluggish, measured, databases, floor_load, ceiling, notes)
    effective = threads / sluggish
    return Advice("next", threads, sluggish, model.iops(effective), model.read_ms(effective), model.log_ms,
                  Fitted(reaches=reaches, read_ms=read_ms, load=(threads, sluggish)),
                  max_passing_iops=max((r.achieved_iops for r in latency_passing), default=None), notes=notes)


def _unseen(threads: int, sluggish: int, runs: Sequence[RunPoint], databases: int, floor_load: float, ceiling: float,
            notes: list[Unused | Stepped | Said]) -> tuple[int, int]:
    """Step off a setting already tried: towards more load after a shortfall, less after a latency failure."""
    seen = {(r.threads, r.sluggish_sessions): r for r in runs}
    for _ in range(50):
        before = seen.get((threads, sluggish))
        if before is None:
            return threads, sluggish
        if not before.latency_passed:
            load = (max(floor_load, threads / sluggish / 2) + threads / sluggish) / 2
        else:
            load = threads / sluggish * 1.15
            if math.isfinite(ceiling):
                load = min(load, (threads / sluggish + ceiling) / 2)
        candidate = setting_for(load, databases)
        if candidate == (threads, sluggish):
            candidate = (threads, sluggish + 1) if not before.latency_passed else (threads + 1, sluggish)
        notes.append(Stepped(load=(threads, sluggish), to=candidate, lighter=not before.latency_passed))
        threads, sluggish = candidate
    return threads, sluggish
