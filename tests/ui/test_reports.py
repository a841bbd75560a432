"""The window's reports: the same as `jetwise report` (session and advisor included), and said plainly when
nothing on the machine can open them."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QDesktopServices

from engine.results.schema import RunResult
from engine.run.sinks import fan_out
from engine.run.sources.model import PROFILES, runner_for
from engine.store.recorder import RunRecorder
from engine.store.sqlite import Store
from reporting.bundle import load_run
from reporting.document import render_html
from tests.conftest import small_config


def record_run(store: Store, session: str, folder: Path, threads: int = 2, **update: object) -> RunResult:
    """A short run on the simulated flash device, recorded in `store` under `session` as the window's runs are."""
    config = small_config(folder.parent / "data", make_base=True, thread_count=threads, **update)
    emit = fan_out(RunRecorder(store, session, folder), lambda _event: None)
    return runner_for(PROFILES["flash"], config, folder, emit, session=session).run()


def shown(window, result: RunResult, folder: Path) -> None:
    """The window shows `result` as if it had just run it."""
    window.runs.last_result = result
    window.runs.last_output = folder
    window.results_view.show_result(result, None)
    window.stack.setCurrentWidget(window.results_view)


def test_the_report_opened_from_the_window_is_the_command_lines_with_its_session_and_advice(window, tmp_path):
    record_run(window.store, "walk", tmp_path / "runs" / "one", threads=2)
    second = record_run(window.store, "walk", tmp_path / "runs" / "two", threads=3)
    shown(window, second, tmp_path / "runs" / "two")

    path = window.reports.open_report()
    assert path == tmp_path / "runs" / "two" / "report.html"
    html = path.read_text(encoding="utf-8")
    assert "not part of a tuning session" not in html
    assert "Tuning session “walk”: 2 run(s)" in html and "Advisor's conclusion" in html
    assert html == render_html(load_run(second.run_id, window.store))  # what `jetwise report <run-id>` writes
    assert window.statusBar().currentMessage() == f"Report: {path}"


def test_a_report_nothing_can_open_is_said_with_its_path(window, tmp_path, monkeypatch):
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda _url: False)  # no browser, no file manager
    result = record_run(window.store, "bare", tmp_path / "runs" / "one")
    shown(window, result, tmp_path / "runs" / "one")

    path = window.reports.open_report()
    assert path is not None and path.exists()
    assert window.statusBar().currentMessage() == (
        f"Nothing on this machine could open the report (no browser is set up); open it by hand: {path}")
    window.reports.open_run_folder()
    assert window.statusBar().currentMessage() == (
        f"Nothing on this machine could open the run folder (no file manager is set up); open it by hand: "
        f"{tmp_path / 'runs' / 'one'}")
    window.new_test()  # the next test is planned: words about the last run's files go with it
    assert window.statusBar().currentMessage() == "" and window.stack.currentWidget() is window.wizard


def test_export_csv_from_the_window_writes_every_sample_as_the_command_line_does(qtbot, window, tmp_path, monkeypatch):
    import csv

    from reporting.bundle import load_run
    from reporting.csv_export import write_csv

    folder = tmp_path / "runs" / "csv"
    result = record_run(window.store, "csv", folder)
    shown(window, result, folder)
    button = next(b for b in window.results_view.run_buttons if b.text() == "Export CSV…")
    assert button.isEnabled()
    path = window.reports.export_csv(tmp_path / "samples.csv")
    assert path is not None and window.statusBar().currentMessage().startswith(f"CSV samples: {path} (")
    expected = tmp_path / "expected.csv"
    rows = write_csv(load_run(str(folder), window.store), expected)
    assert path.read_bytes() == expected.read_bytes() and rows > 1
    with path.open(encoding="utf-8") as handle:
        assert len(list(csv.reader(handle))) == rows + 1  # a header, then each row
    (tmp_path / "elsewhere.csv").write_text("not Jetwise's")
    (tmp_path / "link.csv").symlink_to(tmp_path / "elsewhere.csv")
    from PySide6.QtWidgets import QMessageBox

    said: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, title, text, *_a: said.append(f"{title}: {text}"))
    assert window.reports.export_csv(tmp_path / "link.csv") is None  # never written through a link
    assert said and said[0].startswith("CSV not written") and (tmp_path / "elsewhere.csv").read_text() == "not Jetwise's"


@pytest.mark.parametrize("what", ["CSV", "PDF"])
def test_an_export_is_not_written_in_the_root_of_a_file_system(qtbot, window, tmp_path, monkeypatch, what):
    from PySide6.QtWidgets import QMessageBox

    folder = tmp_path / "runs" / "root"
    shown(window, record_run(window.store, "root", folder), folder)
    said: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, title, text, *_a: said.append(f"{title}: {text}"))
    target = Path("/") / f"report.{what.lower()}"  # the window may run as an administrator: only the rule keeps it out
    export = window.reports.export_csv if what == "CSV" else window.reports.export_pdf
    assert export(target) is None
    assert said == [f"{what} not written: {target} was not written: {target} is in /, the root of its file system; write "
                    "it in a folder of its own"]
    assert not target.exists()


def test_delete_test_files_asks_says_what_it_frees_and_keeps_what_is_not_jetwises(qtbot, window, tmp_path, monkeypatch):
    from ui import confirm

    folder = tmp_path / "runs" / "clean"
    result = record_run(window.store, "clean", folder)
    config = result.configuration
    window.runs.config = config
    from engine.io.file_names import database_file_path
    from engine.io.files import prepare_database
    from engine.io.platform import default_backend
    from engine.model.config import DatabaseSource

    for spec in config.databases:  # the simulated device wrote nothing: the files a real run leaves
        spec.database_path.mkdir(parents=True, exist_ok=True)
    path = database_file_path(config.databases[0].database_path, 0)
    prepare_database(default_backend(), path, config.database_pages, DatabaseSource.CREATE, unbuffered=False)
    asked: list[str] = []
    monkeypatch.setattr(confirm, "ask", lambda _parent, title, text, **_b: asked.append(text) and False)
    action = next(a for a in window.menuBar().actions()[0].menu().actions() if a.text() == "&Delete test files…")
    action.trigger()
    assert "Delete 1 Jetwise test file(s)" in asked[0] and path.is_file()  # kept: the engineer said no
    assert window.statusBar().currentMessage() == "Nothing deleted"
    monkeypatch.setattr(confirm, "ask", lambda *_a, **_b: True)
    from engine.io.locks import FolderLocks

    with FolderLocks([path.parent], "20261128-elsewhere"):  # a test another Jetwise runs on these folders
        action.trigger()
    said = window.statusBar().currentMessage()
    assert said.startswith("Nothing deleted: ") and "is in use by run 20261128-elsewhere (process " in said and path.is_file()
    action.trigger()
    assert not path.exists() and window.statusBar().currentMessage().startswith("Deleted 1 test file(s): ")


def test_delete_test_files_after_a_test_across_servers_says_where_each_server_keeps_them_and_how_to_remove_them(
        qtbot, window, tmp_path):
    from engine.model.profile import ServerPart

    result = record_run(window.store, "across-clean", tmp_path / "runs" / "across")
    own = [spec.model_copy(update={"database_path": tmp_path / "mbx2-db"}) for spec in result.configuration.databases]
    window.runs.config = result.configuration.model_copy(update={
        "servers": [ServerPart(host="mbx1"), ServerPart(host="mbx2", databases=own)]})
    window.runs.last_output = tmp_path / "runs" / "across"
    action = next(a for a in window.menuBar().actions()[0].menu().actions() if a.text() == "&Delete test files…")
    action.trigger()  # nothing asked: nothing of it is on this machine to delete
    said = window.statusBar().currentMessage()
    assert said.startswith("A test across servers leaves its test files on each server") and "mbx1 in " in said
    assert f"mbx2 in {tmp_path / 'mbx2-db'}" in said and "jetwise clean" in said
    assert f"{tmp_path / 'runs' / 'across' / 'hosts'}\\<server>" in said
