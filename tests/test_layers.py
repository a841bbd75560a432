"""The engine imports no Qt: checked by import-linter and by a clean interpreter."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENGINE_MODULES = sorted(
    ".".join(p.relative_to(ROOT).with_suffix("").parts) for p in (ROOT / "engine").rglob("*.py") if p.name != "__init__.py"
)


def test_import_linter_contracts_hold():
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    if lint is None:
        pytest.fail("lint-imports is missing: install the test extras (pip install -e .[test])")
    done = subprocess.run([lint], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_engine_loads_no_qt_at_run_time():
    code = (
        "import importlib, sys\n"
        f"for name in {ENGINE_MODULES!r}: importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in {'PySide6', 'shiboken6', 'pyqtgraph', 'ui', 'app'})\n"
        "print(bad); sys.exit(1 if bad else 0)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(ENGINE_MODULES) > 10


SOURCE_PACKAGES = ("engine", "reporting", "app", "ui")
LONG_FILE_LINES = 350
HOT_PATH = {"engine/workload/instance.py"}  # the transaction loop reads best in one piece


def _sources() -> list[Path]:
    return sorted(p for package in SOURCE_PACKAGES for p in (ROOT / package).rglob("*.py"))


def test_no_source_file_holds_several_jobs():
    """A file over ~350 lines is a sign of several jobs in one place (the transaction hot path aside)."""
    long = {
        str(p.relative_to(ROOT).as_posix()): n
        for p in _sources()
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > LONG_FILE_LINES
    }
    assert {k: v for k, v in long.items() if k not in HOT_PATH} == {}


def test_every_package_says_what_it_owns():
    packages = [p for p in _sources() if p.name == "__init__.py"]
    assert len(packages) >= 10
    for init in packages:
        tree = ast.parse(init.read_text(encoding="utf-8"))
        doc = ast.get_docstring(tree) or ""
        assert len(doc.split()) >= 8, f"{init.relative_to(ROOT)} does not say what its package owns"
