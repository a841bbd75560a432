"""The console's run summary says when nothing was measured instead of quoting IOPS over 0 s."""

from __future__ import annotations

import io

from app.cli.console import print_result
from engine.model.config import default_config
from engine.run.simulation import PROFILES, runner_for


def _result(tmp_path):
    config = default_config(tmp_path / "data", duration_s=10.0, warmup_s=1.0)
    return runner_for(PROFILES["flash"], config, tmp_path / "run", lambda _e: None).run()


def test_a_run_with_nothing_measured_says_so_and_quotes_no_iops(tmp_path):
    result = _result(tmp_path)
    result.summary.measured_s = 0.1
    out = io.StringIO()
    print_result(result, out)
    assert "Nothing measured: 0.1 s of measurement" in out.getvalue() and "Achieved" not in out.getvalue()


def test_a_measured_run_quotes_its_iops(tmp_path):
    out = io.StringIO()
    print_result(_result(tmp_path), out)
    assert "Achieved" in out.getvalue() and "Nothing measured" not in out.getvalue()
