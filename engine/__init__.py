"""The Jetwise engine: everything a run needs, and no Qt.

Packages, lowest layer first (each may import only those below it; import-linter checks it):

- `model`: the test configuration, one declaration per option, its derivations and validation.
- `io`: the operating system's unbuffered file I/O, the page format, database and log files,
  and the preflight checks against the machine.
- `workload`: the ESE model of a database instance and the counters it measures.
- `results`: the interval sample and the run result, their figures, the verdict.
- `protocol`: events, exit codes and the stop command, shared with every front end.
- `run`: the runner, its interval sources (worker pool, simulated model), measurement and sinks.
- `store` and `tuning`: the tuning sessions on disk, and the advisor and tuner that steer them.
"""
