"""Reducing long sample series for drawing, without losing a spike."""

from __future__ import annotations

import warnings

import numpy as np


def envelope(x: np.ndarray, y: np.ndarray, max_points: int) -> tuple[np.ndarray, np.ndarray]:
    """At most `max_points` points that keep every bucket's minimum and maximum (a gap, NaN, where it has none)."""
    n = len(x)
    if n <= max_points:
        return x, y
    bucket = -(-n // (max_points // 2))
    whole = n // bucket * bucket
    chunks = y[:whole].reshape(-1, bucket)
    with warnings.catch_warnings():  # a bucket of gaps alone (no reads in any of its intervals) stays a gap
        warnings.simplefilter("ignore", RuntimeWarning)
        ys = np.column_stack((np.nanmin(chunks, axis=1), np.nanmax(chunks, axis=1))).ravel()
    xs = np.repeat(x[:whole:bucket], 2)
    return np.concatenate((xs, x[whole:])), np.concatenate((ys, y[whole:]))
