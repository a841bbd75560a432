"""What a result says beside its figures (`RunResult.notes`), kept as facts; `words` says each where it is shown."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from engine.results.base import Schema
from engine.results.sweep_schema import Load, SweepEnd, load_words

PAGE_FAULT_WORDS = ("Database page fault stalls: a stall is counted when a transaction's page misses the model's database "
                    "cache and no buffer is available until a flush write completes.")
CORRECTABLE_WORDS = ("Correctable pages: always 0. A Jetwise page carries one CRC-32 over the whole page and no "
                     "error-correcting code, so a damaged page can be found and classified but not corrected, however "
                     "small the damage.")
JudgedWhy = Literal["unfinished", "no_reads", "heaviest_kept", "lightest"]
_JUDGED_WORDS: dict[JudgedWhy, str] = {
    "unfinished": "unfinished", "no_reads": "it made no database reads, or nearly all were cache hits",
    "heaviest_kept": "the heaviest that kept every latency threshold",
    "lightest": "no step kept every latency threshold; the lightest"}


class RunNote(Schema):
    """One thing a result says beside its figures: `what` it is, and the facts it is said from."""

    what: Literal["page_faults", "correctable", "rebuilt", "replay_not_sampled", "damaged_counted", "simulated",
                  "no_backup_copy", "not_unbuffered", "host_bound", "tuning_run", "sweep", "judged_step", "said"]
    count: int | None = Field(None, description="damaged_counted: damaged pages and log sectors met; sweep: its steps; "
                                                "judged_step: the step's number (1-based).")
    measured: bool | None = Field(None, description="rebuilt: whether any sample was measured.")
    seconds: float | None = Field(None, description="tuning_run: the seconds measured.")
    cpu_percent: float | None = Field(None, description="host_bound: the processors' average busy share while measuring.")
    hours: float | None = Field(None, description="tuning_run: the full-length test's standard length.")
    test_type: str | None = Field(None, description="tuning_run: the test type qualified at full length.")
    device: str = Field("", description="simulated: the storage model's name; not_unbuffered: how the I/O was opened.")
    about: str = Field("", description="simulated: what the storage model is.")
    end: SweepEnd | None = Field(None, description="sweep: why it ended.")
    load: Load | None = Field(None, description="judged_step: the step's load.")
    why: JudgedWhy | None = Field(None, description="judged_step: why the verdict judges that step.")
    said: str = Field("", description="said: a note of a result before schema 14, in its words.")

    @model_validator(mode="before")
    @classmethod
    def _words_of_its_time(cls, data: Any) -> Any:
        """A result before schema 14 kept its notes as words: said as written, never parsed."""
        if not isinstance(data, str):
            return data
        known = {PAGE_FAULT_WORDS: "page_faults", CORRECTABLE_WORDS: "correctable"}  # said alike in every version
        return {"what": known[data]} if data in known else {"what": "said", "said": data}

    @property
    def words(self) -> str:
        match self.what:
            case "page_faults":
                return PAGE_FAULT_WORDS
            case "correctable":
                return CORRECTABLE_WORDS
            case "rebuilt":
                return "Rebuilt from the samples recorded before the run stopped" + (
                    "" if self.measured else "; none of them was measured") + "."
            case "replay_not_sampled":
                return ("A Soft Recovery's replay is not sampled: what it did ended with the engine process, and the "
                        "samples show the log generation only.")
            case "damaged_counted":
                return (f"{self.count or 0:,} damaged pages or log sectors were met before the test stopped; the "
                        "samples keep their count, not their kinds, and the test log names each")
            case "simulated":
                return f"Simulated device ({self.device}): {self.about}. No disk I/O was done; the times are virtual."
            case "no_backup_copy":
                return "The simulated device writes no backup copy."
            case "not_unbuffered":
                return f"Unbuffered I/O was not in effect: {self.device}. These figures may measure a cache."
            case "host_bound":
                return (f"Host-bound: the processors were {self.cpu_percent or 0:.0f} % busy on average while measuring, "
                        "so the engine, not the storage, may have set the pace; the advisor does not read this run as a "
                        "storage limit")
            case "tuning_run":
                return (f"A tuning run ({self.seconds or 0:,.0f} s measured): it steers the thread count; qualify the "
                        f"storage with the full-length {self.test_type} test ({self.hours or 0:g} h)")
            case "sweep":
                steps = self.count or 0
                return (f"A load sweep of {steps} step{'s' if steps != 1 else ''}: "
                        f"{self.end.words if self.end is not None else 'stopped before its end'}")
            case "judged_step":
                load = load_words(*self.load) if self.load is not None else ""
                return f"The verdict judges step {self.count} ({load}, {_JUDGED_WORDS[self.why or 'unfinished']})"
        return self.said
