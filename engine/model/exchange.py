"""What each Exchange generation's workload is: the figures the mailbox profile's choice of Exchange version sets.

Exchange 2010 is qualified with Jetstress 2010 (14.01), Exchange 2013, 2016, 2019 and Subscription Edition with
Jetstress 2013 (15.00.0995.000, the version its JetstressConfig.xml carries), the only Jetstress there is for them.
docs/workload.md gives the source of every figure here, and says which were measured in a published Jetstress report,
which are derived from ESE's own source, and which are Microsoft's or a practitioner's statement.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.model.profile import ExchangeVersion
from engine.model.units import MIB

# The checkpoint depth (log a dirty page may be behind before the flushers write it) is the design's, not the
# generation's: ESE's default JET_paramCheckpointDepthMax (sysparamtable.g.cxx:35) for a stand-alone database, as
# Microsoft's Exchange 2010 table gives for one too, and its table's 100 MB for an active copy with two or more copies,
# the figure Exchange 2013's sources give for copies (docs/workload.md)
CHECKPOINT_DEPTH_STANDALONE = 20 * MIB
CHECKPOINT_DEPTH_COPIES = 100 * MIB
MESSAGES_STEP = 50  # the sizing tables go in steps of 50 messages sent and received per mailbox per day
MESSAGES_ROWS = 10  # up to 500 messages a day


@dataclass(frozen=True)
class Generation:
    """One Exchange generation's workload and how Jetstress counts it."""

    version: ExchangeVersion
    name: str  # the Exchange versions it covers, in a field engineer's words
    jetstress: str  # the Jetstress that qualifies them, and its version
    jetstress_version: str  # what its JetstressConfig.xml's JetstressVersionGenerated says
    maintenance_rate: float | None  # background database maintenance held at a byte rate per database; None: paced as ESE's
    maintenance_batch_bytes: int  # what maintenance reads at a time
    threads_per_database: bool  # Jetstress's ThreadCount counts per database (2010), not for the server (2013)
    iops_per_step_standalone: float  # transactional IOPS per mailbox for each 50 messages a day, one copy
    iops_per_step_copies: float  # the same with database copies
    cache_mb_per_step: float  # database cache per mailbox for each 50 messages a day
    sizing_basis: str  # where the IOPS and cache per mailbox come from, and how far they are supported
    thread_weight_basis: str  # where what a Jetstress thread carries (`engine.workload.pacing`) comes from

    def maintenance_bytes_per_s(self, throttle_ms: int, read_ms: float) -> float:
        """Background maintenance's bytes a second per database: the held rate, or ESE's database scan's pace
        (`dbscan.cxx` `DBMScan::DoOnePass_`: sleep `throttle_ms`, read a batch, again), slower as its reads (`read_ms`
        each) are slower."""
        if self.maintenance_rate is not None:
            return self.maintenance_rate
        return self.maintenance_batch_bytes / max(1e-3, (throttle_ms + read_ms) / 1000.0)

    def maintenance_words(self, throttle_ms: int) -> str:
        """How this generation paces background maintenance, and the figures' standing."""
        if self.maintenance_rate is not None:
            return f"{self.maintenance_rate / 1e6:.2f} MB/s per database (measured)"
        most = self.maintenance_bytes_per_s(throttle_ms, 0.0)
        return (f"{self.maintenance_batch_bytes // 1024} KiB read then {throttle_ms} ms of sleep, as ESE's database scan "
                f"paces it (from ESE's source): at most {most / 1e6:.2f} MB/s per database, less as its reads slow; "
                "that DBMThrottling is that sleep is an estimate")

    @property
    def words(self) -> str:
        """Which Exchange and whose workload, with the figures that tell the generations apart."""
        maintenance = (f"{self.maintenance_rate / 1e6:.2f} MB/s" if self.maintenance_rate is not None else
                       f"{self.maintenance_batch_bytes // 1024} KiB batches paced by DBMThrottling")
        return f"{self.name}: {self.jetstress}'s workload (background maintenance {maintenance} per database)"

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
        maintenance_rate=4.53e6,
        maintenance_batch_bytes=256 * 1024,
        threads_per_database=True,
        iops_per_step_standalone=0.06,
        iops_per_step_copies=0.05,
        cache_mb_per_step=3.0,
        sizing_basis="Microsoft's Exchange 2010 mailbox profile table (stated)",
        thread_weight_basis="measured: the ESRP paper's Jetstress 2010 reports",
    ),
    ExchangeVersion.EXCHANGE_2013: Generation(
        version=ExchangeVersion.EXCHANGE_2013,
        name="Exchange 2013, 2016, 2019 and Subscription Edition",
        jetstress="Jetstress 2013 (15.00.0995.000)",
        jetstress_version="15.0.995.0",
        # ESE's database scan: JET_paramMaxCoalesceReadSize's 512 KB (16 pages of 32 KB) a batch, after each a sleep
        # of JET_paramDbScanThrottle ms, which Jetstress 2013's DBMThrottling is taken to set (docs/ese-source.md)
        maintenance_rate=None,
        maintenance_batch_bytes=512 * 1024,
        threads_per_database=False,
        iops_per_step_standalone=0.0335,  # active or passive alike, with or without copies
        iops_per_step_copies=0.0335,
        cache_mb_per_step=3.0,
        sizing_basis=("unsupported: Microsoft's Exchange 2013 sizing table could not be read, so its 0.0335 IOPS per "
                      "50 messages is unconfirmed and its 3 MB of cache per mailbox is Exchange 2010's; type the IOPS "
                      "per mailbox your own sizing gives"),
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
