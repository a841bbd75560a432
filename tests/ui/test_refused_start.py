"""Start pressed, and the engine refuses the configuration before the run begins: the window stays on Review, which
lists why at each field in the form's words; Start waits until a value changes or the checks pass again; and the
refused start leaves no run folder behind, removing only what the window itself wrote."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWizard

from engine.io.locks import FolderLocks
from engine.model.draft import Draft
from engine.model.validation import Problem
from engine.protocol import PROTOCOL_VERSION, RefusalEvent
from engine.run.request import RunRequest
from tests.conftest import small_config
from ui.controllers import engine_process
from ui.controllers.engine_process import EngineProcess
from ui.wizard import PAGE_DATABASES, PAGE_REVIEW

ENGINE_TIMEOUT_MS = 120_000
HELD = Problem("databases[0].database_path", "/data/DB1 is in use by run r-1 (process 7 on host, started 2026-11-21 "
               "10:00:00); wait for it to end or choose another folder")
# a problem of the whole configuration whose words begin like a field's: a fact is not read back from its words
WORDY = Problem("", "databases[1].log_path: looks like a field, but the problem is the configuration's")


def _finish(window):
    return window.wizard.button(QWizard.WizardButton.FinishButton)


def test_a_start_the_engine_refuses_stays_on_review_with_the_reasons_at_their_fields(qtbot, window, tmp_path, monkeypatch):
    dialogs: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, _title, text, *_a: dialogs.append(text))
    config = small_config(tmp_path / "data" / "dbs")
    config.databases[0].database_path.mkdir(parents=True)
    earlier = tmp_path / "runs" / "held" / "20260101-000000-t2-s1"
    earlier.mkdir(parents=True)
    (earlier / "result.json").write_text("{}")  # another run's folder: never touched
    window.wizard.load_config(config, session="held")
    window.wizard.restart_at(PAGE_REVIEW)
    review, finish = window.wizard.review, _finish(window)
    qtbot.waitUntil(finish.isEnabled, timeout=10_000)  # the checks passed; then another run takes a folder
    with FolderLocks([config.databases[0].database_path], "20261121-other"):
        qtbot.mouseClick(finish, Qt.MouseButton.LeftButton)
        assert window.stack.currentWidget() is window.wizard and window.wizard.currentId() == PAGE_REVIEW
        assert "Starting" in review.status.text() and not finish.isEnabled()
        assert not window.wizard.button(QWizard.WizardButton.BackButton).isEnabled()
        qtbot.waitUntil(lambda: not window.runs.running, timeout=ENGINE_TIMEOUT_MS)
        assert window.stack.currentWidget() is window.wizard and dialogs == []
        text = review.text.toPlainText()
        assert "Error — Database 1 path (Databases and logs page): " in text
        assert "is in use by run 20261121-other" in text and "databases[0]" not in text
        assert not finish.isEnabled() and review.recheck.isVisibleTo(review)
        assert "Check again" in review.status.text()
        assert "Review lists why" in window.statusBar().currentMessage()
        assert "see the messages" not in window.statusBar().currentMessage()
        assert window.wizard.button(QWizard.WizardButton.BackButton).isEnabled()
        # nothing left of the refused start; the other run's folder is as it was
        assert sorted(p.name for p in (tmp_path / "runs" / "held").iterdir()) == [earlier.name]
        assert [p.name for p in earlier.iterdir()] == ["result.json"]
        # the refusal stands at its row on the Databases page too
        window.wizard.back()
        window.wizard.back()
        assert window.wizard.currentId() == PAGE_DATABASES
        rows = window.wizard.databases
        assert "is in use by run 20261121-other" in rows.table.item(0, 3).text()
        window.wizard.next()
        window.wizard.next()
        assert window.wizard.currentId() == PAGE_REVIEW
        qtbot.waitUntil(lambda: not review.checks.pending, timeout=10_000)  # checked again, still held
        assert not finish.isEnabled() and review.recheck.isEnabled()
    # the other run has ended: checking again passes, and Start is back
    qtbot.mouseClick(review.recheck, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(finish.isEnabled, timeout=10_000)
    assert "in use" not in review.text.toPlainText() and not review.recheck.isVisibleTo(review)


def _fake_engine(monkeypatch, problems: list[Problem], write: str | None = None, log: str = "") -> None:
    """`jetwise engine` as a few lines of Python: a hello, an error log line if given, the refusal, exit 2."""
    refusal = RefusalEvent(problems=problems).model_dump_json()
    code = (
        "import json, pathlib, sys\n"
        "out = pathlib.Path(json.loads(pathlib.Path(sys.argv[-1]).read_text())['output'])\n"
        f"print(json.dumps({{'event': 'hello', 'protocol': {PROTOCOL_VERSION}, 'tool_version': 'fake'}}))\n"
        + (f"print(json.dumps({{'event': 'log', 'time': '2026-11-21T10:00:00+00:00', 'level': 'error', 'message': {log!r}}}))\n"
           if log else "")
        + f"print({refusal!r})\n"
        + (f"(out / {write!r}).write_text('the engine wrote this')\n" if write else "")
        + "sys.exit(2)\n"
    )
    monkeypatch.setattr(engine_process, "engine_command", lambda: (sys.executable, ["-c", code]))


def _refused(qtbot, tmp_path: Path, output: Path):
    engine = EngineProcess()
    with qtbot.waitSignal(engine.finished, timeout=ENGINE_TIMEOUT_MS) as ended:
        engine.start(RunRequest(config=small_config(tmp_path / "data"), output=output, session="s"))
    return ended.args[0]


def test_a_refused_engine_gives_its_problems_at_their_fields_and_leaves_no_folder(qtbot, tmp_path, monkeypatch):
    store = Problem("session", "the run store is on a full volume")
    _fake_engine(monkeypatch, [store, HELD, WORDY], log="the store is on a full volume")
    output = tmp_path / "runs" / "session" / "20261121-100000-t2-s1"
    outcome = _refused(qtbot, tmp_path, output)
    assert outcome.refused_before_start and outcome.code == 2
    assert outcome.problems == (store, HELD, WORDY)  # each as it was sent; an error log line is not made a problem
    assert not (tmp_path / "runs").exists()  # every folder the window made for the run, and only those


def test_a_refused_start_keeps_what_the_window_did_not_write(qtbot, tmp_path, monkeypatch):
    _fake_engine(monkeypatch, [HELD], write="test.log")
    (tmp_path / "runs" / "session").mkdir(parents=True)
    (tmp_path / "runs" / "session" / "notes.txt").write_text("mine")
    output = tmp_path / "runs" / "session" / "20261121-100000-t2-s1"
    outcome = _refused(qtbot, tmp_path, output)
    assert outcome.refused_before_start
    assert sorted(p.name for p in output.iterdir()) == ["test.log"]  # its folder stays for it; the window's file goes
    assert (tmp_path / "runs" / "session" / "notes.txt").read_text() == "mine"


def test_the_engines_refusal_stands_in_the_draft_until_a_value_changes_or_it_is_cleared(tmp_path):
    draft: Draft = Draft(tmp_path, lambda _config: None)  # type: ignore[arg-type, return-value]
    draft.set_auto_tune(False)
    held = HELD
    draft.start_requested()
    assert draft.starting
    whole = Problem("", "the store refused the run: it is another version's")
    draft.start_answered([held, whole])
    assert not draft.starting and held in draft.problems()
    assert whole in draft.problems()  # a problem of the whole configuration stays the whole's: its words are not searched
    draft.set("copies_per_database", 2)
    assert held not in draft.problems()
    draft.start_answered([held])
    draft.clear_refusal()
    assert held not in draft.problems()


def test_a_run_folder_the_window_cannot_write_is_said_on_review(qtbot, window, tmp_path, monkeypatch):
    dialogs: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, _title, text, *_a: dialogs.append(text))
    window.runs.runs_root = tmp_path / "not a folder"
    window.runs.runs_root.write_text("a file where the runs should go")
    window.wizard.load_config(small_config(tmp_path / "data" / "dbs"), session="nowhere")
    window.wizard.restart_at(PAGE_REVIEW)
    review, finish = window.wizard.review, _finish(window)
    qtbot.waitUntil(finish.isEnabled, timeout=10_000)
    qtbot.mouseClick(finish, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "Run folder (where the window keeps each run's results): " in review.text.toPlainText(),
                    timeout=10_000)
    assert "cannot be written" in review.text.toPlainText() and not finish.isEnabled() and dialogs == []
    assert not window.state.starting and window.stack.currentWidget() is window.wizard
    assert window.runs.runs_root.read_text() == "a file where the runs should go"
    window.wizard.tuning.fields["sluggish_sessions"].set_value(2)  # a value changes: Start may try again
    qtbot.waitUntil(finish.isEnabled, timeout=10_000)


def test_a_run_refused_outside_the_wizard_shows_its_reasons_in_the_wizard_without_a_dialog(qtbot, window, tmp_path,
                                                                                          monkeypatch):
    """A run started from the results page (the advice applied, the full-length run) that the engine refuses."""
    dialogs: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, _title, text, *_a: dialogs.append(text))
    _fake_engine(monkeypatch, [HELD])
    config = small_config(tmp_path / "data" / "dbs")
    window.wizard.load_config(config, session="held")
    window.runs.start_run(config)  # not from the wizard's Start
    qtbot.waitUntil(lambda: not window.runs.running and window.stack.currentWidget() is window.wizard,
                    timeout=ENGINE_TIMEOUT_MS)
    assert dialogs == []
    assert "is in use by run r-1" in window.statusBar().currentMessage()
