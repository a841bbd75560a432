"""What the wizard asks of the world, and the window answers: tuning sessions from the store, checks of the machine,
the unfinished ESRP suites in the runs folder.

Pages never open the store nor touch a disk themselves (an import contract forbids it): the
window gives the wizard an object with these methods, and a test can give it another.
`check_machine` and `make_folders` may block for seconds on a slow volume; pages call them off the GUI thread.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from PySide6.QtWidgets import QWidget

from engine.model.config import TestConfig
from engine.model.validation import HOSTS_FIELD, Problem
from engine.run.suite import FoundSuite


class ServiceError(Exception):
    """The store cannot answer; the message says why."""


@dataclass(frozen=True)
class SessionSummary:
    """A tuning session as the Welcome page lists it."""

    name: str
    target_iops: float
    runs: int
    last_status: str | None = None  # of its last run
    last_config: TestConfig | None = None  # what its last run ran: the test type and its setting
    last_host_bound: bool = False  # its last run's host, not its storage, set the pace
    auto_tune: bool | None = None  # the tuning mode its runs were started in; None when the window never ran it


@dataclass(frozen=True)
class MachineCheck:
    """The checks of the machine for one configuration: problems by field, and a line or more per database row."""

    problems: list[Problem] = field(default_factory=list)
    rows: dict[int, list[tuple[str, str]]] = field(default_factory=dict)  # (text, "ok" | "warning" | "error")


def frees_itself(problem: Problem) -> bool:
    """A folder another run holds (the engine's folder locks say "is in use by run …"): the problem goes when that
    run ends, so checking again can pass without a value changing."""
    return " is in use by " in problem.message


def wants_folders(problem: Problem) -> bool:
    """A database or log folder missing with the folder above it (the run creates only the last one): "Create
    folders" makes them."""
    return folder_to_make(problem.message)


def folder_to_make(words: str) -> bool:
    """A check's words that say a folder is missing with the folder above it (`wants_folders`)."""
    return " does not exist (nor does " in words


def agents_missing(problem: Problem) -> bool:
    """An agent that did not connect in time to a test across servers (the engine's words): it may be running by the
    next Start, so it holds nothing back; starting again or choosing other servers clears it."""
    return problem.field == HOSTS_FIELD and problem.message.startswith("no agent connected for ")


class WizardServices(Protocol):
    def recent_sessions(self) -> list[SessionSummary]:
        """The tuning sessions, latest first (raises ServiceError)."""
        ...

    def last_config(self, session: str) -> TestConfig | None:
        """The configuration of the session's last run; None when it has no run (raises ServiceError)."""
        ...

    def check_machine(self, config: TestConfig) -> MachineCheck:
        """Folders, writability, free space, unbuffered I/O and existing files, for `config`. Blocks."""
        ...

    def make_folders(self, config: TestConfig) -> list[str]:
        """Every database and log folder of `config` made, with the folders above it; what could not be, in words.
        Blocks."""
        ...

    def unfinished_suites(self) -> list[FoundSuite]:
        """The ESRP suites in the window's runs folder that did not run through, latest first."""
        ...

    def enrolled_servers(self) -> dict[str, int | None]:
        """The servers enrolled with this controller (File → Servers…), by name, each with the port its bundle tells its
        agent to connect to (None when its enrolment did not keep it); raises ServiceError."""
        ...

    def manage_servers(self, parent: QWidget) -> None:
        """Show the servers to add, remove and check (File → Servers…) until the engineer closes them. Blocks."""
        ...
