"""Managing the store's tuning sessions from the session view: rename one, delete a run (its folder with it) or a
whole session, compare two runs side by side. Deleting asks first and removes only what Jetwise wrote
(`reporting.run_folders`); a run under way is never touched."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QInputDialog, QLineEdit, QWidget

from engine.store.sqlite import Store
from reporting.run_folders import remove_run_folder
from ui import confirm
from ui.controllers.runs import RunController
from ui.widgets.compare import CompareDialog


class SessionActions:
    def __init__(self, store: Store, runs: RunController, window: QWidget) -> None:
        self._store = store
        self._runs = runs
        self._window = window

    def rename(self, name: str) -> str | None:
        """Ask for the session's new name; the name it has after (None: it kept its name). What went wrong is said."""
        new, ok = QInputDialog.getText(self._window, "Rename tuning session", f"New name for '{name}':",
                                       QLineEdit.EchoMode.Normal, name)
        new = new.strip()
        if not ok or not new or new == name:
            return None
        self._store.rename_session(name, new)  # refused, with the reason, for a name a session cannot have
        if self._runs.draft.session == name:  # the next run goes on in the renamed session
            self._runs.draft.session = new
        return new

    def delete_run(self, run_id: str) -> str:
        row = self._store.run(run_id)
        if row is None:
            return f"No run {run_id} in the run store"
        if self._runs.running or row.status == "running":
            return "A run is under way: stop it first"
        folder = Path(row.output_dir)
        if not confirm.ask(self._window, "Delete run?", f"Delete run {run_id} of '{row.session}' from the run store, "
                           f"and the files Jetwise wrote in its folder {folder}? Anything else there is kept.",
                           yes="Delete the run", no="Keep it"):
            return "Nothing deleted"
        return self._forget(run_id, folder)

    def delete_session(self, name: str) -> str:
        runs = self._store.runs(name)
        if self._runs.running or any(run.status == "running" for run in runs):
            return "A run is under way: stop it first"
        if not confirm.ask(self._window, "Delete session?", f"Delete tuning session '{name}' and its {len(runs):,} "
                           "run(s) from the run store, and the files Jetwise wrote in each run's folder? Anything else "
                           "there is kept; the test databases are not touched (File → Delete test files).",
                           yes="Delete the session", no="Keep it"):
            return "Nothing deleted"
        said = [self._forget(run.run_id, Path(run.output_dir)) for run in runs]
        left = [words for words in said if "left" in words]
        return f"Deleted tuning session '{name}' and its {len(runs):,} run(s)" + (f"; {'; '.join(left)}" if left else "")

    def _forget(self, run_id: str, folder: Path) -> str:
        left = remove_run_folder(folder, run_id)
        self._store.forget_run(run_id)
        if self._runs.last_output == folder:  # the results page no longer has a run behind it
            self._runs.last_result, self._runs.last_output = None, None
        if left:
            return f"Deleted run {run_id}; {folder} was left with {len(left):,} file(s) Jetwise did not write"
        return f"Deleted run {run_id} and its folder"

    def compare(self, first: str, second: str) -> CompareDialog | None:
        one, two = self._store.result(first), self._store.result(second)
        if one is None or two is None:
            return None
        dialog = CompareDialog(one, two, self._window)
        dialog.open()
        return dialog
