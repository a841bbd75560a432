"""A run's advice, kept with it: the advisor's word on the session as the run ended, so the run's report says what
was known then, whenever it is exported, and not what later runs or a later advisor would say."""

from __future__ import annotations

import os
import sqlite3

from engine.protocol import ResultEvent, RunEvent, StartEvent
from engine.run.sinks import SinkFailedError
from engine.store.sqlite import Store
from engine.tuning.advisor import Advice, advise_session


class AdviceRecorder:
    """A sink after the store's (`RunRecorder`): when a run's result is in the store, the session's advice as it then
    stands is kept with the run. A Checksum, Backup or Soft Recovery test says nothing of a load: none is kept."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.run_id: str | None = None

    def __call__(self, event: RunEvent) -> None:
        if isinstance(event, StartEvent):
            self.run_id = event.run_id
        elif isinstance(event, ResultEvent) and self.run_id is not None and not event.result.configuration.open_ended:
            try:
                advice = advice_at_end(self.store, self.run_id)
                if advice is not None:
                    self.store.keep_advice(self.run_id, advice.to_dict())
            except (sqlite3.Error, OSError) as exc:
                raise SinkFailedError(f"the run store {self.store.path} could not be written ({exc})") from None


def advice_at_end(store: Store, run_id: str) -> Advice | None:
    """The advice on the run's session from its runs up to this one (None: the store does not know the run)."""
    row = store.run(run_id)
    if row is None:
        return None
    upto, _later = store.runs_through(row.session, run_id)
    results = [store.result(run.run_id) for run in upto]
    this = results[-1] if results else None
    if this is None:
        return None
    return advise_session(this.configuration, results, os.cpu_count() or 1, device=this.device)
