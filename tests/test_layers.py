"""The house's structure: the engine imports no Qt (import-linter and a clean interpreter), each module holds one named job."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.module_jobs import JOBS

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
MOST_WORDS = 14  # a job said in more is two jobs, or not yet named


def _sources() -> list[Path]:
    return sorted(p for package in SOURCE_PACKAGES for p in (ROOT / package).rglob("*.py"))


def test_every_module_holds_one_named_job():
    """Each package's modules and each module's one job, named in tests/module_jobs.py: a new module says its job
    there, a job is one short phrase, and no two modules of a package hold the same one."""
    found = {package: {p.relative_to(ROOT / package).as_posix() for p in (ROOT / package).rglob("*.py")
                       if p.name != "__init__.py"} for package in SOURCE_PACKAGES}
    named = {package: set(JOBS.get(package, {})) for package in SOURCE_PACKAGES}
    assert {k: sorted(found[k] - named[k]) for k in found if found[k] - named[k]} == {}, "modules with no job named"
    assert {k: sorted(named[k] - found[k]) for k in found if named[k] - found[k]} == {}, "jobs of modules that are gone"
    for package, jobs in JOBS.items():
        for module, job in jobs.items():
            assert 3 <= len(job.split()) <= MOST_WORDS and ";" not in job, f"{package}/{module}: {job!r} is not one job"
        assert len(set(jobs.values())) == len(jobs), f"two modules of {package} name the same job"


def test_every_package_says_what_it_owns():
    packages = [p for p in _sources() if p.name == "__init__.py"]
    assert len(packages) >= 10
    for init in packages:
        tree = ast.parse(init.read_text(encoding="utf-8"))
        doc = ast.get_docstring(tree) or ""
        assert len(doc.split()) >= 8, f"{init.relative_to(ROOT)} does not say what its package owns"
