"""The simulated device's results hold together as a measured run's do: no percentile above its maximum, in the
result or rebuilt from the samples file after a kill."""

from __future__ import annotations

import pytest

from engine.model.config import default_config
from engine.results.document import read_samples
from engine.run.samples import rebuild_result
from engine.run.sources.model import PROFILES, runner_for
from engine.workload.stats import STREAMS


@pytest.mark.parametrize(("databases", "duration_s"), [(48, 600.0), (2, 86_400.0)])  # few I/Os a second; a day
def test_no_percentile_lies_above_the_maximum_of_its_stream(tmp_path, databases, duration_s):
    config = default_config(tmp_path / "data", databases=databases, duration_s=duration_s, warmup_s=60.0,
                            test_type="stress")
    result = runner_for(PROFILES["sas-8x10k"], config, tmp_path / "run", lambda _event: None).run()
    checked = 0
    for row in result.instances:
        for stream in STREAMS:
            highest = row.stream_value(stream, "max_latency_ms")
            for label, value in row.latency_percentiles_ms.get(stream, {}).items():
                assert value is not None and value <= highest, (row.name, stream, label, value, highest)
                checked += 1
    assert checked >= databases * 4 * 4  # reads, writes, log writes and maintenance reads at four percentiles
    # the server's, as the run's result has them and as a kill's rebuilt result has them from the samples file
    rebuilt = rebuild_result(config, read_samples(tmp_path / "run"), result.run_id, "the engine process ended")
    for summary in (result.summary, rebuilt.summary):
        assert set(summary.latency_percentiles_ms) >= {"db_read", "db_write", "log_write", "bdm_read"}
        for stream, values in summary.latency_percentiles_ms.items():
            highest = max(row.stream_value(stream, "max_latency_ms") for row in result.instances)
            assert all(value is not None and value <= highest for value in values.values()), (stream, values, highest)
    # played a window at a time, its samples file holds what it counted: rebuilt, each instance is as the run wrote it
    own = {"verdict", "database_bytes_initial", "database_bytes_final"}  # how it ended; a simulated device has no files
    assert [row.model_dump(exclude=own) for row in rebuilt.instances] == \
        [row.model_dump(exclude=own) for row in result.instances]
