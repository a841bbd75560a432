"""The run store: tuning sessions (one storage design each), their runs, samples and test logs, in SQLite.

`sqlite` is the store itself, opened once by the application; `rows` the session and run
rows it hands out; `migrations` its versioned schema; `recorder` the event sink that
records a run as it happens.
"""
