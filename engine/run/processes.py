"""The worker processes of one run: started, signalled, heard and reaped.

`WorkerProcesses` owns the multiprocessing side of a run: the processes, their message
queue, the go and stop events and the shared times. What the messages mean is the
pool's business (`engine.run.sources.pool`). Workers are started with `spawn` on every
platform: Windows can start them no other way, and tests then run what ships.
"""

from __future__ import annotations

import multiprocessing
import pickle
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from multiprocessing.process import BaseProcess
from multiprocessing.queues import Queue
from queue import Empty

from engine.run.messages import WorkerChannels, WorkerMessage, WorkerSpec
from engine.run.worker import worker_main

STOP_WAIT_S = 1.5  # how long stopped workers get to end before they are terminated


@dataclass(frozen=True, slots=True)
class UnreadableMessage:
    """Something on the queue that could not be unpickled here: a worker of another Jetwise sent it."""

    error: str


class WorkerProcesses:
    """The worker processes of one run and what they share with the parent."""

    def __init__(self) -> None:
        self._context = multiprocessing.get_context("spawn")
        self.messages: Queue[WorkerMessage] = self._context.Queue()
        self._go, self._stop = self._context.Event(), self._context.Event()
        self._t0_ns, self._stop_at_ns = self._context.Value("q", 0), self._context.Value("q", 0)
        self._end_at_ns = self._context.Value("q", 0)
        self._load = self._context.Array("q", 2)  # threads, SluggishSessions; 0s: as configured
        self._processes: dict[int, BaseProcess] = {}

    def __len__(self) -> int:
        return len(self._processes)

    def start(self, spec: WorkerSpec) -> None:
        channels = WorkerChannels(
            spec, self.messages, self._go, self._t0_ns, self._stop, self._stop_at_ns, self._end_at_ns, self._load
        )
        process = self._context.Process(
            target=worker_main, args=(channels,), name=f"jetwise-worker-{spec.worker_id}", daemon=True
        )
        process.start()
        self._processes[spec.worker_id] = process

    def receive(self, timeout_s: float) -> WorkerMessage | UnreadableMessage | None:
        """The next message, or None when none came within `timeout_s` (none waiting, for 0)."""
        try:
            return self.messages.get(timeout_s > 0, timeout_s)
        except Empty:
            return None
        except (pickle.UnpicklingError, AttributeError, ImportError, TypeError, EOFError) as exc:
            return UnreadableMessage(f"{type(exc).__name__}: {exc}")

    def exited(self) -> Iterator[tuple[int, int]]:
        """The id and exit code of each worker process that has ended."""
        for worker_id, process in self._processes.items():
            if process.exitcode is not None:
                yield worker_id, process.exitcode

    # signals to the workers ---------------------------------------------------------

    def let_go(self, t0_ns: int) -> None:
        """Every worker is ready: they start their clocks at `t0_ns`."""
        self._t0_ns.value = t0_ns
        self._go.set()

    def end_at(self, end_ns: int) -> None:
        """An earlier planned end: nothing after `end_ns` is measured."""
        self._end_at_ns.value = end_ns

    def set_load(self, threads: int, sluggish: int) -> None:
        """A new load for every instance from each thread's next transaction: a thread count for the whole run
        (at most the configuration's, which the workers started) and SluggishSessions."""
        with self._load.get_lock():
            self._load[0], self._load[1] = threads, sluggish

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def stop_now(self) -> int:
        """Ask every worker to stop; nothing that completes from now on counts. Returns that time."""
        now = time.perf_counter_ns()
        self._stop_at_ns.value = now
        self._stop.set()
        return now

    # the end ------------------------------------------------------------------------

    def reap(self, warn: Callable[[str], None]) -> list[WorkerMessage | UnreadableMessage]:
        """Wait for every worker to end, terminating any that does not, and close the queue.

        Returns the messages still on the queue: the last words of the workers.
        """
        deadline = time.monotonic() + STOP_WAIT_S
        for process in self._processes.values():
            process.join(max(0.0, deadline - time.monotonic()))
        for process in self._processes.values():
            if process.is_alive():
                warn(f"{process.name} did not stop in time; terminating it")
                process.terminate()
                process.join(1.0)
        left: list[WorkerMessage | UnreadableMessage] = []
        try:
            while (message := self.receive(0)) is not None:
                left.append(message)
        except (OSError, ValueError):
            pass
        self.messages.close()
        self.messages.join_thread()
        return left
