"""Deleting a run removes the files Jetwise wrote in its folder, and nothing else."""

from __future__ import annotations

from engine.results.document import RESULT_FILE
from reporting.run_folders import remove_run_folder
from tests.ui.test_reports import record_run


def test_only_the_runs_own_files_go_and_the_folder_only_when_empty(tmp_path):
    from engine.store.sqlite import Store

    store = Store(tmp_path / "store.sqlite3")
    try:
        folder = tmp_path / "run"
        result = record_run(store, "s", folder)
    finally:
        store.close()
    assert (folder / "host.json").is_file()  # written as the run began: removed with it
    (folder / "report.html").write_text(f"<html><!-- run {result.run_id} --></html>")
    (folder / "Performance_other.html").write_text("<html><!-- run 20260101-000000-abcdef --></html>")
    (folder / "notes.txt").write_text("mine")
    (folder / "config.json").with_name("settings.json").write_text("{}")
    left = remove_run_folder(folder, "another-run")  # another run's id: its result is not this one's
    assert (folder / RESULT_FILE).is_file() and (folder / "report.html").is_file()
    left = remove_run_folder(folder, result.run_id)
    assert sorted(p.name for p in left) == ["Performance_other.html", "notes.txt", "settings.json"]
    assert sorted(p.name for p in folder.iterdir()) == sorted(p.name for p in left)
    for path in left:
        path.unlink()
    (folder / "link.json").symlink_to(tmp_path / "store.sqlite3")
    assert [p.name for p in remove_run_folder(folder, result.run_id)] == ["link.json"]  # a link is not ours
    (folder / "link.json").unlink()
    assert remove_run_folder(folder, result.run_id) == [] and not folder.exists()
