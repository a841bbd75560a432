"""The ESE model of one database instance, and the counters its I/O threads keep.

`instance` runs transaction threads over the database `cache`, the `logstream` and the
`background` streams; `context` is what every I/O thread shares (the run's clock, how a
completion is counted); `stats` and `histogram` are the per-stream counters and
latency histograms, lock-free on the hot path.
"""
