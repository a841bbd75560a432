"""How the window words an ESRP qualification: the five tests an ESRP submission publishes, run in turn on the same
databases, each kept as a run of its own in the suite's folder.

The engine runs the suite (`jetwise engine --suite`), keeps its record in the folder (`suite.json`) and finds the
unfinished ones in the runs folder (`engine.run.suite.unfinished_suites`), which the window offers to resume; the
window words each stage's verdict and key figure from the stage's result.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from engine.model.config import TestType
from engine.model.derive import achieved_words
from engine.model.units import compact_duration
from engine.results.scans import megabytes
from engine.results.schema import Outcome, RunResult
from engine.results.suite import PERFORMANCE_S, QUALIFICATION_TITLE, STAGES, STRESS_S, Stage, SuiteRecord
from engine.results.verdict import was_measured
from ui.scans import type_words

TITLE = QUALIFICATION_TITLE  # the suite as a feature of the window; a run of it is named by its lengths
FOLDER_SUFFIX = "esrp"  # a suite's folder in the session's runs folder: "20261122-061207-esrp"
NOT_RUN = "not run"
UNFINISHED = "unfinished"


def stage_title(number: int, stage: Stage | TestType) -> str:
    """"Stage 2 of 5: Stress", numbered from 0."""
    kind = stage.test_type if isinstance(stage, Stage) else stage
    return f"Stage {number + 1} of {len(STAGES)}: {type_words(kind)}"


def stage_verdict(stage: Stage) -> str:
    """pass, fail, aborted (stopped, killed, or refused) or "not run"."""
    if stage.outcome is not None:
        return stage.outcome.value
    return Outcome.ABORTED.value if stage.folder else NOT_RUN


def suite_verdict(record: SuiteRecord) -> str:
    """pass when all five passed, fail when all ran and one failed, else "unfinished"."""
    return record.outcome.value if record.finished else UNFINISHED


def to_run(record: SuiteRecord) -> list[int]:
    """The stages a start of this suite runs: each without a Pass or Fail, from the first."""
    return [number for number, stage in enumerate(record.stages) if not stage.finished]


def titles(kinds: list[TestType]) -> str:
    """Test types in words: A; A and B; A, B and C."""
    words = [type_words(kind) for kind in kinds]
    return "".join(words) if len(words) <= 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def pending_words(record: SuiteRecord) -> str:
    """What keeps the suite unfinished: "Stress was stopped before its end; Database checksum … have not run"."""
    verdicts = [(stage.test_type, stage_verdict(stage)) for stage in record.stages]
    stopped = [kind for kind, verdict in verdicts if verdict == Outcome.ABORTED.value]
    unrun = [kind for kind, verdict in verdicts if verdict == NOT_RUN]
    words = []
    if stopped:
        words.append(f"{titles(stopped)} {'was' if len(stopped) == 1 else 'were'} stopped before the end")
    if unrun:
        words.append(f"{titles(unrun)} {'has' if len(unrun) == 1 else 'have'} not run")
    return "; ".join(words)


def lengths_words(performance_s: float, stress_s: float) -> str:
    """"Performance 2h, Stress 24h", and what an ESRP submission publishes when either differs."""
    words = f"Performance {compact_duration(performance_s)}, Stress {compact_duration(stress_s)}"
    if (performance_s, stress_s) != (PERFORMANCE_S, STRESS_S):
        words += (f" (an ESRP submission publishes Performance {compact_duration(PERFORMANCE_S)} and Stress "
                  f"{compact_duration(STRESS_S)})")
    return words


def key_figure(result: RunResult | None) -> str:
    """A stage's figure in a few words: IOPS against the target, a scan's read rate, or the replay's time; across
    servers, of the servers together."""
    if result is None:
        return "—"
    servers = f"{len(result.servers)} servers: " if result.servers else ""
    return servers + _figure(result)


def _figure(result: RunResult) -> str:
    if result.scan is not None:
        scan = result.scan
        pages = sum(row.seen_pages for row in scan.databases)
        return f"{pages:,} pages read at {megabytes(scan.bytes_per_s):,.1f} MB/s"
    recovery = result.recovery
    if recovery is not None:
        if not recovery.log_files_replayed:
            return f"no log file replayed (limit {recovery.limit_s:g} s per log file)"
        return f"{recovery.seconds_per_log_file:.3f} s per log file replayed (limit {recovery.limit_s:g} s)"
    summary = result.summary
    if not was_measured(result):
        return "nothing measured"
    return (f"{achieved_words(summary.achieved_transactional_iops, summary.target_transactional_iops)}, "
            f"database reads {summary.db_read_avg_latency_ms:.1f} ms" + (", host-bound" if summary.host_bound else ""))


@dataclass
class SuiteSummary:
    """A suite as the window last saw it: its folder and record, and the result of each stage that has one (across
    servers, a run with its servers' shares)."""

    folder: Path
    record: SuiteRecord
    results: dict[int, RunResult] = field(default_factory=dict)  # by stage, numbered from 0

    @property
    def simulated(self) -> bool:
        return any(r.simulated for r in self.results.values())

    def shown(self, number: int) -> bool:
        """Whether the stage has results to show."""
        return number in self.results

    def key_figure(self, number: int) -> str:
        return key_figure(self.results.get(number))

    @property
    def verdict(self) -> str:
        return suite_verdict(self.record)

    def stage_folder(self, number: int) -> Path | None:
        stage = self.record.stages[number]
        return self.folder / stage.folder if stage.folder else None

    def headline(self) -> str:
        """How many tests passed, and the stage lengths."""
        record = self.record
        passed = sum(stage.outcome == Outcome.PASS for stage in record.stages)
        lengths = lengths_words(record.performance_s, record.stress_s)
        return f"{passed} of {len(record.stages)} tests passed — {lengths}"

    def resume_words(self) -> str:
        """An unfinished suite: what is missing, and how it is resumed."""
        waiting = to_run(self.record)
        if not waiting:
            return ""
        first = type_words(self.record.stages[waiting[0]].test_type)
        return (f"Unfinished: {pending_words(self.record)}. Resume runs it on from {first} in the same folder, "
                f"{self.folder}, keeping the tests that passed or failed; so does starting the {TITLE} again with "
                "this configuration and these lengths (New test: the Review page offers to resume it).")
