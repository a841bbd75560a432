"""Tuning: the advisor's next thread count and SluggishSessions, and the tuner that runs until one passes.

`evidence` says what a session's runs can teach (and what the storage's I/O errors forbid);
`advisor` fits a load model to them; `tuner` is the step machine that `jetwise tune` and the
window's auto-tune both drive.
"""
