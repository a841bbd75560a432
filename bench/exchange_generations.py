"""What each Exchange generation's workload drives per database, for the prediction table of docs/workload.md.

A design for Exchange 2016 (mailboxes of 2 GB at 150 messages a day: 0.101 transactional IOPS each by the 2013 and
later sizing, 20 % headroom, two copies) on 8 or 24 databases, driven by each generation's workload:

- what one database drives per second at the design's target (`engine.run.streams`): the transactions' streams are
  the same, background maintenance is not (2013 and later: ESE's pace with its reads at the 20 ms threshold);
- on the simulated device (`engine.run.sources.model.solve`, the storage model named), the transactional IOPS per
  database the storage carries while database reads take 10 and 20 ms: the thread count is raised until reads take
  that long, and the IOPS read off between the two counts that bracket it.

Nothing here touches a disk.

    python bench/exchange_generations.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.model.config import ExchangeVersion, TestConfig, default_config
from engine.model.exchange import generation
from engine.run.sources.model import PROFILES, SEQUENTIAL_READ_COST, StorageModel, solve
from engine.run.streams import database_streams, mix_of

MESSAGES_PER_DAY = 150
DESIGNS = ((2000, 8, "sas-8x10k"), (2000, 24, "sas-8x10k"), (10000, 8, "sas-8x10k"),
           (10000, 24, "sas-8x10k"), (11500, 24, "sas-8x10k"))


def design(base: Path, version: ExchangeVersion, mailboxes: int, databases: int) -> TestConfig:
    iops = generation(ExchangeVersion.EXCHANGE_2013).iops_per_mailbox(MESSAGES_PER_DAY, copies=True)
    profile = {"exchange": version.value, "mailboxes": mailboxes, "mailbox_size_mb": 2048, "iops_per_mailbox": iops,
               "headroom_percent": 20.0}
    return default_config(base, databases=databases, copies_per_database=2, profile=profile)


def carried_at(model: StorageModel, config: TestConfig, read_ms: float) -> float | None:
    """Transactional IOPS per database the model carries while its reads take `read_ms`; None when one thread per
    database already makes them slower."""
    databases = config.database_count
    work = mix_of(config)
    before: tuple[float, float] | None = None
    for threads in range(databases, 4096, databases):
        point = solve(model, config.model_copy(update={"thread_count": threads}))
        iops = sum(point.transactions_per_s) / databases * (work.reads + work.writes)
        if point.read_ms >= read_ms:
            if before is None:
                return None
            low_ms, low_iops = before
            return low_iops + (read_ms - low_ms) / (point.read_ms - low_ms) * (iops - low_iops)
        before = (point.read_ms, iops)
    return before[1] if before else 0.0


def _iops(value: float | None) -> str:
    return "—" if value is None else f"{value:,.1f}"


def main() -> None:
    base = Path(tempfile.gettempdir()) / "jetwise-prediction"
    print("| design (simulated device) | workload | target per database | reads/s | writes/s | log writes/s "
          "| maintenance reads/s | maintenance MB/s | maintenance / database reads | maintenance's share of the "
          "device's time | carried at 10 ms | carried at 20 ms |")
    print("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    for mailboxes, databases, device in DESIGNS:
        model = PROFILES[device]
        for version in (ExchangeVersion.EXCHANGE_2010, ExchangeVersion.EXCHANGE_2013):
            config = design(base, version, mailboxes, databases)
            per_database = config.target_transactional_iops / databases
            s = database_streams(config, per_database)
            sequential = SEQUENTIAL_READ_COST * s.maintenance_mb_s * 1e6 / 262_144  # in 256 KiB reads' time
            share = sequential / (s.reads_per_s + s.writes_per_s + sequential)
            print(f"| {mailboxes:,} mailboxes, {databases} databases ({device}) | {generation(version).jetstress} "
                  f"| {per_database:,.1f} | {s.reads_per_s:,.1f} | {s.writes_per_s:,.1f} | {s.log_writes_per_s:,.1f} "
                  f"| {s.maintenance_reads_per_s:.1f} | {s.maintenance_mb_s:.2f} "
                  f"| {s.maintenance_reads_per_s / s.reads_per_s:.2f} | {share:.0%} "
                  f"| {_iops(carried_at(model, config, 10.0))} | {_iops(carried_at(model, config, 20.0))} |")


if __name__ == "__main__":
    main()
