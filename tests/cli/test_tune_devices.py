"""Evidence is the device's: a tuning reads the session's runs of the device it tunes, and sets the others aside."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

from engine.protocol import ExitCode
from engine.store.sqlite import Store
from tests.cli.test_cli import JETWISE, _init_small, jetwise
from tests.cli.test_tune_history import _sata_config
from tests.frozen.programs import said_until


def _runs(session: str) -> list[tuple[str, str | None]]:
    store = Store()
    try:
        return [(run.run_id, run.device) for run in store.runs(session)]
    finally:
        store.close()


def test_a_tune_on_the_disk_after_a_simulated_run_measures_the_disk(tmp_path):
    config = _init_small(tmp_path)
    ran = jetwise("run", str(config), "--simulate", "flash", "--session", "t", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    [(flash, _device)] = _runs("t")
    tuning = subprocess.Popen([*JETWISE, "tune", str(config), "--session", "t", "--output", str(tmp_path / "tune")],
                              cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    said = "".join(said_until(tuning, "the load sweep: Attaining prerequisites"))  # its databases made, warming up
    tuning.send_signal(signal.SIGINT)  # a sweep on a disk warms up for a minute: what matters has happened
    said += tuning.communicate(timeout=60)[1]
    assert tuning.returncode == ExitCode.ABORTED, said
    assert "already holds" not in said and "Run 1: a load sweep from" in said
    assert (f"note: run {flash} ran on the simulated device 'flash', not the storage at the configured paths: other "
            "storage, so set aside") in said
    # the sweep's I/O was the disk's own: its databases are on it, and the store says which run ran where
    assert any(path.stat().st_size > 0 for path in (tmp_path / "DB1").iterdir())
    [(_flash, flash_device), (sweep, sweep_device)] = _runs("t")
    assert (flash_device, sweep_device) == ("flash", "")
    listing = jetwise("history", "--session", "t", cwd=tmp_path).stdout
    rows = {run_id: line for line in listing.splitlines() for run_id in (flash, sweep) if run_id in line}
    assert rows[flash].endswith("pass (simulated: flash)") and "simulated" not in rows[sweep], listing
    document = json.loads(jetwise("history", "--session", "t", "--json", cwd=tmp_path).stdout)
    assert [run["device"] for run in document["sessions"][0]["runs"]] == ["flash", ""]


def test_a_tune_on_one_simulated_device_does_not_take_another_s_figure(tmp_path: Path):
    config = _sata_config(tmp_path)
    ran = jetwise("run", str(config), "--simulate", "flash", "--session", "s", "--duration", "10m", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    [(flash, _device)] = _runs("s")
    done = jetwise("tune", str(config), "--simulate", "sata-2x7k", "--session", "s", "--json", "--output",
                   str(tmp_path / "tune"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout)
    # its own load sweep and confirmation on the SATA disks, not the flash run's pass
    assert outcome["runs"] and outcome["runs"][0]["sweep"] and flash not in {run["run_id"] for run in outcome["runs"]}
    assert outcome["max_passing_iops"] == max(step["transactional_iops"] for step in outcome["steps"] if step["latency_ok"])
    [aside] = [note for note in outcome["advice"]["notes"] if note["what"] == "other_device"]
    assert (aside["runs"], aside["device"], aside["tuned"]) == ([flash], "flash", "sata-2x7k")
    assert f"run {flash} ran on the simulated device 'flash', not the simulated device 'sata-2x7k'" in done.stderr
    listing = jetwise("history", "--session", "s", cwd=tmp_path).stdout
    assert "(simulated: flash)" in listing and "(simulated: sata-2x7k)" in listing
