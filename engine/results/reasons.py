"""A run's reasons as a person reads them: one line for a criterion many instances failed, not one line each.

A server of 48 databases that misses a latency threshold on every one has 48 reasons that differ only in the
instance and the value. The console, the window and the report's Test Summary say it once, with the range of values
and the worst instance; the Pass/Fail criteria table keeps every instance's row.
"""

from __future__ import annotations

from engine.results.schema import Criterion, RunResult, number
from engine.results.verdict import with_set

GROUPED_FROM = 3  # instances failing one criterion, from which they are said in one line


def grouped_reasons(result: RunResult) -> list[str]:
    """The run's reasons in order, those of one criterion on `GROUPED_FROM` or more instances said once, where the
    first of them was."""
    set_name = result.summary.threshold_set
    judged: dict[str, Criterion] = {}
    for criterion in result.criteria:
        if criterion.instance and not criterion.passed:  # a latency's reason names its set, the stalls' does not
            judged[with_set(str(criterion), set_name)] = judged[str(criterion)] = criterion
    groups: dict[str, list[Criterion]] = {}
    for reason in result.summary.reasons:
        if reason in judged:
            groups.setdefault(judged[reason].name, []).append(judged[reason])
    out = []
    said: set[str] = set()
    for reason in result.summary.reasons:
        failed = judged.get(reason)
        members = groups.get(failed.name, []) if failed is not None else []
        if failed is None or len(members) < GROUPED_FROM:
            out.append(reason)
        elif failed.name not in said:
            said.add(failed.name)
            out.append(_together(members, result.summary.database_count, reason != str(failed), set_name))
    return out


def _together(members: list[Criterion], instances: int, named: bool, set_name: str) -> str:
    """One line for `members`, one criterion failed on many instances; `named`: its reasons name the threshold set."""
    first = members[0]
    unit = first.unit_after
    values = [c.value for c in members]
    low, high = min(values), max(values)
    at_most = first.comparison == "<="
    worst = (max if at_most else min)(members, key=lambda c: c.value)
    spread = number(low) if number(low) == number(high) else f"{number(low)} to {number(high)}"
    words = f"{len(members)} of {instances} instances: {first.name} {spread}{unit} {'>' if at_most else '<'} {number(first.limit)}{unit}"
    return (with_set(words, set_name) if named else words) + f", the {'highest' if at_most else 'lowest'} on {worst.instance}"
