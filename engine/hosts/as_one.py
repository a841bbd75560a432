"""A test across servers as one run of their summed design: what the advisor reads when it tunes across servers.

On shared storage the servers' loads add up, so tuning across servers reads the servers together: their summed
transactional IOPS against their summed target, the worst server's latencies, each server's instances and criteria
named by their server. A thread count and SluggishSessions it advises is every server's. So that one setting means
the same on each, the servers of a tuning have the same number of databases and the same mailbox profile; their
paths, cache and the rest are their own.
"""

from __future__ import annotations

from engine.model.config import TestConfig
from engine.results.across_schema import AcrossResult
from engine.results.schema import Failure, Outcome, RunKind, RunResult
from engine.results.verdict import iops_floor


def tuning_problems(configs: dict[str, TestConfig]) -> list[tuple[str, str]]:
    """Each (host, words) whose configuration cannot share a thread count with the first server's."""
    hosts = list(configs)
    first = configs[hosts[0]]
    problems = []
    for host in hosts[1:]:
        config = configs[host]
        if config.database_count != first.database_count:
            problems.append((host, f"it has {config.database_count} database(s) and {hosts[0]} has "
                                   f"{first.database_count}: tuning across servers gives every server one thread count, "
                                   "so each needs as many databases"))
        if config.profile != first.profile:
            problems.append((host, f"its mailbox profile differs from {hosts[0]}'s: tuning across servers reads their "
                                   "summed target, each server's share the same"))
    return problems


def summed_config(configs: dict[str, TestConfig]) -> TestConfig:
    """The first server's configuration with every server's mailboxes: the design the servers carry together."""
    first = next(iter(configs.values()))
    mailboxes = sum(config.profile.mailboxes for config in configs.values())
    return first.model_copy(update={"profile": first.profile.model_copy(update={"mailboxes": mailboxes})})


def as_one_run(test: AcrossResult, runs: dict[str, RunResult], summed: TestConfig) -> RunResult | None:
    """`test` as one run of `summed` (`summed_config`), from each server's result (`runs`, by host); None when no
    server gave one. A sweep's steps and judged step are the servers' together (`AcrossResult.sweep`)."""
    if not runs:
        return None
    hosts = list(runs)
    first = runs[hosts[0]]
    instances = [i.model_copy(update={"name": f"{host} {i.name}"}) for host, run in runs.items() for i in run.instances]
    criteria = [c.model_copy(update={"instance": f"{host} {c.instance}"}) if c.instance else c
                for host, run in runs.items() for c in run.criteria]
    summaries = [run.summary for run in runs.values()]
    update: dict[str, object] = {
        "achieved_transactional_iops": sum(s.achieved_transactional_iops for s in summaries),
        "target_transactional_iops": summed.target_transactional_iops,
        "transactional_iops": sum(s.transactional_iops for s in summaries),
        "db_reads_per_s": sum(s.db_reads_per_s for s in summaries),
        "db_writes_per_s": sum(s.db_writes_per_s for s in summaries),
        "log_writes_per_s": sum(s.log_writes_per_s for s in summaries),
        "db_read_avg_latency_ms": max(s.db_read_avg_latency_ms for s in summaries),
        "log_write_avg_latency_ms": max(s.log_write_avg_latency_ms for s in summaries),
        "measured_s": min(s.measured_s for s in summaries),
        "host_bound": any(s.host_bound for s in summaries),
        "run_kind": RunKind.TUNING,
        "verdict": test.outcome,
        "reasons": test.reasons,
        "failures": [Failure(words=words) for words in test.reasons],
    }
    sweep = test.sweep
    if sweep is not None and sweep.judged_step is not None:  # a sweep is judged on one step of all servers together
        step = sweep.steps[sweep.judged_step]
        kept = step.latency_ok and step.transactional_iops >= iops_floor(summed)
        update |= {
            "threads": step.threads, "sluggish_sessions": step.sluggish_sessions,
            "achieved_transactional_iops": step.transactional_iops, "transactional_iops": step.transactional_iops,
            "db_read_avg_latency_ms": step.db_read_avg_latency_ms, "log_write_avg_latency_ms": step.log_write_avg_latency_ms,
            "measured_s": step.measured_s, "host_bound": step.host_bound,
        }
        if test.outcome != Outcome.ABORTED:
            update["verdict"] = Outcome.PASS if kept else Outcome.FAIL
        criteria = [step.broke] if step.broke is not None else []  # the step's record keeps the first it broke
    summary = first.summary.model_copy(update=update)
    return first.model_copy(update={
        "run_id": test.test_id, "configuration": summed, "summary": summary, "instances": instances,
        "criteria": criteria, "sweep": sweep, "error_groups": [g for run in runs.values() for g in run.error_groups],
    })

