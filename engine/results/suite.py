"""The ESRP qualification suite as results keep it: its five stages, each stage's verdict, and the record of a suite.

`engine.run.suite` runs it; `suite.json` in the suite's folder is a `SuiteRecord`.
"""

from __future__ import annotations

from pydantic import Field

from engine.model.config import TestConfig, TestType
from engine.results.base import Schema
from engine.results.schema import Outcome

SUITE_VERSION = 3  # 2: a suite across servers as tests across them (`hosts`); 3: its servers in its configuration
STAGES = (TestType.PERFORMANCE, TestType.STRESS, TestType.DATABASE_CHECKSUM, TestType.DATABASE_BACKUP,
          TestType.SOFT_RECOVERY)
PERFORMANCE_S = 2 * 3600.0
STRESS_S = 24 * 3600.0
STAGE_WORDS = {
    TestType.PERFORMANCE: "Performance",
    TestType.STRESS: "Stress",
    TestType.DATABASE_CHECKSUM: "Database Checksum",
    TestType.DATABASE_BACKUP: "Database Backup",
    TestType.SOFT_RECOVERY: "Soft Recovery",
}


class Stage(Schema):
    """One test of the suite: the run folder it was last run in, and its verdict (None: not run to an end yet)."""

    test_type: TestType
    folder: str = Field("", description="The stage's run folder, inside the suite's folder.")
    run_id: str = ""
    outcome: Outcome | None = None
    reasons: list[str] = Field(default_factory=list)

    @property
    def finished(self) -> bool:
        return self.outcome in (Outcome.PASS, Outcome.FAIL)

    @property
    def title(self) -> str:
        return STAGE_WORDS[self.test_type]


QUALIFICATION_TITLE = "ESRP qualification"
TRIAL_TITLE = "ESRP trial (not a qualification)"


def is_trial(performance_s: float, stress_s: float) -> bool:
    """Shorter stages than an ESRP publishes (2 h Performance, 24 h Stress): a trial, not a qualification."""
    return performance_s < PERFORMANCE_S or stress_s < STRESS_S


def suite_title(performance_s: float, stress_s: float) -> str:
    """What a suite of these lengths is called wherever it is named: only the published lengths qualify."""
    return TRIAL_TITLE if is_trial(performance_s, stress_s) else QUALIFICATION_TITLE


def trial_words(performance_s: float, stress_s: float) -> str:
    """Why a trial is not a qualification, in a sentence ("" at the published lengths)."""
    if not is_trial(performance_s, stress_s):
        return ""
    return ("A trial, not a qualification: its Performance and Stress tests are shorter than an ESRP submission "
            "publishes (2 h and 24 h), so it shows how the storage behaves, not that it qualifies")


class SuiteRecord(Schema):
    """What `suite.json` holds: the configuration every stage runs, the stage lengths, each stage so far."""

    suite_version: int = SUITE_VERSION
    config: TestConfig
    performance_s: float
    stress_s: float
    simulate: str | None = Field(None, description="The simulated device's profile every stage runs on; None: the disk.")
    stages: list[Stage]

    @property
    def hosts(self) -> list[str]:
        """A suite across servers: the servers every stage runs on together (its configuration's); none: this one."""
        return self.config.server_names

    @property
    def rehearsal(self) -> bool:
        """Shorter stages than an ESRP publishes (2 h Performance, 24 h Stress): a trial, not a qualification."""
        return is_trial(self.performance_s, self.stress_s)

    @property
    def title(self) -> str:
        return suite_title(self.performance_s, self.stress_s)

    @property
    def trial_words(self) -> str:
        return trial_words(self.performance_s, self.stress_s)

    @property
    def finished(self) -> bool:
        return all(stage.finished for stage in self.stages)

    @property
    def outcome(self) -> Outcome:
        """Pass only when all five passed; Fail once all ran and one failed; Aborted while any is unfinished."""
        if not self.finished:
            return Outcome.ABORTED
        return Outcome.PASS if all(s.outcome == Outcome.PASS for s in self.stages) else Outcome.FAIL

    def stage_config(self, test_type: TestType) -> TestConfig:
        """The suite's configuration (its servers with it) as one stage runs it: its test type and, for Performance
        and Stress, its length."""
        update: dict[str, object] = {"test_type": test_type}
        if test_type == TestType.PERFORMANCE:
            update["duration_s"] = self.performance_s
        elif test_type == TestType.STRESS:
            update["duration_s"] = self.stress_s
        return self.config.model_copy(update=update)
