"""What the storage carries, as the advisor's last word says it: the best setting short of the target, the most the
disk throughput scenario measured, and a throughput in the profile's mailboxes."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from engine.results.base import Schema
from engine.results.criterion_schema import Criterion
from engine.results.sweep_schema import Load, load_words


class Carried(Schema):
    """What a setting carried within every latency threshold: "at least" where the host, not the storage, stopped."""

    iops: float
    load: Load
    at_least: bool = False

    @property
    def words(self) -> str:
        return f"{'at least ' if self.at_least else ''}{self.iops:,.0f} transactional IOPS at {load_words(*self.load)}"


class Broken(Schema):
    """A setting that broke a latency threshold, the criterion it broke and the IOPS it reached."""

    load: Load
    broke: Criterion | None = None
    said: str = Field("", description="A sweep step of a result before schema 13: what it broke, in words.")
    iops: float | None = None

    @property
    def broke_words(self) -> str:
        """The criterion broken, as every reason names it ("latency" where a result did not keep which)."""
        return str(self.broke) if self.broke is not None else self.said or "latency"


class BestCarried(Schema):
    """No passing step reached the target: the best one, to confirm, or confirmed and so the answer."""

    what: Literal["best_carried"] = "best_carried"
    target: float
    carried: Carried
    confirmed: bool
    limit: Broken | None = Field(None, description="The lightest setting whose latency failed.")
    confirmed_iops: float | None = Field(None, description=(
        "confirmed: what the confirming run measured, where the load sweep's step at the setting is what it carried."))

    @property
    def words(self) -> str:
        limit = ""
        if self.limit is not None:
            limit = (f"; at {load_words(*self.limit.load)} the latency already failed ({self.limit.broke_words}) "
                     f"at {self.limit.iops or 0:,.0f} IOPS")
        if self.confirmed:
            swept = "" if self.confirmed_iops is None else " in the load sweep"
            run = "" if self.confirmed_iops is None else f" ({self.confirmed_iops:,.0f} IOPS over its shorter window)"
            return (f"the target of {self.target:,.0f} IOPS is out of reach: the most this storage carried within every "
                    f"latency threshold is {self.carried.words}{swept}, confirmed by a run at that setting{run}{limit}")
        return (f"no step that kept the thresholds reached the target of {self.target:,.0f} IOPS; the best carried "
                f"{self.carried.words}{limit}: this run confirms what the storage carries")


class MostSoFar(Schema):
    """The disk throughput scenario: the best passing point, to confirm, or confirmed with a load still untried."""

    what: Literal["most_so_far"] = "most_so_far"
    carried: Carried
    untried: Load | None = None

    @property
    def words(self) -> str:
        if self.untried is None:
            return (f"the sweep's best step within every latency threshold carried {self.carried.words}: this run "
                    "confirms it")
        return (f"{self.carried.words} passed, confirmed by a run; {load_words(*self.untried)} measures whether more "
                "load carries more")


class Most(Schema):
    """The disk throughput scenario's answer, confirmed, and what lies past it."""

    what: Literal["most"] = "most"
    carried: Carried
    beyond: Literal["host_at_best", "heaviest", "host_above", "broke_above"]
    heaviest_threads: int | None = Field(None, description="heaviest: the heaviest thread count this test runs here.")
    above: Broken | None = Field(None, description="host_above, broke_above: the next heavier load measured.")

    @property
    def words(self) -> str:
        return (f"the most this storage carried within every latency threshold is {self.carried.words}, confirmed by "
                f"a run; {self._beyond}")

    @property
    def _beyond(self) -> str:
        if self.beyond == "host_at_best":
            return ("at that load the host's CPU, not the storage, set the pace: the storage may carry more than this "
                    "host drives")
        if self.beyond == "heaviest":
            return (f"{self.heaviest_threads} threads is the heaviest load this test runs on this host: the storage "
                    "may carry more than this host can drive")
        above = self.above or Broken(load=(0, 1))
        if self.beyond == "host_above":
            return f"at {load_words(*above.load)} the host's CPU, not the storage, set the pace"
        return (f"the next heavier load measured, {load_words(*above.load)}, broke the thresholds "
                f"({above.broke_words}) at {above.iops or 0:,.0f} IOPS")


class Capacity(Schema):
    """What a throughput means in the profile's terms: mailboxes at the profile's IOPS each (in the disk throughput
    scenario at its throughput percentage), and for a target's design its IOPS per planned mailbox."""

    iops: float
    at_least: bool = Field(False, description="The host, not the storage, set the limit.")
    mailboxes: int
    iops_per_mailbox: float
    headroom_percent: float
    throughput_percent: float | None = Field(None, description="The disk throughput scenario's planned share.")
    planned_mailboxes: int | None = Field(None, description="A target's design: the mailboxes it plans.")
    per_planned_mailbox: float | None = Field(None, description="The IOPS each planned mailbox gets.")

    @property
    def words(self) -> str:
        share = self.throughput_percent
        planned = f"at {share:g} % of it, " if share is not None and share < 100 else ""
        bound = "at least" if self.at_least else "about"
        limit = " (the host, not the storage, set the limit)" if self.at_least else ""
        words = (f"{bound} {self.iops:,.0f} transactional IOPS{limit}: {planned}{self.mailboxes:,} mailboxes at "
                 f"{self.iops_per_mailbox:g} IOPS each"
                 + (f" with {self.headroom_percent:g} % headroom" if self.headroom_percent else ""))
        if self.planned_mailboxes is None or self.per_planned_mailbox is None:
            return words
        return f"{words}, or {self.per_planned_mailbox:.3f} IOPS per mailbox for {self.planned_mailboxes:,} mailboxes"
