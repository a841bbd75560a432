"""The simulated device's steady state, as the tests compare a run or an advice with it."""

from __future__ import annotations

from engine.model.config import TestConfig
from engine.run.sources.model import OperatingPoint, StorageModel, solve
from engine.run.streams import mix_of


def steady_iops(model: StorageModel, config: TestConfig) -> tuple[float, OperatingPoint]:
    """Transactional IOPS (database reads and writes per second, all instances) at the steady state, and the state."""
    point = solve(model, config)
    work = mix_of(config)
    return sum(point.transactions_per_s) * (work.reads + work.writes), point
