"""A run's report is a record of that run: the session and the advice as they stood when it ended, whenever it is
exported, however many runs follow it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.model.config import default_config
from engine.run.sinks import fan_out
from engine.run.sources.model import PROFILES, runner_for
from engine.store.recorder import RunRecorder
from engine.store.sqlite import Store
from reporting.bundle import load_run
from reporting.document import render_html


def _run(base: Path, store: Store, name: str, threads: int) -> Path:
    config = default_config(base / "data", databases=2, seed=3,
                            profile={"mailboxes": 800, "iops_per_mailbox": 0.12, "mailbox_size_mb": 100})
    config = config.model_copy(update={"thread_count": threads, "duration_s": 60.0, "warmup_s": 5.0})
    folder = base / name
    runner_for(PROFILES["sata-2x7k"], config, folder, fan_out(RunRecorder(store, "design", folder), lambda _e: None),
               session="design").run()
    return folder


def test_a_past_runs_report_keeps_its_own_advice_and_session_after_a_later_run_passes(tmp_path):
    store = Store(tmp_path / "store.sqlite3")
    try:
        first = _run(tmp_path, store, "run1", 16)  # two SATA disks overloaded: the latency fails
        before = render_html(load_run(str(first), store))
        assert "FAIL</span>" in before and "passed:" not in before
        second = _run(tmp_path, store, "run2", 3)  # the walkthrough's 3 threads: it passes
        later = load_run(str(second), store)
        assert later.result.verdict == "pass"
        passed = f"{later.result.summary.achieved_transactional_iops:,.1f} transactional IOPS"
        assert passed in render_html(later)  # the later run's report says it passed, at its figure
        bundle = load_run(str(first), store)
        after = render_html(bundle)
    finally:
        store.close()
    assert passed not in after  # run 1's page 5 used to say "3 threads … passed" with run 2's figure
    assert [run.run_id for run in bundle.session_runs] == [bundle.result.run_id]
    assert bundle.later_runs == [later.result.run_id] and later.result.run_id in after
    assert after.replace(_later_words(bundle.later_runs), "") == before.replace(_later_words([]), "")


def _later_words(ids: list[str]) -> str:
    if not ids:
        return ""
    return (f"; this report shows the session and its advice as they stood then, and the {len(ids)} later run(s) "
            f"({', '.join(ids)}) have reports of their own")


def test_the_advice_a_run_ended_with_is_kept_with_it_and_its_report_says_that(tmp_path, monkeypatch):
    """Kept as the run ended (the window's sinks and the command line's keep it): the report says it, not what the
    advisor would say today."""
    from app.advice import AdviceRecorder
    from engine.tuning.advisor import Advice, advise_session
    from reporting import document

    store = Store(tmp_path / "store.sqlite3")
    try:
        config = default_config(tmp_path / "data", databases=2, seed=3,
                                profile={"mailboxes": 800, "iops_per_mailbox": 0.12, "mailbox_size_mb": 100})
        config = config.model_copy(update={"thread_count": 16, "duration_s": 60.0, "warmup_s": 5.0})
        folder = tmp_path / "run1"
        emit = fan_out(RunRecorder(store, "design", folder), AdviceRecorder(store))
        result = runner_for(PROFILES["sata-2x7k"], config, folder, emit, session="design").run()
        kept = store.advice(result.run_id)
        assert kept is not None and Advice.from_dict(kept) == advise_session(config, [result], os.cpu_count() or 1,
                                                                            device=result.device)
        said = Advice.from_dict(kept)
        assert said.status == "next" and said.threads < 16  # 16 threads on two SATA disks: fewer
        monkeypatch.setattr(document, "advise_session", lambda *_args, **_kw: pytest.fail("advised again at render"))
        html = render_html(load_run(str(folder), store))
    finally:
        store.close()
    assert f"{said.threads} threads" in html
