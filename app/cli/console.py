"""What the command line prints: a run's events as they come, the result, problems where they were typed."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TextIO, assert_never

from engine.model.derive import achieved_words, cache_words
from engine.model.options import where_typed
from engine.model.units import counted, format_bytes, format_duration
from engine.model.validation import Problem
from engine.protocol import (
    WORK_PHASES,
    HelloEvent,
    IntervalEvent,
    LogEvent,
    Phase,
    PhaseEvent,
    ProgressEvent,
    RefusalEvent,
    ResultEvent,
    RunEvent,
    StartEvent,
    SuiteEvent,
    WaitingEvent,
)
from engine.results.clock import MeasuredClock
from engine.results.reasons import grouped_reasons
from engine.results.recovery_schema import RecoveryResult
from engine.results.scans import megabytes, row_words
from engine.results.schema import RunResult
from engine.results.servers import FIGURES, paper_aggregate
from engine.results.spikes import spike_sentences
from engine.results.verdict import judged_maximum_ms, maximum_note, was_measured
from engine.workload.stats import DB_READ, LOG_WRITE

PROBLEM_LINES = 20
"""A file of 10,000 unknown settings is refused in a screenful, not 10,000 lines."""

LINE_EVERY_S = 0.25
"""Interval lines come at most this often: a real run prints every one-second sample, a simulated day (86,400
samples in half a minute) a readable few a second, and the last before each phase change and the result."""


def print_problems(problems: Sequence[Problem], stream: TextIO, *, flags: bool = False) -> None:
    """Each problem on a line of its own, the first screenful of them; with `flags`, named by the flag typed."""
    for problem in problems[:PROBLEM_LINES]:
        where = where_typed(problem.field) if flags and problem.field else problem.field
        prefix = problem.severity.value
        print(f"{prefix}: {where}: {problem.message}" if where else f"{prefix}: {problem.message}", file=stream)
    if len(problems) > PROBLEM_LINES:
        print(f"... and {len(problems) - PROBLEM_LINES:,} more problem(s)", file=stream)


class ConsoleRenderer:
    """Shows a run's events on stderr: phases, creation progress, one line per interval."""

    def __init__(self, stream: TextIO, clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream
        self.clock = clock
        self.tty = stream.isatty()
        self.last_progress = 0.0
        self.scans = False  # a Checksum or Backup test: its samples are read rates, not transactions
        self.doing = "reading databases"  # what a progress line during measurement counts
        self.last_line = -LINE_EVERY_S
        self.held: IntervalEvent | None = None  # a sample that came too soon after the last line printed
        self.measuring = MeasuredClock()  # sees every sample, shown or held

    def __call__(self, event: RunEvent) -> None:
        if isinstance(event, IntervalEvent):
            self.measuring.add(event.sample)
            now = self.clock()
            if now - self.last_line < LINE_EVERY_S:
                self.held = event
                return
            self.last_line, self.held = now, None
        elif self.held is not None and not isinstance(event, ProgressEvent):
            held, self.held = self.held, None
            self._show(held)
        self._show(event)

    def _show(self, event: RunEvent) -> None:
        s = self.stream
        if isinstance(event, StartEvent):
            self.scans = event.config.scans
            self.doing = "generating log files" if event.config.recovers else "reading databases"
            if event.session:
                print(f"   run {event.run_id} in tuning session '{event.session}'", file=s)
            if not event.config.scans:  # the workload's generation and cache: what a scan reads depends on neither
                print(f"   Exchange version: {event.config.generation.words}", file=s)
                print(f"   {cache_words(event.config)}", file=s)
        elif isinstance(event, PhaseEvent):
            print(f"== {event.message}", file=s)
            if event.phase == Phase.REPLAYING:
                self.doing = "replaying log files"
        elif isinstance(event, ProgressEvent):
            self._progress(event)
        elif isinstance(event, IntervalEvent):
            sample = event.sample
            sm = sample.summary
            phase = "warm-up" if sample.phase == "warmup" else "measure"
            if self.scans:
                damaged = sm.io_errors
                print(f"   [read {format_duration(sample.elapsed_s)}, {format_duration(sample.remaining_s)} left] "
                      f"{format_bytes(sm.db_reads_per_s * sm.db_read_avg_bytes)}/s | DB read {sm.db_read_avg_latency_ms:.2f} ms "
                      f"(max {sm.db_read_max_latency_ms:.1f}) | {damaged:,} damaged | CPU {sample.host.cpu_percent:.0f} %", file=s)
                return
            measured = self.measuring.measured_s(sample)
            print(
                f"   [{phase} {format_duration(sample.elapsed_s if measured is None else measured)}, "
                f"{format_duration(sample.remaining_s)} left] "
                f"IOPS {sm.transactional_iops:,.1f} | DB read {sm.db_read_avg_latency_ms:.2f} ms "
                f"(max {sm.db_read_max_latency_ms:.1f}) | log write {sm.log_write_avg_latency_ms:.2f} ms "
                f"| CPU {sample.host.cpu_percent:.0f} %",
                file=s,
            )
        elif isinstance(event, LogEvent):
            if event.level != "info":  # a problem's own words may already start with its level: say it once
                said = event.message.removeprefix(f"{event.level}: ")
                print(f"   {event.level}: {said}", file=s)
        elif isinstance(event, RefusalEvent):
            for problem in event.problems:
                print(f"   {problem}", file=s)
        elif isinstance(event, ResultEvent):
            print_result(event.result, s)
        elif isinstance(event, HelloEvent | SuiteEvent | WaitingEvent):
            pass  # the engine's greeting is for a front end's handshake; a suite's stages say themselves in its log; the
            # wait for a test's agents is said by the controller's own lines
        else:
            assert_never(event)

    def _progress(self, event: ProgressEvent) -> None:
        now = self.clock()
        if now - self.last_progress < (0.2 if self.tty else 2.0) and event.done_bytes < event.total_bytes:
            return
        self.last_progress = now
        eta = format_duration(event.eta_s) if event.eta_s is not None else "?"
        doing = self.doing if event.phase in WORK_PHASES else "creating databases"
        line = (
            f"   {doing}: {format_bytes(event.done_bytes)} of {format_bytes(event.total_bytes)} "
            f"({format_bytes(event.rate_bytes_per_s)}/s, ETA {eta})"
        )
        print(("\r" + line) if self.tty else line, end="" if self.tty else "\n", file=self.stream)
        if self.tty and event.done_bytes >= event.total_bytes:
            print(file=self.stream)


def print_result(result: RunResult, stream: TextIO) -> None:
    summary = result.summary
    kind = " (tuning run)" if summary.run_kind == "tuning" else ""
    print(f"\nOverall test result: {summary.verdict.value.upper()}{kind}", file=stream)
    for reason in grouped_reasons(result):
        print(f"  - {reason}", file=stream)
    for spike in spike_sentences(summary):
        print(f"    When: {spike}.", file=stream)
    if result.scan is not None:
        scan = result.scan
        print(f"Read {format_bytes(scan.bytes_read)} of {len(scan.databases)} database(s) in {scan.database_seconds:.1f} s "
              f"({megabytes(scan.bytes_per_s):,.1f} MB/s for the server), in {scan.read_bytes // 1024} KiB reads", file=stream)
        for database in scan.databases:
            print(f"  {row_words(database)}", file=stream)
        return
    if not was_measured(result):
        print(f"Nothing measured: {summary.measured_s:.1f} s of measurement, less than one sample interval; "
              "IOPS and latency are not judged", file=stream)
    else:
        print(
            f"Achieved {achieved_words(summary.achieved_transactional_iops, summary.target_transactional_iops)} "
            f"over {summary.measured_s:.1f} s "
            f"({summary.threads} threads, SluggishSessions {summary.sluggish_sessions}, "
            f"{summary.threshold_set} thresholds)",
            file=stream,
        )
    config = result.configuration
    for row in result.instances:
        print(
            f"  {row.name}: DB read {row.db_read_avg_latency_ms:.2f} ms avg / "
            f"{judged_maximum_ms(config, row, DB_READ):.2f} ms max, log write {row.log_write_avg_latency_ms:.2f} ms avg / "
            f"{judged_maximum_ms(config, row, LOG_WRITE):.2f} ms max, {row.transactional_iops:,.1f} IOPS, "
            f"{counted(row.io_errors, 'error')}",
            file=stream,
        )
        hit = row.db_cache_hit_ratio
        background = [f"cache hit {hit:.0%}" if hit is not None else "cache not referenced"]
        if row.bdm_reads_per_s:
            background.append(f"maintenance {row.bdm_reads_per_s * row.bdm_read_avg_bytes / 1e6:.1f} MB/s")
        if row.log_replication_reads_per_s:
            rate = row.log_replication_reads_per_s * row.log_replication_read_avg_bytes / 1e6
            background.append(f"log replication {rate:.1f} MB/s")
        print(f"    {', '.join(background)}", file=stream)
    if result.instances and was_measured(result):
        print(f"  ({maximum_note(result)})", file=stream)
    if result.servers:
        print_servers(result, stream)
    if result.recovery is not None:
        print_recovery(result.recovery, stream)
    if summary.host_bound:
        print("WARNING: the host's CPU was saturated while measuring; the engine, not the storage, may have set the pace",
              file=stream)
    if not result.unbuffered_io:
        print(f"WARNING: unbuffered I/O was not in effect ({result.unbuffered_io_detail})", file=stream)


def print_servers(result: RunResult, stream: TextIO) -> None:
    """A test across servers as the ESRP paper tables it: each server's share, then the servers together."""
    print(f"Individual server metrics ({result.summary.test_type}):", file=stream)
    print(f"  {'server':<18} {'verdict':<8} {'target':>9} {'achieved':>9} {'DB rd/s':>9} {'DB wr/s':>9} {'log wr/s':>9} "
          f"{'rd ms':>7} {'wr ms':>7} {'log ms':>7}", file=stream)

    def row(name: str, verdict: str, figures: dict[str, float]) -> None:
        print(f"  {name:<18} {verdict:<8} " + " ".join(
            f"{figures[key]:>9,.1f}" if not key.endswith("latency_ms") else f"{figures[key]:>7.2f}" for key in FIGURES),
            file=stream)

    for share in result.servers:
        if share.summary is None:
            print(f"  {share.host:<18} {'NONE':<8} nothing measured" + (f" ({share.how_it_ended})" if share.end else ""),
                  file=stream)
        else:
            row(share.host, share.summary.verdict.value.upper(), {key: getattr(share.summary, key) for key in FIGURES})
    paper = paper_aggregate(result)
    print(f"Aggregate across all servers ({paper.servers} measured; I/O summed, latency averaged across the servers):",
          file=stream)
    row("all", result.summary.verdict.value.upper(), paper.figures)
    row("  exact", "", {key: getattr(result.summary, key) for key in FIGURES})
    print("  (exact: every I/O of the test together, each latency weighted by its server's I/O)", file=stream)


def print_recovery(recovery: RecoveryResult, stream: TextIO) -> None:
    """A Soft Recovery's replay: the average time to play one log file against its limit, then each instance."""
    if recovery.log_files_replayed:
        print(f"Replayed {recovery.log_files_replayed:,} log file(s): {recovery.seconds_per_log_file:.2f} s to play one "
              f"log file on average (limit {recovery.limit_s:g} s)", file=stream)
    else:
        generated = sum(row.log_files_generated for row in recovery.instances)
        print(f"No log file was replayed ({generated:,} of {len(recovery.instances) * recovery.log_files_to_replay:,} "
              "generated)", file=stream)
    for row in recovery.instances:
        words = (f"  {row.instance}: {row.log_files_generated} generated, {row.log_files_replayed} of {row.log_files} "
                 f"replayed in {row.replay_seconds:.1f} s ({row.seconds_per_log_file:.2f} s per file), "
                 f"{row.pages_redone:,} updates redone, {row.page_reads:,} pages read, {row.pages_written:,} written, "
                 f"{counted(row.errors, 'error')}")
        print(words + (f"; {row.failure}" if row.failure else ""), file=stream)
