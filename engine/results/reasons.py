"""A run's reasons as a person reads them: one line for a criterion many instances failed, not one line each.

A server of 48 databases that misses a latency threshold on every one has 48 reasons that differ only in the
instance and the value. The console, the window and the report's Test Summary say it once, with the range of values
and the worst instance; the Pass/Fail criteria table keeps every instance's row.
"""

from __future__ import annotations

from engine.results import verdict
from engine.results.criterion_schema import Criterion, number
from engine.results.schema import RunResult
from engine.results.verdict import LATENCY_NAMES, STALLS_CRITERION

GROUPED_FROM = 3  # instances failing one criterion, from which they are said in one line
GROUPED = LATENCY_NAMES | {STALLS_CRITERION}  # said by their figures alone (I/O errors and no I/O say more)


def grouped_reasons(result: RunResult) -> list[str]:
    """The run's reasons in order, those of one criterion on `GROUPED_FROM` or more instances said once, where the
    first of them was. Grouped by the facts each failure carries (`Summary.failures`), never by its words; a result
    written before them (schema 12 and older) has its words alone, said as they are."""
    summary = result.summary
    if not summary.failures:
        return list(summary.reasons)
    criteria: dict[tuple[str, str | None], Criterion] = {
        (c.name, c.instance): c for c in result.criteria if c.instance and not c.passed and c.name in GROUPED}
    groups: dict[str, list[Criterion]] = {}
    for failure in summary.failures:
        criterion = criteria.get((failure.criterion or "", failure.instance))
        if criterion is not None:
            groups.setdefault(criterion.name, []).append(criterion)
    out = []
    said: set[str] = set()
    for failure in summary.failures:
        members = groups.get(failure.criterion or "", []) if failure.instance else []
        if len(members) < GROUPED_FROM:
            out.append(failure.words)
        elif members[0].name not in said:
            said.add(members[0].name)
            out.append(_together(members, summary.database_count, summary.threshold_set))
    return out


def _together(members: list[Criterion], instances: int, set_name: str) -> str:
    """One line for `members`, one criterion failed on many instances (a latency's naming its threshold set)."""
    first = members[0]
    unit = first.unit_after
    values = [c.value for c in members]
    low, high = min(values), max(values)
    at_most = first.comparison == "<="
    worst = (max if at_most else min)(members, key=lambda c: c.value)
    spread = number(low) if number(low) == number(high) else f"{number(low)} to {number(high)}"
    words = f"{len(members)} of {instances} instances: {first.name} {spread}{unit} {'>' if at_most else '<'} {number(first.limit)}{unit}"
    named = verdict.with_set(words, set_name) if first.name in LATENCY_NAMES else words  # the one wording
    return named + f", the {'highest' if at_most else 'lowest'} on {worst.instance}"
