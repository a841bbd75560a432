"""One run, from a configuration to its result, whatever feeds it intervals.

`runner` validates and drives an `IntervalSource`: the worker `pool` (real files, worker
`processes` speaking typed, versioned `messages`, each running `worker`) or the `simulation`
(a storage model in virtual time). Every interval goes through the `measurement` (settling,
totals, verdict) and out to the `sinks` (run folder, store, front end). `host` samples CPU
and memory.
"""
