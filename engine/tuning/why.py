"""Why the advisor advises what it does and what the storage carries, kept as facts; `words` says each where shown.

Each reason is the figures it rests on: the settings named, what they carried, the criterion a
run broke (`Criterion`), the target. The advice is kept with each run (`engine.store`) in this
form, so a later reading says it in the words of its time and nothing parses a sentence back.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter

from engine.io.pages import ErrorKind
from engine.model.derive import MICROSOFT_IOPS_PER_THREAD, thread_weight_words
from engine.model.exchange import generation
from engine.model.profile import ExchangeVersion, ThreadWeight
from engine.model.units import sentence
from engine.model.validation import CACHE_HIT_LIMIT_PERCENT, CacheDesign, cache_holds_words, larger_than_cache_words
from engine.results.base import Schema
from engine.results.criterion_schema import Criterion
from engine.results.schema import ErrorGroup, device_words
from engine.results.sweep_schema import Load, load_words
from engine.workload.errors import ese_words

REMEDIES = ("run it on a host with CPU to spare (stop the host's other work, or use a larger server), put fewer "
            "databases on each host, or run the disk throughput scenario to measure the most this host drives")


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
        return (f"first run: one thread per {MICROSOFT_IOPS_PER_THREAD} {target} (Microsoft's rule), at least one "
                "per database; latency is unknown until this run measures it")


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


class StorageErrors(Schema):
    """What the storage did wrong in a run: its first kind of I/O error, counted, where the first was, and the rest."""

    first: ErrorGroup | None = Field(None, description="None: a result from before errors were counted by kind.")
    others: int = 0
    total: int = Field(description="Every I/O error of the run.")

    @property
    def corrupt(self) -> bool:
        """The storage returned other data than was written (rather than failing the I/O)."""
        return self.first is not None and self.first.kind in {ErrorKind.CHECKSUM, ErrorKind.WRONG_NUMBER,
                                                              ErrorKind.UNINITIALISED, ErrorKind.LOST_FLUSH,
                                                              ErrorKind.TOO_NEW}

    @property
    def words(self) -> str:
        first = self.first
        if first is None:
            return f"{self.total:,} I/O error(s)"
        plural = "" if first.count == 1 else "s"
        more = f", and {self.others:,} other I/O error(s)" if self.others else ""
        patch = f", {first.patch}" if first.patch else ""
        return (f"{first.count:,} {first.title}{plural} ({ese_words(first.ese_error, first.ese_name)}) on "
                f"{first.instance}{patch}, "
                f"the first at {first.unit} {first.first_number} of {first.first_file}{more}")


class Unused(Schema):
    """A run the advisor cannot learn from, and why: one note for every run with the same facts (`runs`)."""

    what: Literal["other_device", "other_weight", "other_exchange", "io_errors", "sweep_unmeasured", "sweep_cache_held",
                  "ended_early", "nothing_measured", "too_short", "cache_held", "host_bound", "stall"]
    runs: list[str]
    load: Load
    device: str | None = Field(None, description="other_device: what the run ran on (`RunResult.device`).")
    tuned: str | None = Field(None, description="other_device: what the advice is for, alike.")
    weight: ThreadWeight | None = Field(None, description="other_weight: the weight of the run's threads.")
    exchange: ExchangeVersion | None = Field(None, description="other_exchange: the Exchange version the run drove.")
    errors: StorageErrors | None = Field(None, description="io_errors: what the storage returned.")
    measured_s: float | None = Field(None, description="nothing_measured, too_short: the seconds measured.")
    least_s: float | None = Field(None, description="too_short: the seconds a verdict needs.")
    latency_broke: bool = Field(False, description="host_bound: a latency threshold broke with the CPU saturated.")
    cache_hit_percent: float | None = Field(None, description="cache_held: the share of the measured page references "
                                            "that were cache hits, above the limit (None: no database reads at all).")
    stall: Stall | None = None

    @property
    def words(self) -> str:
        setting = f"{load_words(*self.load)} (run{'s' if len(self.runs) > 1 else ''} {_listed(self.runs)})"
        sweep = f"the load sweep {_listed(self.runs)}"
        match self.what:
            case "other_device":
                ran = f"run{'s' if len(self.runs) > 1 else ''} {_listed(self.runs)}"
                return (f"{ran} ran on {device_words(self.device or '')}, not {device_words(self.tuned or '')}: "
                        "other storage, so set aside")
            case "other_weight":
                weight = thread_weight_words(self.weight) if self.weight is not None else "another weight"
                return f"{setting} ran threads of another weight ({weight}): its thread counts mean another load, so it is not used"
            case "other_exchange":
                drove = generation(self.exchange).words if self.exchange is not None else "another Exchange version's"
                return (f"{setting} drove another Exchange version's workload ({drove}): the same setting loads the "
                        "storage otherwise, so it is not used")
            case "io_errors":
                errors = self.errors.words if self.errors is not None else "I/O errors"
                return f"{setting} failed on I/O errors ({errors}); its figures are not used"
            case "sweep_unmeasured":
                return f"{sweep} ended before it measured its first step"
            case "sweep_cache_held":
                return (f"{sweep} made no database reads at any step, or nearly all its page references were cache "
                        "hits (the database cache held the database), so its latency says nothing of the storage; "
                        f"{larger_than_cache_words()}")
            case "ended_early":
                return f"{setting} ended early (aborted or stopped); its partial figures are not used"
            case "nothing_measured":
                return (f"{setting} has no measured time ({self.measured_s or 0:.1f} s, less than one sample interval), "
                        "so it says nothing of the load")
            case "too_short":
                return (f"{setting} measured {self.measured_s or 0:.0f} s, less than the {self.least_s or 0:g} s a "
                        "verdict needs, so its figures are not read as the storage's")
            case "cache_held":
                served = ("made no database reads" if self.cache_hit_percent is None else
                          f"was served by the database cache: {self.cache_hit_percent:.2f} % of its page references were "
                          f"cache hits, more than {CACHE_HIT_LIMIT_PERCENT:g} %")
                return (f"{setting} {served} (the database cache held the database), so its latency says nothing of the "
                        f"storage; {larger_than_cache_words()}")
            case "host_bound":
                what = ("its latency was measured with the CPU saturated, the host's delays in it" if self.latency_broke
                        else "its shortfall is the host's, not the storage's")
                return f"{setting} was host-bound (CPU saturated while measuring): {what}, so it is not read as a storage limit"
        stall = self.stall.words if self.stall is not None else "a maximum latency"
        return (f"{setting} failed only on a maximum latency ({stall}) while every average stayed under half its "
                "limit: a stall, not the load, so it is not read as the storage's limit until the same setting spikes "
                "again")

    def same(self, other: Unused) -> bool:
        """The same note of other runs: every fact but the runs alike (a sweep's note is its own)."""
        alike = {"runs", "load"} if self.what == "other_device" else {"runs"}  # a device's runs: one note, any load
        return not self.what.startswith("sweep_") and self.model_dump(exclude=alike) == other.model_dump(exclude=alike)


class Returned(Schema):
    """The storage's I/O errors stand (no later run measured without any): what it returned, in which run."""

    run_id: str
    load: Load
    errors: StorageErrors

    @property
    def words(self) -> str:
        what = "corrupt data" if self.errors.corrupt else "I/O errors"
        return f"The storage returned {what}: {self.errors.words} (run {self.run_id}, {load_words(*self.load)})"


def _listed(runs: list[str]) -> str:
    return runs[0] if len(runs) == 1 else ", ".join(runs[:-1]) + f" and {runs[-1]}"


class Stepped(Schema):
    """The advised setting was tried already: one step lighter (after a latency failure) or heavier (a shortfall)."""

    what: Literal["stepped"] = "stepped"
    load: Load
    to: Load
    lighter: bool

    @property
    def words(self) -> str:
        return (f"{load_words(*self.load)} was tried already; one step {'lighter' if self.lighter else 'heavier'}: "
                f"{load_words(*self.to)}")


Note = Annotated[Unused | Stepped | Said, Field(discriminator="what")]
_NOTE: TypeAdapter[Note] = TypeAdapter(Note)


def note_from(data: Any) -> Unused | Stepped | Said:
    """A note as the store keeps it, or an older advice's words."""
    return Said(said=data) if isinstance(data, str) else _NOTE.validate_python(data)


def merged(notes: Iterable[Unused | Stepped | Said]) -> list[Unused | Stepped | Said]:
    """Each note once, naming its runs: two runs at one setting that ended early are one note."""
    said: list[Unused | Stepped | Said] = []
    for note in notes:
        found = next((n for n in said if isinstance(n, Unused) and isinstance(note, Unused) and n.same(note)), None)
        if found is not None and isinstance(found, Unused) and isinstance(note, Unused):
            found.runs.extend(run for run in note.runs if run not in found.runs)
        elif note not in said:
            said.append(note.model_copy(update={"runs": list(note.runs)}) if isinstance(note, Unused) else note)
    return said
