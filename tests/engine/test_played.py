"""The simulated device plays the workload model's own cache (`engine.run.played`), not the formula the prediction
table says (`engine.run.streams.mix_of`): the two are computed apart, so each checks the other. On the table's
designs (databases far larger than their cache) they agree; on a database the cache nearly holds the model's
checkpoint writes a page once for many updates, which the formula does not know, and the simulated device follows
the model."""

from __future__ import annotations

import pytest

from engine.model.config import default_config
from engine.model.exchange import generation
from engine.model.profile import ExchangeVersion
from engine.run.played import played_mix
from engine.run.sources.model import PROFILES, runner_for, solve
from engine.run.streams import mix_of

TABLE = ((2000, 8), (2000, 24), (10000, 8), (10000, 24), (11500, 24))  # bench/exchange_generations.py's designs


def _table_design(base, mailboxes: int, databases: int, version: ExchangeVersion):
    iops = generation(ExchangeVersion.EXCHANGE_2013).iops_per_mailbox(150, copies=True)
    return default_config(base, databases=databases, copies_per_database=2, profile={
        "exchange": version.value, "mailboxes": mailboxes, "mailbox_size_mb": 2048, "iops_per_mailbox": iops,
        "headroom_percent": 20.0})


def _holds(base, copies: int, **overrides: object):
    """A 256 MB database under 230 MB of cache: the cache nearly holds it."""
    return default_config(base, databases=1, database_size_mb=256, database_cache_min_mb=8,
                          database_cache_max_mb=230, copies_per_database=copies, **overrides)


@pytest.mark.parametrize("version", list(ExchangeVersion))
@pytest.mark.parametrize(("mailboxes", "databases"), TABLE)
def test_on_the_prediction_table_s_designs_the_played_model_and_the_formula_agree(tmp_path, mailboxes, databases,
                                                                                  version):
    config = _table_design(tmp_path, mailboxes, databases, version)
    played, formula = played_mix(config), mix_of(config)
    assert played.reads == pytest.approx(formula.reads, rel=0.03)
    assert played.hits == pytest.approx(formula.hits, rel=0.03)
    # pages written per transaction: the formula's every update, a little coalesced
    assert played.writes * played.pages_per_write == pytest.approx(formula.writes * formula.pages_per_write, rel=0.05)


def test_on_a_database_the_cache_nearly_holds_the_played_checkpoint_writes_far_fewer_pages_than_the_formula(tmp_path):
    formula = mix_of(_holds(tmp_path, 2))
    deep, shallow = played_mix(_holds(tmp_path, 2)), played_mix(_holds(tmp_path, 1))  # 100 MiB and 20 MiB deep
    written = {name: mix.writes * mix.pages_per_write for name, mix in (("deep", deep), ("shallow", shallow))}
    assert written["deep"] < 0.5 * formula.writes  # a page updated again within the depth is written once
    assert written["deep"] < 0.8 * written["shallow"]  # the deeper the checkpoint, the fewer
    assert deep.pages_per_write > 2  # what it writes, it writes with its dirty neighbours
    assert deep.reads == pytest.approx(formula.reads, rel=0.1)  # the misses are the cache's share either way


def test_a_simulated_run_serves_the_played_streams_not_the_formula_s(tmp_path):
    config = _holds(tmp_path / "data", 2, thread_count=4, duration_s=300.0, warmup_s=30.0, seed=3)
    result = runner_for(PROFILES["sas-8x10k"], config, tmp_path / "run", lambda _e: None).run()
    played, formula = played_mix(config), mix_of(config)
    [log] = solve(PROFILES["sas-8x10k"], config).logs  # the log played too (`tests/engine/test_played_log.py`)
    [row] = result.instances
    per_log_write = row.db_writes_per_s / row.log_writes_per_s
    assert per_log_write == pytest.approx(played.writes / log.writes, rel=0.05)
    assert per_log_write < 0.5 * formula.writes / formula.log_writes
    assert row.db_write_avg_bytes == pytest.approx(32768 * played.pages_per_write, rel=0.05)
