"""Why the advisor advises what it does, kept as facts; `words` says each where shown.

What a setting carried and what the storage carries are `engine.tuning.carried`'s; the notes beside the advice
`engine.tuning.notes`'s. Each reason is the figures it rests on: the settings named, what they carried, the criterion a
run broke (`Criterion`), the target. The advice is kept with each run (`engine.store`) in this
form, so a later reading says it in the words of its time and nothing parses a sentence back.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter

from engine.model.derive import MICROSOFT_IOPS_PER_THREAD
from engine.model.units import sentence
from engine.model.validation import CacheDesign, cache_holds_words
from engine.results.base import Schema
from engine.results.criterion_schema import Criterion
from engine.results.sweep_schema import Load, load_words
from engine.tuning.carried import BestCarried, Broken, Carried, Most, MostSoFar

REMEDIES = ("run it on a host with CPU to spare (stop the host's other work, or use a larger server), put fewer "
            "databases on each host, or run the disk throughput scenario to measure the most this host drives")


class FixStorage(Schema):
    what: Literal["fix_storage"] = "fix_storage"

    @property
    def words(self) -> str:
        return ("fix the storage (its disks, controller, driver or firmware) until it reads back what was written, "
                "then run again: until then no throughput or latency measured on it means anything, and no setting "
                "is judged")


class LargerThanCache(Schema):
    """The design is not a test of the storage (`engine.model.validation.cache_holds_database`): no setting is judged
    until its databases are larger or its cache smaller. The figures are the design's."""

    what: Literal["larger_than_cache"] = "larger_than_cache"
    held_bytes: int
    database_bytes: int
    storage_percent: float
    least_database_bytes: int
    most_cache_mb: float

    @property
    def words(self) -> str:
        return (f"{cache_holds_words(CacheDesign(**self.model_dump(exclude={'what'})))}; no thread count or "
                "SluggishSessions makes it one, and no run of it is read as the storage's")


class Longer(Schema):
    """A run measured too little to judge: its setting again, for longer."""

    what: Literal["longer"] = "longer"
    load: Load
    measured_s: float
    least_s: float

    @property
    def words(self) -> str:
        return (f"the same setting for longer: {load_words(*self.load)} measured {self.measured_s:.0f} s, and a verdict "
                f"needs at least {self.least_s:g} s measured; give the test a duration of {self.least_s:g} s or more")


class Stall(Schema):
    """A run failed on a maximum latency alone, its averages low: the maximum it broke and the reads' average."""

    broke: Criterion
    reads_ms: float

    @property
    def words(self) -> str:
        c = self.broke
        return (f"{c.instance} {c.name} {c.value:,.0f} ms over {c.limit:g} ms, with database reads averaging "
                f"{self.reads_ms:.2f} ms")


class Again(Schema):
    """A stall's setting again: once more before it counts as the setting's failure."""

    what: Literal["again"] = "again"
    load: Load
    stall: Stall

    @property
    def words(self) -> str:
        return (f"the same setting again: {load_words(*self.load)} failed only on a maximum latency "
                f"({self.stall.words}), a stall rather than the load; if it comes back at this setting it counts as "
                "this setting's failure")


class HostHeld(Schema):
    """The host's CPU held a run back: what the session still proves of the storage."""

    what: Literal["host_bound"] = "host_bound"
    run_id: str
    load: Load
    iops: float
    cpu_percent: float | None
    bound: Carried | None = Field(None, description="The most carried within every latency threshold.")
    bound_where: str = Field("", description="Where: 'a run', 'a load sweep's step' or 'run ID'.")
    target: float
    meets_target: bool = False

    @property
    def words(self) -> str:
        cpu = self.cpu_percent
        if self.bound is not None and self.bound_where == f"run {self.run_id}":  # that run is the lower bound
            short = "the host's processors were saturated in that run" + (f" ({cpu:.0f} % on average)" if cpu is not None else "")
        else:
            busy = f", CPU at {cpu:.0f} % on average" if cpu is not None else ""
            short = (f"the host's processors were saturated in run {self.run_id} ({load_words(*self.load)}: "
                     f"{self.iops:,.0f} transactional IOPS{busy})")
        short += ", so its shortfall is the host's, not the storage's, and more threads would only load the CPU more"
        if self.bound is None:
            known = ("no run of this session kept every latency threshold, and a latency measured with the CPU "
                     "saturated is the host's as much as the storage's")
        else:
            known = (f"the storage carried at least {self.bound.iops:,.0f} transactional IOPS within every latency "
                     f"threshold ({load_words(*self.bound.load)}, {self.bound_where})")
            if self.meets_target:
                known += f", which meets the target of {self.target:,.0f}: the storage can carry it where the host can drive it"
            else:
                known += f"; the target of {self.target:,.0f} needs more than this host's CPU drives"
        return f"{known}. {sentence(short)}: {REMEDIES}"


class FirstRun(Schema):
    """No run to learn from yet: Microsoft's rule, or (with no target) a sweep from the configured setting."""

    what: Literal["first_run"] = "first_run"
    load: Load
    sweep: bool = False
    servers: int = 1  # a tuning across servers: the rule reads one server's share of their summed target

    @property
    def words(self) -> str:
        if self.sweep:
            return (f"first run: a load sweep from the configured {self.load[0]} threads / SluggishSessions "
                    f"{self.load[1]} toward the latency limit; the disk throughput scenario has no target, so "
                    "Microsoft's rule has nothing to start from")
        target = "target IOPS" if self.servers <= 1 else f"IOPS of each server's share of the target ({self.servers} servers)"
        return (f"first run: one thread per {MICROSOFT_IOPS_PER_THREAD} {target} (Microsoft's rule, Jetstress 2010's: "
                "none for Jetstress 2013 was found), at least one per database; latency is unknown until this run "
                "measures it")


class Passed(Schema):
    what: Literal["passed"] = "passed"
    load: Load
    iops: float
    target: float
    read_ms: float

    @property
    def words(self) -> str:
        return (f"{self.load[0]} threads with SluggishSessions {self.load[1]} passed: {self.iops:,.1f} transactional "
                f"IOPS against a target of {self.target:,.1f}, database reads at {self.read_ms:.1f} ms")


class OutOfReach(Schema):
    """A run whose latency failed below the target proves the target out of reach; the most that passed."""

    what: Literal["out_of_reach"] = "out_of_reach"
    target: float
    failed: Broken
    best: Carried

    @property
    def words(self) -> str:
        f = self.failed
        return (f"the target of {self.target:,.0f} IOPS is out of reach: at {load_words(*f.load)} the latency already "
                f"failed ({f.broke_words}) while only {f.iops or 0:,.0f} IOPS were reached, and less load only "
                f"lowers the IOPS. The most this storage passed the latency limits at is {load_words(*self.best.load)}: "
                f"{self.best.iops:,.0f} IOPS")


class Fitted(Schema):
    """A setting from the curve fitted to the session's runs."""

    what: Literal["fitted"] = "fitted"
    reaches: bool = Field(description="The curve reaches the target within the safe read latency.")
    read_ms: float = Field(description="reaches: the reads predicted at the setting; else the safe read latency.")
    load: Load

    @property
    def words(self) -> str:
        if self.reaches:
            why = (f"the curve fitted to this session's runs reaches the target with database reads predicted at "
                   f"{self.read_ms:.1f} ms")
        else:
            why = (f"the fitted curve does not reach the target within {self.read_ms:.0f} ms reads; this setting tests "
                   "the most load it predicts the latency limit allows")
        threads, sluggish = self.load
        if sluggish > 1:
            why += (f"; with SluggishSessions {sluggish} each thread waits between its transactions, so {threads} "
                    f"threads load the storage as about {threads / sluggish:.1f} threads would")
        return why


class Basis(Schema):
    """How a setting was read from a sweep's curve: the lightest passing step reaching the target, or between two."""

    iops: float
    below_iops: float | None = Field(None, description="Interpolated: the passing step below the target.")

    @property
    def words(self) -> str:
        if self.below_iops is None:
            return f"the lightest passing step reaching the target ({self.iops:,.0f} IOPS)"
        return f"interpolated between the measured steps at {self.below_iops:,.0f} and {self.iops:,.0f} IOPS"


class FromCurve(Schema):
    """A sweep's curve reaches the target at a setting: a run confirms it."""

    what: Literal["from_curve"] = "from_curve"
    basis: Basis
    load: Load
    target: float

    @property
    def words(self) -> str:
        return (f"from the sweep's curve ({self.basis.words}): {load_words(*self.load)} should reach the target of "
                f"{self.target:,.0f} IOPS within the thresholds; this run confirms it")


class NoneKept(Schema):
    """Not even the lightest load kept the latency thresholds, or a lighter one is to be measured (`lighter`)."""

    what: Literal["none_kept"] = "none_kept"
    lightest: Broken
    lighter: Load | None = None
    runnable: bool = Field(False, description="The lightest load this test can run (the disk throughput scenario).")
    carry_target: bool = Field(True, description="lighter: the load expected to carry the target (a target is set).")

    @property
    def words(self) -> str:
        at = load_words(*self.lightest.load)
        broke = self.lightest.broke_words
        if self.lighter is not None and self.carry_target:
            return (f"no measured load kept the latency thresholds; the lightest, {at}, broke them ({broke}) at "
                    f"{self.lightest.iops or 0:,.0f} IOPS: {load_words(*self.lighter)} is the lightest load expected "
                    "to carry the target")
        if self.lighter is not None:
            return (f"nothing measured kept the latency thresholds; the lightest, {at}, broke them ({broke}): "
                    f"{load_words(*self.lighter)} measures a lighter load")
        if self.runnable:
            return (f"no load kept the latency thresholds: even the lightest this test can run, {at}, broke them "
                    f"({broke}); this storage cannot carry a mailbox workload within its thresholds")
        return (f"no load kept the latency thresholds: even the lightest measured, {at}, broke them ({broke}); this "
                "storage cannot carry this workload within its thresholds")


class Said(Schema):
    """Advice kept before its reasons were facts: its words, as they were said."""

    what: Literal["said"] = "said"
    said: str

    @property
    def words(self) -> str:
        return self.said


Why = Annotated[FixStorage | LargerThanCache | Longer | Again | HostHeld | FirstRun | Passed | OutOfReach | Fitted | FromCurve | NoneKept
                | BestCarried | MostSoFar | Most | Said, Field(discriminator="what")]
_WHY: TypeAdapter[Why] = TypeAdapter(Why)


def why_from(data: Any) -> Why:
    """A reason as the store keeps it (`dump`), or an older advice's words."""
    return Said(said=data) if isinstance(data, str) else _WHY.validate_python(data)


def dump(why: Why) -> dict[str, Any]:
    dumped: dict[str, Any] = _WHY.dump_python(why, mode="json")
    return dumped
