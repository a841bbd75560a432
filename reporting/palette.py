"""The colours Jetwise draws with, in one place: the report, its charts and the window use these.

Pass green, fail red and an aborted or warning amber read on white and in black-and-white
print (they differ in lightness); the series colours are told apart by colour-blind readers.
"""

from __future__ import annotations

PASS = "#2e7d32"
FAIL = "#b00020"
ABORTED = "#8a6d00"
WARNING = "#8a5a00"  # dark amber: readable on white, distinct from an error's red
GRID = "#e0e0e0"

TARGET = PASS  # the target IOPS line
READS = "#1f4e79"  # database reads, and the achieved IOPS
LOG = "#c55a11"  # log writes
LIMIT = FAIL  # a latency limit drawn alone

VERDICT = {"pass": PASS, "fail": FAIL, "aborted": ABORTED}

SERIES = [READS, LOG, PASS, "#7b1fa2", "#00838f", "#6d4c41", "#ad1457", "#455a64", "#827717", "#283593", "#bf360c",
          "#37474f"]
"""One colour per series (instance, run), in order."""
