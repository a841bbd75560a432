"""A load sweep across servers, led by the controller: every server steps to the same load at the same sample.

On shared storage the servers' loads add up, so the limit a sweep looks for is the servers' together. Each server's
part runs the sweep in lockstep (`engine.run.steps`): it settles and judges each step over the same samples as the
others and says its record. Once every server has measured a step, the leader reads them as one step of the whole
(`combined`: transactional IOPS summed, the worst server's latencies, the thresholds kept only if every server kept
them) and chooses from those steps as a sweep alone chooses from its own (`engine.run.steps.next_of`): the next load,
or the end. Its word names the sample the next step starts at, `GAP_S` after the step's last, so it reaches every
server in time.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from engine.results.sweep_schema import Sweep, SweepEnd, SweepStep
from engine.run.gate import Told
from engine.run.steps import judged_step, next_of
from engine.run.sweep import Sweep as Schedule
from engine.run.sweep import SweepPlan

GAP_S = 2.0  # the next step starts this long after a step's last sample: every record arrives, the word goes out


def combined(records: Mapping[str, SweepStep]) -> SweepStep:
    """One step as the servers measured it together: their transactional IOPS summed; the worst server's latencies,
    stalls and CPU; the thresholds kept only if every server kept them (the first broken named with its server);
    host-bound, or without database reads, if any server was."""
    steps = list(records.values())
    first = steps[0]
    broken = next(((host, s.broke) for host, s in records.items() if s.broke is not None), None)
    broke = None
    if broken is not None:
        host, criterion = broken
        assert criterion is not None
        broke = criterion.model_copy(update={"instance": f"{host} {criterion.instance}" if criterion.instance else host})
    return SweepStep(
        step=first.step, threads=first.threads, sluggish_sessions=first.sluggish_sessions,
        first_interval=min(s.first_interval for s in steps), last_interval=max(s.last_interval for s in steps),
        settled=all(s.settled for s in steps), measured_s=max(s.measured_s for s in steps),
        transactional_iops=sum(s.transactional_iops for s in steps),
        db_read_avg_latency_ms=max(s.db_read_avg_latency_ms for s in steps),
        db_read_max_latency_ms=max(s.db_read_max_latency_ms for s in steps),
        log_write_avg_latency_ms=max(s.log_write_avg_latency_ms for s in steps),
        log_write_max_latency_ms=max(s.log_write_max_latency_ms for s in steps),
        page_fault_stalls_per_s=max(s.page_fault_stalls_per_s for s in steps),
        cpu_percent=max(s.cpu_percent for s in steps), host_bound=any(s.host_bound for s in steps),
        latency_ok=all(s.latency_ok for s in steps), broke=broke, no_reads=any(s.no_reads for s in steps),
    )


class SweepLeader:
    """The controller's side of a sweep across servers: each server's records in, the word for all of them out."""

    def __init__(self, plan: SweepPlan, interval_s: float, hosts: list[str]) -> None:
        self.schedule = Schedule(plan.loads, plan.start, plan.max_steps)
        self.gap = max(1, math.ceil(GAP_S / interval_s - 1e-9))
        self._records: dict[str, dict[int, SweepStep]] = {host: {} for host in hosts}
        self.steps: list[SweepStep] = []  # each step as the servers measured it together
        self.end: SweepEnd | None = None

    def measured(self, host: str, record: SweepStep, live: list[str]) -> Told | None:
        """Take `host`'s record of a step; the word for every server once each of `live` has measured that step."""
        self._records.setdefault(host, {})[record.step] = record
        number = len(self.steps)
        if self.end is not None or not live or any(number not in self._records.get(h, {}) for h in live):
            return None
        step = combined({h: self._records[h][number] for h in live})
        self.steps.append(step)
        at = step.last_interval + 1 + self.gap
        following = next_of(self.schedule, self.steps)
        if isinstance(following, SweepEnd):
            self.end = following
            return Told(at, end=following)
        return Told(at, load=(following.threads, following.sluggish))

    def record(self) -> Sweep:
        """The sweep as the servers ran it together, with its judged step as a sweep alone chooses it: the heaviest
        that kept every threshold (one the hosts kept up with first), else the lightest."""
        judged = judged_step(self.steps)
        return Sweep(steps=list(self.steps), judged_step=judged.step if judged is not None else None,
                     end=self.end or (SweepEnd(why="stopped") if self.steps else None))
