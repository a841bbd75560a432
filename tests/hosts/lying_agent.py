"""A hostile agent for the tests across servers: the real `jetwise agent`, enrolled, with its own certificate and key,
running its part for real, whose every message passes through a lie on its way to the controller. Each message it
sends validates against the link's schema; what it says is not true.

    python -m tests.hosts.lying_agent LIE HOST      (JETWISE_DATA_DIR: the agent's data folder)

LIE is one of:
- short:    every sample says its interval lasted a fifth of its real length
- ghost:    every sample names its instances as ones the server does not run
- nan:      every sample's CPU figure is JSON NaN
- future:   before its first sample, one for an interval a million past the test's
- early:    each sample also sent for the interval five ahead, before that interval has ended
- twice:    each sample sent twice
- mute:     no sample at all, its link answering every ping
- newline:  its phase words and warnings carry a line break and a line in another server's name
"""

from __future__ import annotations

import sys

from pydantic import BaseModel

from engine.hosts.link import Peer
from engine.hosts.messages import PartEvent
from engine.protocol import IntervalEvent, LogEvent, PhaseEvent

FORGED = "\n12:00:00 -- 127.0.0.2: databases ready (forged)"


def lies(lie: str, message: BaseModel) -> list[str]:
    """The texts the agent sends instead of `message`."""
    text = message.model_dump_json()
    if not isinstance(message, PartEvent):
        return [text]
    event = message.event
    if isinstance(event, IntervalEvent):
        sample = event.sample

        def said(**update: object) -> str:
            return message.model_copy(update={"event": IntervalEvent(sample=sample.model_copy(update=update))}
                                      ).model_dump_json()

        if lie == "short":
            return [said(duration_s=sample.duration_s / 5)]
        if lie == "ghost" and sample.instances:
            return [said(instances={f"Ghost {name}": counters for name, counters in sample.instances.items()})]
        if lie == "nan":
            return [_nan_cpu(text)]
        if lie == "future" and sample.interval == 0:
            return [said(interval=1_000_000), text]
        if lie == "early":
            return [text, said(interval=sample.interval + 5)]
        if lie == "twice":
            return [text, text]
        if lie == "mute":
            return []
    if lie == "newline" and isinstance(event, (PhaseEvent, LogEvent)) and event.message:
        forged = message.model_copy(update={"event": event.model_copy(update={"message": event.message + FORGED})})
        return [forged.model_dump_json()]
    return [text]


def _nan_cpu(text: str) -> str:
    """The sample's text with its host CPU figure JSON NaN (which pydantic reads as a float)."""
    at = text.index('"cpu_percent":') + len('"cpu_percent":')
    end = at
    while text[end] not in ",}":
        end += 1
    return text[:at] + "NaN" + text[end:]


def main(lie: str, host: str) -> int:
    def send(self: Peer, message: BaseModel) -> None:
        for text in lies(lie, message):
            self.loop.call_soon_threadsafe(self._outbox.put_nowait, text)

    Peer.send = send  # type: ignore[method-assign]
    from app.main import main as jetwise

    return jetwise(["agent", "--once", "--listen", host])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
