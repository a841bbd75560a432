"""What a front end asks to run: one `RunRequest`, from the command line's arguments or the window's request file.

`app.opening.OpenRun` is the one place that opens a run from it."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from engine.model.config import TestConfig

Work = Literal["test", "sweep", "calibration", "tune", "suite"]
REQUEST_SUFFIX = "request.json"  # a file `jetwise engine` reads as a request, not as a configuration


class RunRequest(BaseModel):
    """The configuration, what to run, its source (this server's disks, a simulated device, the servers the
    configuration names), where its results go and the session it joins."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    config: TestConfig
    work: Work = Field(
        "test", description="a test as configured (a scan is a test), a load sweep, a calibration run, a tuning "
                            "session or the ESRP suite")
    output: Path = Field(description="the run's folder (a suite's or a tuning session's: the one holding its runs)")
    session: str = Field(description="the tuning session its runs join, as the front end named it")
    simulate: str | None = Field(None, description="the simulated device's profile; None: the storage at the paths")
    calibration_s: float | None = Field(None, description="a calibration run's (a tuning's runs') longest length")
    max_runs: int = Field(8, ge=1, description="a tuning session's most calibration runs")
    performance_s: float | None = Field(None, description="a suite's Performance test length")
    stress_s: float | None = Field(None, description="a suite's Stress test length")
    port: int | None = Field(None, description="across servers: where the controller listens (None: its own)")
    wait_s: float = Field(120.0, description="across servers: how long the controller waits for the agents")
