"""The wizard's draft without a window: edits, the engine's verdict once per change, auto-tune's first setting."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from engine.model.config import TestConfig, default_config
from engine.model.draft import Draft
from engine.model.validation import Problem


@dataclass(frozen=True)
class Setting:
    threads: int
    sluggish_sessions: int


class Advisor:
    """A stand-in for the advisor: a fixed first setting, and how often it was asked."""

    def __init__(self, threads: int = 6, sluggish_sessions: int = 2) -> None:
        self.setting = Setting(threads, sluggish_sessions)
        self.asked: list[TestConfig] = []

    def __call__(self, config: TestConfig) -> Setting:
        self.asked.append(config)
        return self.setting


def _draft(tmp_path: Path, advisor: Advisor | None = None) -> tuple[Draft[Setting], list[str]]:
    draft = Draft(tmp_path, advisor or Advisor())
    heard: list[str] = []
    draft.changed.connect(lambda: heard.append("changed"))
    draft.loaded.connect(lambda: heard.append("loaded"))
    draft.session_changed.connect(lambda name: heard.append(f"session {name}"))
    return draft, heard


def test_a_new_draft_is_a_valid_default_test_below_its_base_folder(tmp_path):
    draft, _heard = _draft(tmp_path)
    config = draft.config()
    assert config is not None and not draft.problems()
    assert [spec.database_path for spec in config.databases] == [tmp_path / "DB1", tmp_path / "DB2"]
    assert draft.get("profile.mailboxes") == 1000 and draft.get("databases.1.log_path") == str(tmp_path / "Log2")


def test_an_edit_is_announced_once_and_an_unchanged_value_not_at_all(tmp_path):
    draft, heard = _draft(tmp_path)
    assert draft.set("profile.mailboxes", 20)
    assert heard == ["changed"] and draft.config().profile.mailboxes == 20
    assert not draft.set("profile.mailboxes", 20)
    assert heard == ["changed"]


def test_the_verdict_and_the_first_setting_are_asked_once_per_change(tmp_path):
    advisor = Advisor()
    draft, _heard = _draft(tmp_path, advisor)
    for _ in range(3):
        draft.config()
        draft.problems()
        draft.first_advice()
    assert len(advisor.asked) == 1
    draft.set("profile.mailboxes", 50)
    draft.config()
    draft.problems()
    assert len(advisor.asked) == 2 and advisor.asked[-1].profile.mailboxes == 50


def test_auto_tune_runs_the_advisors_setting_and_keeps_the_engineers_own_for_manual(tmp_path):
    draft, _heard = _draft(tmp_path, Advisor(threads=6, sluggish_sessions=2))
    draft.set("thread_count", 3)
    config = draft.config()
    assert (config.thread_count, config.sluggish_sessions) == (6, 2)
    assert draft.data["thread_count"] == 3
    draft.set_auto_tune(False)
    assert draft.config().thread_count == 3


def test_in_auto_tune_a_thread_count_the_engineer_cannot_edit_makes_nothing_invalid(tmp_path):
    draft, _heard = _draft(tmp_path)
    draft.set("thread_count", 1)  # one thread cannot serve two databases
    assert draft.config() is not None and not draft.problems()
    draft.set_auto_tune(False)
    [problem] = draft.problems()
    assert problem.field == "thread_count" and "cannot serve 2 databases" in problem.message


def test_a_bad_value_is_named_at_its_field_and_the_rest_is_not_judged_valid(tmp_path):
    draft, _heard = _draft(tmp_path)
    draft.set("profile.mailboxes", -5)
    assert draft.config() is None
    [problem] = draft.problems()
    assert problem.field == "profile.mailboxes" and "at least 1 mailbox (got -5)" in problem.message
    assert draft.first_advice() is None


def test_text_a_field_cannot_read_is_kept_until_a_value_reads(tmp_path):
    draft, heard = _draft(tmp_path)
    draft.set_parse_error("profile.mailboxes", "enter a whole number")
    assert draft.parse_errors == {"profile.mailboxes": "enter a whole number"} and heard == ["changed"]
    # the same value as before, typed again: the error goes, and that is a change
    assert draft.set("profile.mailboxes", 1000)
    assert draft.parse_errors == {} and heard == ["changed", "changed"]


def test_loading_replaces_everything_and_says_so(tmp_path):
    draft, heard = _draft(tmp_path)
    draft.set_parse_error("profile.mailboxes", "enter a whole number")
    heard.clear()
    draft.load(default_config(tmp_path / "other", databases=3, profile={"mailboxes": 777}), session="design")
    assert heard == ["session design", "changed", "loaded"]
    assert draft.session == "design" and draft.parse_errors == {}
    assert draft.config().database_count == 3 and draft.get("profile.mailboxes") == 777


def test_databases_replaced_as_a_list(tmp_path):
    draft, heard = _draft(tmp_path)
    draft.set_databases([{"database_path": str(tmp_path / "F"), "log_path": str(tmp_path / "L")}])
    assert heard == ["changed"] and draft.config().database_count == 1
    draft.set_databases([{"database_path": "", "log_path": str(tmp_path / "L")}])
    assert draft.config() is None and draft.problems()[0].field == "databases[0].database_path"


def test_another_session_asks_auto_tunes_first_setting_again(tmp_path):
    """The first setting reads the session's runs: a session answered at 2 threads, then a new one starting afresh."""
    draft: Draft[Setting]

    def advisor(_config: TestConfig) -> Setting:
        return Setting(2, 1) if draft.session == "answered" else Setting(9, 1)

    draft = Draft(tmp_path, advisor)
    draft.session = "answered"
    assert draft.config().thread_count == 2
    heard: list[str] = []
    draft.changed.connect(lambda: heard.append("changed"))
    draft.session = "new design"
    assert draft.config().thread_count == 9 and draft.first_advice() == Setting(9, 1)
    assert heard == ["changed"]


def test_another_session_keeps_what_the_engine_refused_the_values_for(tmp_path):
    """The session names where the run is kept, not what runs: the engine's reasons stand until a value changes."""
    draft: Draft[Setting] = Draft(tmp_path, lambda _config: Setting(9, 1))
    refused = Problem("thread_count", "each database needs at least one thread")
    draft.start_requested()
    draft.start_answered([refused])
    draft.session = "another design"
    assert draft.refusal == [refused] and refused in draft.problems()
    draft.set("thread_count", 4)
    assert draft.refusal == []


def test_a_run_that_ends_asks_the_advisor_again_and_an_applied_setting_becomes_the_values(tmp_path):
    advisor = Advisor()
    draft, heard = _draft(tmp_path, advisor)
    draft.set_auto_tune(False)
    assert draft.first_advice() == advisor.setting and len(advisor.asked) == 1
    assert draft.first_advice() == advisor.setting and len(advisor.asked) == 1  # asked once per change
    advisor.setting = Setting(18, 1)  # the session's runs changed what it says
    draft.runs_changed()
    assert draft.first_advice() == Setting(18, 1) and len(advisor.asked) == 2 and heard[-1] == "changed"
    draft.applied(18, 3)
    config = draft.config()
    assert config is not None and (config.thread_count, config.sluggish_sessions) == (18, 3)
