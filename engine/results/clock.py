"""The live clock of a run as its samples arrive: the seconds measured so far, counted from the start of measuring.

A sample's `elapsed_s` counts from the start of the run, its warm-up included; what a person watching a run reads as
"measure" is the measured window, which begins where the warm-up ends (it ends once latency settles, so its length is
known only as it happens) and, in a load sweep, again at every step once it has settled. The console and the window
read it here."""

from __future__ import annotations

from engine.results.sample_schema import IntervalSample


class MeasuredClock:
    """Seconds measured so far, from the samples of one run in order."""

    def __init__(self) -> None:
        self._began_s: float | None = None  # the run's elapsed seconds when measuring (or a sweep's step) began
        self._step: int | None = None

    def add(self, sample: IntervalSample) -> None:
        """The run's next sample, whether it is shown or not."""
        if sample.phase != "measure":
            self._began_s = None
        elif self._began_s is None or sample.step != self._step:
            self._began_s = sample.elapsed_s - sample.duration_s
            self._step = sample.step

    def measured_s(self, sample: IntervalSample) -> float | None:
        """The seconds measured as `sample`, the latest added, ends; None while warming up (or a sweep's step
        settles)."""
        if sample.phase != "measure" or self._began_s is None:
            return None
        return sample.elapsed_s - self._began_s
