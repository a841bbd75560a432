"""What each Exchange generation's workload is: the figures the mailbox profile's choice of Exchange version sets.

Exchange 2010 is qualified with Jetstress 2010 (14.01), Exchange 2013, 2016, 2019 and Subscription Edition with
Jetstress 2013 (15.01), the only Jetstress there is for them. docs/workload.md gives the source of every figure here,
and says which were measured in a published Jetstress report and which are Microsoft's or a practitioner's statement.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.model.profile import ExchangeVersion
from engine.model.units import MIB

MESSAGES_STEP = 50  # the sizing tables go in steps of 50 messages sent and received per mailbox per day
MESSAGES_ROWS = 10  # up to 500 messages a day


@dataclass(frozen=True)
class Generation:
    """One Exchange generation's workload and how Jetstress counts it."""

    version: ExchangeVersion
    name: str  # the Exchange versions it covers, in a field engineer's words
    jetstress: str  # the Jetstress that qualifies them, and its version
    jetstress_version: str  # what its JetstressConfig.xml's JetstressVersionGenerated says
    maintenance_bytes_per_s: float  # background database maintenance, per database (1 MB/s = 1,000,000 bytes a second)
    checkpoint_depth_bytes: int  # log an active database's dirty page may be behind before the flushers write it
    threads_per_database: bool  # Jetstress's ThreadCount counts per database (2010), not for the server (2013)
    iops_per_step_standalone: float  # transactional IOPS per mailbox for each 50 messages a day, one copy
    iops_per_step_copies: float  # the same with database copies
    cache_mb_per_step: float  # database cache per mailbox for each 50 messages a day
    thread_weight_basis: str  # where what a Jetstress thread carries (`engine.workload.pacing`) comes from

    @property
    def words(self) -> str:
        """Which Exchange and whose workload, with the figures that tell the generations apart."""
        return (f"{self.name}: {self.jetstress}'s workload (background maintenance "
                f"{self.maintenance_bytes_per_s / 1e6:.2f} MB/s per database, checkpoint depth "
                f"{self.checkpoint_depth_bytes / MIB:g} MB)")

    @property
    def jetstress_major(self) -> str:
        return self.jetstress_version.split(".")[0]

    def iops_per_mailbox(self, messages_per_day: int, copies: bool) -> float:
        """The sizing guidance's transactional IOPS per mailbox for `messages_per_day` (a multiple of 50)."""
        steps = messages_per_day / MESSAGES_STEP
        return round((self.iops_per_step_copies if copies else self.iops_per_step_standalone) * steps + 1e-9, 3)

    def cache_mb_per_mailbox(self, messages_per_day: int) -> float:
        """The sizing guidance's database cache per mailbox (MB) for `messages_per_day`."""
        return self.cache_mb_per_step * messages_per_day / MESSAGES_STEP

    def thread_words(self, threads: int, databases: int) -> str:
        """The thread count as this generation's Jetstress counts it."""
        if not self.threads_per_database:
            return f"{threads:,} thread(s) for the server, as {self.jetstress} counts its ThreadCount"
        each, extra = divmod(threads, databases)
        spread = f"{each:,} per database" if not extra else f"{each:,} or {each + 1:,} per database"
        return (f"{threads:,} thread(s) for the server, {spread} ({self.jetstress}'s ThreadCount counts per database)")


GENERATIONS: dict[ExchangeVersion, Generation] = {
    ExchangeVersion.EXCHANGE_2010: Generation(
        version=ExchangeVersion.EXCHANGE_2010,
        name="Exchange 2010",
        jetstress="Jetstress 2010 (14.01)",
        jetstress_version="14.01.225.017",
        # 17.3 reads/s of 261,650 bytes per database in the ESRP paper's Performance report (measured)
        maintenance_bytes_per_s=4.53e6,
        checkpoint_depth_bytes=8 * MIB,  # half the 16 MiB circular log: calibrated against that report
        threads_per_database=True,
        iops_per_step_standalone=0.06,
        iops_per_step_copies=0.05,
        cache_mb_per_step=3.0,
        thread_weight_basis="measured: the ESRP paper's Jetstress 2010 reports",
    ),
    ExchangeVersion.EXCHANGE_2013: Generation(
        version=ExchangeVersion.EXCHANGE_2013,
        name="Exchange 2013, 2016, 2019 and Subscription Edition",
        jetstress="Jetstress 2013 (15.01)",
        jetstress_version="15.0.995.0",
        maintenance_bytes_per_s=1.0e6,  # throttled from 5 MB/s to 1 MB/s per copy (stated, not measured)
        checkpoint_depth_bytes=100 * MIB,  # an estimate: Exchange 2013's 100 MB (stated for its database copies)
        threads_per_database=False,
        iops_per_step_standalone=0.0335,  # active or passive alike, with or without copies
        iops_per_step_copies=0.0335,
        cache_mb_per_step=3.0,
        thread_weight_basis="an estimate: Jetstress 2010's, as no Jetstress 2013 report that shows a thread's time "
        "could be read (docs/workload.md)",
    ),
}


def generation(version: ExchangeVersion) -> Generation:
    return GENERATIONS[version]


def version_of_jetstress(version_generated: str) -> ExchangeVersion:
    """The generation a JetstressConfig.xml's JetstressVersionGenerated names: 14.x is Jetstress 2010, anything else
    (15.x, or none) Jetstress 2013, the one whose file format Jetwise reads."""
    major = version_generated.strip().split(".")[0]
    return ExchangeVersion.EXCHANGE_2010 if major == GENERATIONS[ExchangeVersion.EXCHANGE_2010].jetstress_major \
        else ExchangeVersion.EXCHANGE_2013
