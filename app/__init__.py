"""Jetwise application wiring: entry point, command line, engine process launch."""
