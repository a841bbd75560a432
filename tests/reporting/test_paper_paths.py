"""A printed report goes to the customer: it names the databases and logs tested where they are, but no folder of the
engineer's machine (the run's or the suite's folder, the configuration file's, the home folder) beyond its own name."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from engine.io.config_file import save_config
from tests.cli.test_cli import JETWISE
from tests.conftest import small_config
from tests.pdf_text import needs_pdftotext, pdf_text


def _compact(text: str) -> str:
    """Without any white space (nor the break opportunities a printed path has): a path wrapped at a separator reads
    whole again."""
    return re.sub(r"[\s\u200b]+", "", text)


def _read(pdf: Path) -> str:
    """The PDF's text in reading order, each table cell's lines together (not laid out as on the page, where a wrapped
    cell's lines interleave with its neighbours'), without white space."""
    return _compact(subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout)


@needs_pdftotext
def test_the_pdf_of_a_run_names_the_tested_paths_but_not_the_engineers_folders(tmp_path):
    home = tmp_path / "home" / "engineer"
    config_file = home / "Desktop" / "array-a.json"
    config_file.parent.mkdir(parents=True)
    config = small_config(tmp_path / "server" / "data")
    save_config(config, config_file)
    folder = home / "Jetwise runs" / "Array A" / "run-1"
    env = {**os.environ, "HOME": str(home), "USERPROFILE": str(home), "JETWISE_DATA_DIR": str(tmp_path / "store"),
           "QT_QPA_PLATFORM": "offscreen"}
    ran = subprocess.run([*JETWISE, "run", str(config_file), "--simulate", "flash", "--output", str(folder)],
                         capture_output=True, text=True, timeout=300, env=env, cwd=home)
    assert ran.returncode in (0, 1), ran.stderr
    pdf = tmp_path / "for-the-customer.pdf"
    done = subprocess.run([*JETWISE, "report", str(folder), "--pdf", str(pdf)], capture_output=True, text=True,
                          timeout=300, env=env, cwd=home)
    assert done.returncode == 0, done.stderr
    assert str(folder) in (folder / "test.log").read_text(encoding="utf-8")  # the run's own log does name it

    text = _compact(pdf_text(pdf)) + _read(pdf)
    assert _compact(str(config.databases[0].database_path)) in _read(pdf)  # the tested server's paths belong
    assert _compact(str(config.databases[1].log_path)) in _read(pdf)
    assert _compact(str(home)) not in text and _compact(str(tmp_path / "home")) not in text
    assert "run-1/samples.sqlite" in text  # the run's folder by its own name
