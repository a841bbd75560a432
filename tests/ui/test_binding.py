"""The Qt binding must not corrupt Python's reference counts (PySide6 6.12.0 did, on every void call)."""

from __future__ import annotations

import sys

from PySide6.QtGui import QPainterPath
from PySide6.QtWidgets import QLabel


def test_void_calls_leave_none_alone(qapp):
    label = QLabel()
    path = QPainterPath()
    before = sys.getrefcount(None)
    for _ in range(2000):
        label.setText("x")
        path.moveTo(1.0, 2.0)
    assert sys.getrefcount(None) - before > -100, "this PySide6 build releases None on void calls; pin another version"
