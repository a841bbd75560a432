"""The Test type page's ESRP qualification: its choice, its two stage lengths and its note.

The suite runs the five tests an ESRP submission publishes on the same databases; every option
of the page applies to one of them but the duration, which Performance and Stress each have their
own of. The lengths are typed as a test's duration is, within the same bounds (the page checks
them), each with its own message beneath.
"""

from __future__ import annotations

from engine.model.units import compact_duration
from engine.results.suite import PERFORMANCE_S, STRESS_S, is_trial, trial_words
from ui.suite import TITLE
from ui.widgets.fields import DurationChoice

LABEL = (f"{TITLE} — Performance, Stress, Database checksum, Database backup and Soft recovery in turn on the same "
         "databases, as an ESRP submission publishes them")
TOOLTIP = ("The Exchange Solution Reviewed Program's five tests, one after another on the same databases: Performance "
           "(Strict thresholds), Stress (Lenient), then Database checksum, Database backup and Soft recovery. Each test "
           "is kept as a run of its own, and an ESRP report combines them.")
LENGTHS = {  # the field's key, its label, the length ESRP publishes and the usual choices
    "performance": ("Performance test length", PERFORMANCE_S, ["2h", "1h", "30m"]),
    "stress": ("Stress test length", STRESS_S, ["24h", "12h", "2h"]),
}


def note(performance_s: float, stress_s: float) -> str:
    """What the suite does, with the lengths as they read."""
    return (f"Five tests on the same databases, one after another: Performance ({compact_duration(performance_s)}, "
            f"Strict thresholds), Stress ({compact_duration(stress_s)}, Lenient thresholds), Database checksum, "
            "Database backup and Soft recovery. Each is kept as a run of its own, with its report, in the suite's "
            "folder, and an ESRP report combines them at the end. A test that fails does not stop the others; Stop "
            "ends the suite, and starting it again with this configuration resumes it from the first test without a "
            "verdict. Every test runs at the thread count set on the Thread tuning page (auto-tune does not apply)."
            + (f" {trial_words(performance_s, stress_s)}." if is_trial(performance_s, stress_s) else ""))


def length_field(key: str) -> DurationChoice:
    label, published, presets = LENGTHS[key]
    field = DurationChoice(presets, f"{label}: ESRP publishes {compact_duration(published)}. "
                                    "Typed as 2h, 90m, 1:30:00.")
    field.set_value(published, quiet=True)
    return field
