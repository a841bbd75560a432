"""The tooling the whole tree passes, run by the test suite: lint, dead code, types, import layers."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is missing: install the test extras (pip install -e .[test])")
    return found


def test_ruff_finds_nothing_over_the_whole_tree():
    done = subprocess.run([_tool("ruff"), "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_no_dead_code():
    done = subprocess.run([_tool("vulture")], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_engine_app_and_ui_type_check_strictly():
    done = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_benchmark_imports_what_the_tree_has():
    """A benchmark names the modules it measures: one the tree moved or split is found here, not on a benchmark day."""
    scripts = sorted((ROOT / "bench").glob("*.py"))
    code = "import importlib.util, sys\nfor path in sys.argv[1:]:\n" \
           "    spec = importlib.util.spec_from_file_location('bench_' + path.rsplit('/', 1)[-1][:-3], path)\n" \
           "    spec.loader.exec_module(importlib.util.module_from_spec(spec))\n"
    done = subprocess.run([sys.executable, "-c", code, *map(str, scripts)], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert scripts and done.returncode == 0, done.stderr[-2000:]
