"""Reducing long sample series for drawing, without losing a spike."""

from __future__ import annotations

import numpy as np


def envelope(x: np.ndarray, y: np.ndarray, max_points: int) -> tuple[np.ndarray, np.ndarray]:
    """At most `max_points` points that keep every bucket's minimum and maximum."""
    n = len(x)
    if n <= max_points:
        return x, y
    bucket = -(-n // (max_points // 2))
    whole = n // bucket * bucket
    chunks = y[:whole].reshape(-1, bucket)
    ys = np.column_stack((chunks.min(axis=1), chunks.max(axis=1))).ravel()
    xs = np.repeat(x[:whole:bucket], 2)
    return np.concatenate((xs, x[whole:])), np.concatenate((ys, y[whole:]))
