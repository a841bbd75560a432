"""Capture the window's screens for the docs: real runs on a scratch folder, under Xvfb.

    xvfb-run -a -s "-screen 0 1280x900x24" python docs/screenshots/capture.py [SCRATCH]

Runs a short manual test that misses its target, applies the advisor's suggestion,
and grabs each page of the wizard, the run view, the results and the session view
into docs/screenshots/.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

SCRATCH = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="jetwise-shots-"))
os.environ["JETWISE_DATA_DIR"] = str(SCRATCH / "store")

from PySide6.QtCore import QEventLoop, QSettings, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from engine.model.config import default_config  # noqa: E402


def wait(ms: int) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def wait_until(condition, timeout_ms: int = 300_000) -> None:
    waited = 0
    while not condition() and waited < timeout_ms:
        wait(100)
        waited += 100
    if not condition():
        raise SystemExit("timed out")


def main() -> int:
    app = QApplication([])
    app.setOrganizationName("JetwiseScreenshots")
    app.setApplicationName("Jetwise")
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(SCRATCH / "settings"))
    from engine.store.sqlite import Store
    from ui.shell import MainWindow
    from ui.wizard import PAGE_REVIEW

    data = SCRATCH / "data"
    data.mkdir(parents=True, exist_ok=True)
    store = Store()
    window = MainWindow(store, runs_root=SCRATCH / "runs", data_base=data)
    window.resize(1200, 860)
    window.show()

    def shot(name: str) -> None:
        wait(400)
        window.grab().save(str(HERE / f"{name}.png"))
        print("saved", name)

    config = default_config(
        data, databases=2, thread_count=2, sluggish_sessions=8, duration_s=30.0, warmup_s=5.0,
        capacity_percent=0.01, description="Screenshot run",
        profile={"mailboxes": 5000, "iops_per_mailbox": 1.0, "mailbox_size_mb": 1024},
    )
    window.wizard.load_config(config, session="Array A, 5,000 mailboxes")
    window.wizard.tuning.manual.setChecked(True)
    while window.wizard.currentId() != PAGE_REVIEW:
        window.wizard.next()
        wait(500)
    window.wizard.review.session.setText("Array A, 5,000 mailboxes")
    window.wizard.accept()
    wait_until(lambda: window.run_view.plots.iops.n >= 25)
    shot("run")
    wait_until(lambda: window.stack.currentWidget() is window.results_view)
    shot("results-fail-with-advice")
    for _ in range(4):  # apply the advice until the setting passes
        window.results_view.apply.click()
        wait_until(lambda: window.stack.currentWidget() is window.run_view)
        wait_until(lambda: window.stack.currentWidget() is window.results_view)
        if window.runs.last_result.verdict == "pass":
            break
    shot("results-after-advice")
    window.show_session()
    shot("session")

    window.new_test()  # as the engineer plans the next test: the last run's status words go
    window.wizard.restart()
    window.wizard.welcome.fill_sessions()
    window.stack.setCurrentWidget(window.wizard)
    for name in ("wizard-1-welcome", "wizard-2-profile", "wizard-3-tuning", "wizard-4-databases",
                 "wizard-5-test-type", "wizard-6-review"):
        wait(700)
        shot(name)
        window.wizard.next()
    store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
