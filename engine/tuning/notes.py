"""What the advisor notes beside its advice, kept as facts: the runs it set aside and why, a setting already tried,
the I/O errors the storage returned; `words` says each where shown, and `merged` says each once."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter

from engine.io.pages import ErrorKind
from engine.model.derive import thread_weight_words
from engine.model.exchange import generation
from engine.model.profile import ExchangeVersion, ThreadWeight
from engine.model.validation import CACHE_HIT_LIMIT_PERCENT, larger_than_cache_words
from engine.results.base import Schema
from engine.results.schema import ErrorGroup, device_words
from engine.results.sweep_schema import Load, load_words
from engine.tuning.why import Said, Stall
from engine.workload.errors import ese_words


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
