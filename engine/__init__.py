"""Jetwise engine: configuration, unbuffered I/O, metrics, verdicts. Imports no Qt."""
