"""What a run measured, in one shape: interval samples, figures, the verdict and the result document.

`schema` and `sample_schema` hold the pydantic models every part reads (`RunResult`, `IntervalSample`),
`figures` turns counters into rates and latencies, `verdict` judges Pass/Fail against
the thresholds, `document` builds, writes and reads the run folder's result and samples.
"""
