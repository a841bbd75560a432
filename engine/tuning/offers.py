"""What a run's result offers next: Apply (the advisor's setting for the next run) and a full-length run that would
qualify the storage. The window's results page shows these; the rules are here, with the advice they follow."""

from __future__ import annotations

from engine.results.schema import Outcome, RunKind, RunResult
from engine.results.verdict import cache_served
from engine.tuning.advisor import Advice


def at_this_setting(advice: Advice, result: RunResult | None) -> bool:
    """The advice is the setting `result` ran at."""
    return result is not None and (result.summary.threads, result.summary.sluggish_sessions) == (
        advice.threads, advice.sluggish_sessions)


def repeats_the_cache(advice: Advice, result: RunResult | None) -> bool:
    """`result` failed at the very setting advised and made no database reads, the cache holding the whole database:
    running it again would measure the cache again, so the databases or the cache must change instead."""
    return (result is not None and at_this_setting(advice, result) and result.verdict == Outcome.FAIL
            and advice.status in ("next", "start") and cache_served(result))


def can_apply(advice: Advice, result: RunResult | None) -> bool:
    """Apply is offered for a next setting to run (or a first one), unless running it would measure the cache again."""
    return advice.status in ("next", "start") and not repeats_the_cache(advice, result)


def full_length_setting(result: RunResult, advice: Advice | None) -> tuple[int, int] | None:
    """The setting a full-length run would qualify: this tuning run's when it passed, else the session's setting that
    passed (the advisor converged on it) when this run did not qualify the storage. None for a scan, a replay, an
    open-ended run or a search for the most the storage carries: only a setting that passed is worth two hours (or a
    day) of the storage."""
    config, summary = result.configuration, result.summary
    if config.open_ended or result.scan is not None or result.recovery is not None:
        return None
    if summary.run_kind == RunKind.TUNING and summary.verdict == Outcome.PASS:
        return summary.threads, summary.sluggish_sessions
    qualified = summary.run_kind == RunKind.QUALIFICATION and summary.verdict == Outcome.PASS
    if advice is None or advice.status != "converged" or config.seeks_maximum or qualified:
        return None
    return advice.threads, advice.sluggish_sessions
