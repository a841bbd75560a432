"""Jetwise user interface (PySide6 wizard, live plots, results). May import engine, never app."""
