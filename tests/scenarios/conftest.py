"""The window scenarios use the same window under test, on the same run store, as the UI tests."""

from tests.ui.conftest import store, window

__all__ = ["store", "window"]
