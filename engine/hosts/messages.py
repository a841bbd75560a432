"""What the controller and its agents say to each other: typed messages of data, never code.

Each message is a JSON object with a `kind`, validated on arrival against the models below (`from_agent`,
`to_agent`): nothing a peer sends is unpickled, evaluated or imported, and a message that does not validate is
refused. A server's run events are the engine's own (`engine.protocol`, the JSON lines the window reads from the
engine process), carried as a validated field. No message names the host it comes from: the controller files each
under the host its sender's certificate names (`engine.hosts.link`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from engine.model.config import TestConfig
from engine.model.host_names import LONGEST_NAME
from engine.protocol import ServerRunEvent
from engine.results.schema import RunResult
from engine.results.sweep_schema import SweepEnd
from engine.run.sweep import SweepPlan

T = TypeVar("T")
MAX_MESSAGE_BYTES = 16 * 1024 * 1024  # a server's result with its histograms fits many times over; more is refused
# Each kind of an agent's message has its size and its number of JSON values (objects, arrays, figures, words): a
# message past them is refused before it is validated at all, so no message costs the controller more than its kind's
# worth of checking (pydantic gathers an error for each value it cannot take, about 0.6 KB each). A Performance test's
# sample holds about 1,700 values and 200 more per database, its result 500 and 120 more per database (a tune's, 1,443
# for 8 databases): a test's own server is held to `VALUES_EACH_TEST`, and `VALUES_PER_INSTANCE` more for each database
# it runs, which leaves room many times over; `KIND_VALUES` bounds them all, at the 256 databases a server may have.
KIND_BYTES = {"hello": 8 * 1024, "clock_reading": 1024, "ready": 1024, "event": 4 * 1024 * 1024,
              "ended": MAX_MESSAGE_BYTES}
KIND_VALUES = {"hello": 32, "clock_reading": 16, "ready": 16, "event": 400_000, "ended": 2_000_000}
VALUES_EACH_TEST, VALUES_PER_INSTANCE = 10_000, 500


def most_values(kind: str, instances: int | None = None) -> int:
    """The most JSON values a message of `kind` may hold: from a server of `instances` databases in the test, or any."""
    most = KIND_VALUES[kind]
    if instances is None or kind not in ("event", "ended"):
        return most
    return min(most, VALUES_EACH_TEST + VALUES_PER_INSTANCE * instances)

class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _OfTest(_Message):
    test_id: str = Field(min_length=1, max_length=100)


# from an agent ------------------------------------------------------------------------------------------------------

class Hello(_Message):
    """An agent's first word: the host it was enrolled as and the event protocol it speaks; at its first contact, the
    certificate request of the key it made, which redeems its bundle."""

    kind: Literal["hello"] = "hello"
    host: str = Field(max_length=LONGEST_NAME)  # a host name's length at most (a DNS name's)
    protocol: int
    request_pem: str | None = Field(None, max_length=4096)


class ClockReading(_Message):
    """An agent's clock (its time.time()) when it read the controller's `ClockQuestion` number `number`."""

    kind: Literal["clock_reading"] = "clock_reading"
    number: int
    time_s: float = Field(allow_inf_nan=False)


class Ready(_OfTest):
    """This server's databases are ready: it waits at the start gate."""

    kind: Literal["ready"] = "ready"


class PartEvent(_OfTest):
    """An event of this server's run, as the engine sends it to the window."""

    kind: Literal["event"] = "event"
    event: Annotated[ServerRunEvent, Field(discriminator="event")]


class Ended(_OfTest):
    """This server's part ended: its result, or the problems its configuration was refused for, or its error."""

    kind: Literal["ended"] = "ended"
    result: RunResult | None = None
    refused: list[tuple[str, str]] | None = None  # (field, words)
    error: str | None = None


FromAgent = Annotated[Hello | ClockReading | Ready | PartEvent | Ended, Field(discriminator="kind")]


# from the controller ------------------------------------------------------------------------------------------------

class Welcome(_Message):
    """The controller admits the agent; `note` says anything it should know (a test running it joins after); at its
    first contact, the certificate of the key it made (`Hello.request_pem`)."""

    kind: Literal["welcome"] = "welcome"
    note: str = ""
    cert_pem: str | None = None


class Refusal(_Message):
    """The controller (or the agent) refuses the other end: why, in words. The connection closes after it."""

    kind: Literal["refused"] = "refused"
    reason: str


class ClockQuestion(_Message):
    """The controller asks the agent's clock (number `number` of a few; the least round trip is kept)."""

    kind: Literal["clock"] = "clock"
    number: int


class Prepare(_OfTest):
    """Run this server's part of test `test_id`: its configuration, a simulated device, a sweep in lockstep."""

    kind: Literal["prepare"] = "prepare"
    config: TestConfig
    simulate: str | None = None
    sweep: SweepPlan | None = None


class Go(_OfTest):
    """Start measuring at `at_s`: the test's one instant, in the agent's own clock (time.time())."""

    kind: Literal["go"] = "go"
    at_s: float


class Stop(_OfTest):
    """Stop this server's part, with the reason its result keeps."""

    kind: Literal["stop"] = "stop"
    reason: str


class Lead(_OfTest):
    """The word for step `step` of a sweep in lockstep: its load (threads, SluggishSessions) from sample `at`, or the
    sweep's end there."""

    kind: Literal["lead"] = "lead"
    step: int
    at: int
    load: tuple[int, int] | None = None
    end: SweepEnd | None = None


ToAgent = Annotated[Welcome | Refusal | ClockQuestion | Prepare | Go | Stop | Lead, Field(discriminator="kind")]

_FROM_AGENT: TypeAdapter[FromAgent] = TypeAdapter(FromAgent)
_TO_AGENT: TypeAdapter[ToAgent] = TypeAdapter(ToAgent)


class MalformedError(ValueError):
    """A message that is not one of the link's: why, in words (the first problems pydantic found)."""


def _read(adapter: TypeAdapter[T], text: str | bytes) -> T:
    if isinstance(text, bytes):
        raise MalformedError("a binary message (the link speaks JSON text)")
    try:
        return adapter.validate_json(text)
    except ValidationError as exc:
        said = "; ".join(f"{'.'.join(str(p) for p in error['loc']) or 'the message'}: {error['msg']}"
                         for error in exc.errors()[:3])
        raise MalformedError(f"a message that is not the link's ({said})") from None


def sniffed(text: str | bytes, instances: int | None = None) -> dict[str, Any]:
    """An agent's message as plain JSON, once its kind's size and number of values are known to fit (`KIND_BYTES`,
    `most_values`, of a server in the test with `instances` databases): what it is before it is validated
    (`from_agent`), or `MalformedError` saying why it is none."""
    if isinstance(text, bytes):
        raise MalformedError("a binary message (the link speaks JSON text)")
    try:
        data = json.loads(text)
    except ValueError:
        raise MalformedError("a message that is not the link's (not JSON)") from None
    kind = data.get("kind") if isinstance(data, dict) else None
    if not isinstance(kind, str):
        raise MalformedError("a message that is not the link's (of no kind the link has)")
    if kind not in KIND_BYTES:
        raise MalformedError(f"a message that is not the link's (a '{kind[:40]!s}', which no agent sends)")
    if len(text) > KIND_BYTES[kind]:
        raise MalformedError(f"a '{kind}' of {len(text):,} bytes, where one is at most {KIND_BYTES[kind]:,}")
    values, most, stack = 0, most_values(kind, instances), [data]
    while stack:
        item = stack.pop()
        values += 1
        if values > most:
            of = "" if instances is None or most == KIND_VALUES[kind] else \
                f" from a server of {instances} database{'s' if instances != 1 else ''} in the test"
            raise MalformedError(f"a '{kind}' of more than {most:,} values, where one{of} has fewer")
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    assert isinstance(data, dict)
    return data


def from_agent(text: str | bytes, admit: Callable[[dict[str, Any]], None] | None = None,
               instances: int | None = None) -> FromAgent:
    """An agent's message, validated (`MalformedError` saying why it is none): first its kind's size and number of
    values (`sniffed`, of a server in the test with `instances` databases), then what `admit` asks of it as plain JSON
    (raising `MalformedError` to refuse it unvalidated), then the model."""
    data = sniffed(text, instances)
    if admit is not None:
        admit(data)
    return _read(_FROM_AGENT, text)


def to_agent(text: str | bytes) -> ToAgent:
    """The controller's message, validated (`MalformedError` saying why it is none)."""
    return _read(_TO_AGENT, text)
