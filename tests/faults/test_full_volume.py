"""A volume that fills mid-run ends the run cleanly: an aborted result that says why, every sample so far, no traceback.

The full volume is real: a small tmpfs in a private mount namespace (`unshare -rm`, no root
needed where user namespaces are allowed), filled once the run has written two samples.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engine.results.document import read_samples
from engine.run.sinks import RESERVE_FILE
from tests.cli.test_cli import jetwise
from tests.faults.test_parent_death import _config

ROOT = Path(__file__).parents[2]
STORE_RUN_S = 15  # the run whose store fills: one-second samples, all of them kept in its folder


def _namespaces() -> bool:
    if sys.platform != "linux" or shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-rm", "true"], capture_output=True)
    return probe.returncode == 0


pytestmark = pytest.mark.skipif(not _namespaces(), reason="needs Linux mount namespaces (unshare -rm) for a small volume")


def _runs(history: str) -> list[dict]:
    return [run for session in json.loads(history)["sessions"] for run in session["runs"]]


def _fill_mid_run(tmp_path: Path, *, store: bool) -> tuple[Path, str]:
    """Fill the volume mid-run; the run folder and its reasons, once the run is shown to have ended aborted."""
    # The store's case runs to its verdict, so it is short; the run folder's ends when the volume fills.
    config = _config(tmp_path, "--mailbox-size-mb", "1", "--duration", f"{STORE_RUN_S}s" if store else "60s")
    mount = tmp_path / "small"
    output = tmp_path / "run" if store else mount / "run"
    copy = tmp_path / "copy"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    done = subprocess.run(["unshare", "-rm", sys.executable, "-m", "tests.faults.fill_volume", str(mount), "3m",
                           str(config), str(output), str(copy), *(["--store"] if store else [])],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    folder = tmp_path / "run" if store else copy / "run"
    stderr = (tmp_path / "stderr.txt").read_text()
    assert "Traceback" not in stderr
    result = json.loads((folder / "result.json").read_text())
    if store:  # the store takes a run's start, log lines and result, not its samples: the run goes on to its verdict
        assert int(done.stdout.split()[-1]) in (0, 1), stderr
        return folder, result["summary"]["verdict"]
    assert int(done.stdout.split()[-1]) == 3, stderr  # aborted, never 1 (the code for FAIL)
    assert result["summary"]["verdict"] == "aborted"
    return folder, " ".join(result["summary"]["reasons"])


def test_a_run_folder_whose_volume_fills_ends_aborted_with_its_samples_and_the_reason(tmp_path):
    folder, reason = _fill_mid_run(tmp_path, store=False)
    assert f"the run folder {tmp_path / 'small' / 'run'} could not be written (No space left on device)" in reason
    assert len(read_samples(folder)) >= 2  # what was measured before the volume filled stays
    assert not (folder / RESERVE_FILE).exists()  # given back for the result
    assert "could not be written" in (folder / "test.log").read_text()
    history = jetwise("history", "--json", cwd=tmp_path)
    runs = _runs(history.stdout)
    assert runs[-1]["verdict"] == "aborted" and "could not be written" in runs[-1]["reasons"][0], history.stdout


def test_a_store_whose_volume_fills_leaves_the_run_to_its_verdict_and_the_history_takes_it_from_the_folder(tmp_path):
    folder, verdict = _fill_mid_run(tmp_path, store=True)
    assert verdict in ("pass", "fail") and len(read_samples(folder)) >= STORE_RUN_S - 2  # the run folder has all of it
    # The store (copied off the small volume) missed the run's end; the history takes it from the run folder.
    history = subprocess.run([sys.executable, "-m", "app", "history", "--json"], capture_output=True, text=True,
                             cwd=tmp_path, env=dict(os.environ, JETWISE_DATA_DIR=str(tmp_path / "copy")))
    assert history.returncode == 0, history.stderr
    assert _runs(history.stdout)[-1]["verdict"] == verdict
