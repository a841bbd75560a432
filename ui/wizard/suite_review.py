"""The Review page's words for an ESRP qualification: its five tests, which of them Start runs (all, or those an
unfinished suite of this configuration still lacks), where it goes, and about how long it takes."""

from __future__ import annotations

import html
from collections.abc import Mapping

from engine.model.config import TestConfig, TestType
from engine.model.sizing import LOG_FILE_SIZE_BYTES
from engine.model.units import compact_duration
from engine.results.suite import STAGES, is_trial, suite_title, trial_words
from engine.run.suite import FoundSuite
from ui.scans import type_words
from ui.suite import lengths_words, stage_verdict, titles, to_run
from ui.wizard.problems import CREATE_RATE_BYTES_PER_S, databases_table, sizes_cell, target_cell

DONE_WORDS = {"pass": "passed: kept", "fail": "failed: kept", "aborted": "stopped before its end: runs again",
              "not run": "runs"}


def _what(config: TestConfig, kind: TestType, performance_s: float, stress_s: float) -> str:
    """What a stage of the suite does, in a line."""
    strict, lenient = config.thresholds.strict, config.thresholds.lenient
    warmup = compact_duration(config.warmup_s)
    if kind == TestType.PERFORMANCE:
        return (f"{compact_duration(performance_s)} measured after a {warmup} warm-up, Strict thresholds (database "
                f"reads ≤ {strict.db_read_avg_latency_ms:g} ms average)")
    if kind == TestType.STRESS:
        return (f"{compact_duration(stress_s)} measured after a {warmup} warm-up, Lenient thresholds (maximum "
                f"database read ≤ {lenient.db_read_max_latency_ms:g} ms)")
    if kind == TestType.DATABASE_CHECKSUM:
        return f"every page of every database and its log files read in {config.checksum_read_kib} KiB reads and verified"
    if kind == TestType.DATABASE_BACKUP:
        copy = (f"each copied to {html.escape(str(config.backup_path))}" if config.backup_path is not None
                else "read only (no backup folder)")
        return f"each database read through in {config.backup_read_kib} KiB reads, every page verified; {copy}"
    return (f"{config.log_files_to_replay:,} log files per instance generated under the load, then replayed, at most "
            f"{config.replay_limit_s:g} s per log file on average")


def suite_review_html(config: TestConfig, performance_s: float, stress_s: float, resumed: FoundSuite | None,
                      unfinished: FoundSuite | None, servers: Mapping[str, TestConfig] | None = None) -> str:
    """The suite Start runs: `resumed` (an unfinished suite of this configuration) or a new one; `unfinished` is the
    suite there is to resume, said when a new one is asked for instead."""
    record = resumed.record if resumed is not None else None
    waiting = to_run(record) if record is not None else list(range(len(STAGES)))
    rows = []
    for number, kind in enumerate(STAGES):
        done = DONE_WORDS[stage_verdict(record.stages[number])] if record is not None else "runs"
        if number not in waiting:
            done = f"<i>{done}</i>"
        rows.append(f"<tr><td>{number + 1}. {type_words(kind)}</td><td>{_what(config, kind, performance_s, stress_s)}"
                    f"</td><td>{done}</td></tr>")
    kinds = [STAGES[number] for number in waiting]
    if resumed is not None:
        start = (f"Resumes the unfinished suite in {html.escape(str(resumed.folder))} from "
                 f"{type_words(kinds[0])}: runs {titles(kinds)}; the tests before it keep their verdicts")
    else:
        also = (f" (the unfinished one in {html.escape(str(unfinished.folder))} is left as it is)"
                if unfinished is not None else "")
        start = (f"A new suite in a folder of its own in this tuning session's runs folder{also}: runs all five tests, "
                 "each kept as a run of its own there, then the ESRP report")
    total = config.database_size_bytes * config.database_file_count
    read_s = total / CREATE_RATE_BYTES_PER_S
    timed = sum((config.warmup_s + length) for kind, length in ((TestType.PERFORMANCE, performance_s),
                                                                 (TestType.STRESS, stress_s)) if STAGES.index(kind) in waiting)
    reading = 2 * read_s if STAGES.index(TestType.DATABASE_CHECKSUM) in waiting else read_s
    log_s = config.log_files_to_replay * LOG_FILE_SIZE_BYTES * config.database_count / CREATE_RATE_BYTES_PER_S
    return f"""
<h3>{suite_title(performance_s, stress_s)}: {len(waiting)} of {len(STAGES)} tests to run</h3>
{f"<p><b>{trial_words(performance_s, stress_s)}.</b></p>" if is_trial(performance_s, stress_s) else ""}
<table cellpadding="3" border="1" cellspacing="0"><tr><th>Test</th><th>What it does</th><th>At Start</th></tr>
{''.join(rows)}</table>
<table cellpadding="3">
<tr><td><b>Start</b></td><td>{start}</td></tr>
<tr><td><b>Lengths</b></td><td>{lengths_words(performance_s, stress_s)}</td></tr>
<tr><td><b>Target</b></td><td>{target_cell(config)}</td></tr>
<tr><td><b>Thread tuning</b></td><td>{config.thread_count} threads, SluggishSessions {config.sluggish_sessions}, for every
 test (auto-tune does not apply)</td></tr>
<tr><td><b>Databases</b></td><td>{sizes_cell(config)}, created by the first test or reused, then kept for the others</td></tr>
<tr><td><b>Estimated time</b></td><td>about {_about(timed + reading + log_s)}: the timed tests
 with their warm-ups, and the reading and log files at {CREATE_RATE_BYTES_PER_S / 1e6:.0f} MB/s; the replay adds what it
 takes (at most {compact_duration(config.log_files_to_replay * config.replay_limit_s)} per instance to pass)</td></tr>
<tr><td><b>Stop</b></td><td>ends the suite after the test running; starting it again with this configuration
 and these lengths resumes it</td></tr>
</table>
""" + databases_table(config, servers)


def _about(seconds: float) -> str:
    """An estimate as read: to the minute past ten minutes ("26h2m"), else to the second."""
    step = 60 if seconds >= 600 else 1
    return compact_duration(max(1, round(seconds / step) * step))
