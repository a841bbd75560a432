"""The one place the Jetwise version lives."""

__version__ = "0.1.0"
TOOL_NAME = "Jetwise"
