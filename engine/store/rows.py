"""What the store hands out: a tuning session (one storage design) and a run, as rows.

A session is keyed by its storage design: the folders and copies of its databases, not
the load put on them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engine.model.config import TestConfig
from engine.results.schema import device_mark


def design_of(config: TestConfig) -> dict[str, Any]:
    """What makes a storage design: the database and log folders and the copies.

    The mailbox profile is not part of it: changing the profile between runs is part of
    tuning one storage design (the reference walkthrough lowers the IOPS per mailbox and
    runs again), so those runs stay in the session and each is judged against its own
    target. Other folders or another copy count are another storage design.
    """
    return {"databases": [spec.model_dump(mode="json") for spec in config.databases],
            "copies_per_database": config.copies_per_database}


def _storage(design: Mapping[str, Any]) -> dict[str, Any]:
    return {"databases": design.get("databases"), "copies_per_database": design.get("copies_per_database")}


SESSION_NAME_LIMIT = 200  # characters: a storage design's name, said back in every message about it


def session_name_problem(name: str) -> str | None:
    """What is wrong with a tuning session's name: empty, longer than `SESSION_NAME_LIMIT`, or holding a control
    character; None when it will do."""
    if not name:
        return "the session's name is empty; give the storage design a name"
    if len(name) > SESSION_NAME_LIMIT:
        return f"a session's name has at most {SESSION_NAME_LIMIT} characters (got {len(name):,})"
    if any(ord(c) < 32 for c in name):
        return "the session's name holds a control character (a tab or a line break)"
    return None


def marks_devices(runs: Sequence[RunRow]) -> bool:
    """Whether a list of `runs` says which ran on a simulated device: where they ran on more than one device."""
    return len({run.device for run in runs if run.device is not None}) > 1


@dataclass(frozen=True)
class SessionRow:
    id: int
    name: str
    created_utc: datetime
    design: dict[str, Any]
    target_iops: float


@dataclass(frozen=True)
class RunRow:
    id: int
    run_id: str
    session: str
    started_utc: datetime
    ended_utc: datetime | None
    status: str
    threads: int
    sluggish_sessions: int
    output_dir: str
    achieved_iops: float | None
    db_read_avg_latency_ms: float | None
    log_write_avg_latency_ms: float | None
    reasons: list[str]
    config: TestConfig
    device: str | None = None  # what it ran on (`RunResult.device`); None: no result says yet

    @property
    def simulated_on(self) -> str:
        """"simulated: flash" for a run on a simulated device; '' for one on the storage (or not known yet)."""
        return device_mark(self.device or "")

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "session": self.session,
            "started_utc": self.started_utc.isoformat(),
            "ended_utc": None if self.ended_utc is None else self.ended_utc.isoformat(),
            "verdict": self.status,
            "threads": self.threads,
            "sluggish_sessions": self.sluggish_sessions,
            "achieved_transactional_iops": self.achieved_iops,
            "target_transactional_iops": self.config.target_transactional_iops,
            "db_read_avg_latency_ms": self.db_read_avg_latency_ms,
            "log_write_avg_latency_ms": self.log_write_avg_latency_ms,
            "reasons": self.reasons,
            "device": self.device,
            "output_dir": self.output_dir,
        }
