"""Tuning: the advisor's next thread count and SluggishSessions, and the tuner that runs until one passes.

`advisor` fits a load model to a session's runs; `tuner` is the step machine that
`jetwise tune` and the window's auto-tune both drive.
"""
