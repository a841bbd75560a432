"""The window scenarios use the same window under test as the UI tests."""

from tests.ui.conftest import window

__all__ = ["window"]
