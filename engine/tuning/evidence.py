"""What a session's runs can teach the advisor: each judged run as a point of the load curve, and a line for
each run it cannot learn from and why.

A run that failed on I/O errors teaches nothing about load: the storage did not return what
was written. While the latest of them stands (no later run measured without any), the
advisor says so first (`unresolved_errors`, `storage_errors_words`).

A run that failed on a maximum latency alone while every average stayed under half its limit met a stall
(a paused virtual machine, a snapshot, a path failing over), not its load: storage at its limit queues, and its
averages rise with its maximums. It is run again before it counts (`spike_retry`); a setting that spikes twice
counts as failed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.io.pages import ErrorKind
from engine.model.config import TestConfig
from engine.model.derive import thread_weight_words
from engine.results.schema import Figures, Outcome, RunResult
from engine.results.verdict import cache_served, iops_floor, too_short, was_measured

SPIKY_AVERAGE_SHARE = 0.5  # a failed maximum beside averages under this share of their limits: a stall, not the load


@dataclass(frozen=True)
class RunPoint:
    """What the advisor needs of one judged run."""

    threads: int
    sluggish_sessions: int
    achieved_iops: float
    read_ms: float  # average database read latency (worst instance)
    log_ms: float  # average log write latency (worst instance)
    latency_passed: bool  # every latency criterion (and stalls) within limits
    iops_passed: bool
    passed: bool  # the whole verdict
    latency_failure: str = ""  # the first per-instance criterion that failed, in words
    host_bound: bool = False  # the host's CPU set the pace: what it carried, the storage carried at least

    @property
    def load(self) -> float:
        return self.threads / self.sluggish_sessions

    @classmethod
    def from_result(cls, result: RunResult, config: TestConfig) -> RunPoint:
        """The run as evidence for `config`: its throughput is judged against `config`'s target,
        so a run made before the profile changed still counts, at today's target."""
        summary = result.summary
        criteria = result.criteria
        latency_ok = all(c.passed for c in criteria if c.instance is not None)
        errors_ok = all(c.passed for c in criteria if c.instance is None and c.name == "I/O errors")
        iops_ok = summary.achieved_transactional_iops >= iops_floor(config)
        failures = [c for c in criteria if c.instance is not None and not c.passed]
        words = ""
        if failures:
            c = failures[0]
            unit = c.unit if c.unit != "ms" else " ms"
            words = f"{c.instance} {c.name} {c.value:.1f}{unit} over the {c.limit:g}{unit} limit"
        rows: Sequence[Figures] = result.instances or [summary]
        return cls(
            threads=summary.threads,
            sluggish_sessions=summary.sluggish_sessions,
            achieved_iops=summary.achieved_transactional_iops,
            read_ms=max(r.db_read_avg_latency_ms for r in rows),
            log_ms=max(r.log_write_avg_latency_ms for r in rows),
            latency_passed=latency_ok,
            iops_passed=iops_ok,
            passed=latency_ok and iops_ok and errors_ok,
            latency_failure=words,
            host_bound=summary.host_bound,
        )


def evidence(config: TestConfig, results: Iterable[RunResult | None]) -> tuple[list[RunPoint], list[str]]:
    """The runs the advisor can learn from, and a line for each it cannot and why (each line once).

    Learnable: judged pass or fail, with database reads measured. Not: aborted or stopped
    runs (their window is partial), runs that failed on I/O errors (the storage did not
    return what was written), runs with no measured time (less than one sample interval),
    runs whose reads never reached the disk (the cache held the database), failing runs
    during which the host's CPU was saturated (the engine, not the storage, set the pace), and runs whose threads
    weigh otherwise than `config`'s (a run before result schema 10: its thread counts mean another load).
    """
    points: list[RunPoint] = []
    notes: list[str] = []
    named: list[str] = []  # the run each note is of, by its id (`RUNS` in the note's words stands for it)
    spiked: set[tuple[int, int]] = set()  # the settings a stall failed once already
    for result in results:
        if result is None:
            continue
        s = result.summary
        setting = f"{s.threads} threads / SluggishSessions {s.sluggish_sessions} {RUNS}"
        before = len(notes)
        first_spike = spiky(result) and (s.threads, s.sluggish_sessions) not in spiked
        if result.configuration.thread_weight != config.thread_weight:
            notes.append(f"{setting} ran threads of another weight "
                         f"({thread_weight_words(result.configuration.thread_weight)}): its thread counts mean another "
                         "load, so it is not used")
        elif failed_on_io_errors(result):
            notes.append(f"{setting} failed on I/O errors ({_first_error_words(result)}); its figures are not used")
        elif result.sweep is not None:  # its steps are the curve's points (`engine.tuning.curve`), not one run's
            steps = result.sweep.steps
            if not steps:
                notes.append(f"the load sweep {result.run_id} ended before it measured its first step")
            elif all(step.no_reads or step.db_read_avg_latency_ms <= 0 for step in steps):
                notes.append(f"the load sweep {result.run_id} made no database reads at any step (the database cache "
                             "held the database), so its latency says nothing of the storage; test databases larger "
                             "than the cache")
        elif s.verdict == Outcome.ABORTED:
            notes.append(f"{setting} ended early (aborted or stopped); its partial figures are not used")
        elif not was_measured(result):
            notes.append(f"{setting} has no measured time ({s.measured_s:.1f} s, less than one sample interval), so "
                         "it says nothing of the load")
        elif too_short(result):
            notes.append(f"{setting} measured {s.measured_s:.0f} s, less than the "
                         f"{result.configuration.thresholds.minimum_measured_s:g} s a verdict needs, so its figures "
                         "are not read as the storage's")
        elif cache_served(result):
            notes.append(f"{setting} made no database reads (the database cache held the database), so its latency "
                         "says nothing of the storage; test databases larger than the cache")
        elif s.host_bound and s.verdict == Outcome.FAIL:
            broke = not all(c.passed for c in result.criteria if c.instance is not None)
            what = ("its latency was measured with the CPU saturated, the host's delays in it" if broke
                    else "its shortfall is the host's, not the storage's")
            notes.append(f"{setting} was host-bound (CPU saturated while measuring): {what}, so it "
                         "is not read as a storage limit")
        elif first_spike:
            spiked.add((s.threads, s.sluggish_sessions))
            notes.append(f"{setting} failed only on a maximum latency ({spike_words(result)}) while every average "
                         "stayed under half its limit: a stall, not the load, so it is not read as the storage's limit "
                         "until the same setting spikes again")
        else:
            points.append(RunPoint.from_result(result, config))
        named.extend([result.run_id] * (len(notes) - before))
    return points, with_runs(notes, named)


RUNS = "\x00runs\x00"  # in a note's words, where the runs it is of are named


def with_runs(notes: Sequence[str], run_ids: Sequence[str]) -> list[str]:
    """Each note once, naming its runs: two runs at one setting that ended early are one line, "(runs A and B)"."""
    runs: dict[str, list[str]] = {}
    for note, run_id in zip(notes, run_ids, strict=True):
        runs.setdefault(note, [])
        if run_id not in runs[note]:
            runs[note].append(run_id)
    said = []
    for note, ids in runs.items():
        listed = ids[0] if len(ids) == 1 else ", ".join(ids[:-1]) + f" and {ids[-1]}"
        said.append(note.replace(RUNS, f"(run{'s' if len(ids) > 1 else ''} {listed})"))
    return said


def spiky(result: RunResult) -> bool:
    """A run judged Fail on maximum latencies alone, every instance's average latency under half its limit (not a
    load sweep's, whose steps are judged one by one, nor a host-bound one's, which is the host's)."""
    s = result.summary
    if s.verdict != Outcome.FAIL or not was_measured(result) or result.sweep is not None or s.host_bound:
        return False
    judged = [c for c in result.criteria if c.instance is not None]
    failed = [c for c in judged if not c.passed]
    averages = [c for c in judged if c.unit == "ms" and c.name.startswith("average ")]
    return (bool(failed) and all(c.name.startswith("maximum ") for c in failed)
            and all(c.value <= c.limit * SPIKY_AVERAGE_SHARE for c in averages)
            and all(c.passed for c in result.criteria if c.instance is None and c.name.startswith("I/O errors")))


def spike_retry(results: Sequence[RunResult]) -> RunResult | None:
    """The latest run, when it is a stall's first failure at its setting: the advice is to run it again."""
    if not results:
        return None
    latest = results[-1]
    s = latest.summary
    again = any(spiky(r) and (r.summary.threads, r.summary.sluggish_sessions) == (s.threads, s.sluggish_sessions)
                for r in results[:-1])
    return latest if spiky(latest) and not again else None


def short_retry(results: Sequence[RunResult]) -> RunResult | None:
    """The latest run, when it measured less than a verdict needs: the advice is its setting again, for longer."""
    return results[-1] if results and too_short(results[-1]) else None


def longer_words(result: RunResult) -> str:
    """Why the advice is to run a too-short run's setting again, and for how long."""
    s, least = result.summary, result.configuration.thresholds.minimum_measured_s
    return (f"the same setting for longer: {s.threads} threads / SluggishSessions {s.sluggish_sessions} measured "
            f"{s.measured_s:.0f} s, and a verdict needs at least {least:g} s measured; give the test a duration of "
            f"{least:g} s or more")


def again_words(result: RunResult) -> str:
    """Why the advice is to run a stall's setting again."""
    s = result.summary
    return (f"the same setting again: {s.threads} threads / SluggishSessions {s.sluggish_sessions} failed only on a "
            f"maximum latency ({spike_words(result)}), a stall rather than the load; if it comes back at this setting "
            "it counts as this setting's failure")


def spike_words(result: RunResult) -> str:
    """The run's first failed maximum beside the highest average read latency, in a few words."""
    failed = next(c for c in result.criteria if c.instance is not None and not c.passed)
    reads = max((r.db_read_avg_latency_ms for r in result.instances), default=result.summary.db_read_avg_latency_ms)
    return (f"{failed.instance} {failed.name} {failed.value:,.0f} ms over {failed.limit:g} ms, with database reads "
            f"averaging {reads:.2f} ms")


def failed_on_io_errors(result: RunResult) -> bool:
    """The run met I/O errors, which fail it whether it stopped there or continued despite them."""
    return result.summary.io_errors > 0


def _first_error_words(result: RunResult) -> str:
    """The run's first kind of I/O error, counted, with where its first was."""
    if not result.error_groups:  # a result written before errors were counted by kind
        return f"{result.summary.io_errors:,} I/O error(s)"
    first = result.error_groups[0]
    plural = "" if first.count == 1 else "s"
    others = sum(g.count for g in result.error_groups[1:])
    more = f", and {others:,} other I/O error(s)" if others else ""
    return (f"{first.count:,} {first.title}{plural} (ESE {first.ese_error} {first.ese_name}) on {first.instance}, "
            f"the first at {first.unit} {first.first_number} of {first.first_file}{more}")


def storage_errors_words(result: RunResult) -> str:
    """The plain statement of what the storage did wrong in `result`, for the advice's first line."""
    corrupt = {ErrorKind.CHECKSUM, ErrorKind.WRONG_NUMBER, ErrorKind.UNINITIALISED}
    what = "corrupt data" if result.error_groups and result.error_groups[0].kind in corrupt else "I/O errors"
    s = result.summary
    return (f"The storage returned {what}: {_first_error_words(result)} (run {result.run_id}, {s.threads} threads / "
            f"SluggishSessions {s.sluggish_sessions})")


def unresolved_errors(results: Sequence[RunResult]) -> RunResult | None:
    """The latest run that failed on I/O errors, unless a later run measured without any."""
    for result in reversed(results):
        if failed_on_io_errors(result):
            return result
        if result.summary.io_errors == 0 and was_measured(result):
            return None
    return None


def once(lines: Iterable[str]) -> list[str]:
    """`lines` without repeats, in their order: two runs at one setting that ended early are one line."""
    return list(dict.fromkeys(lines))
