"""What feeds a run's measurement, side by side, each an `engine.run.runner.IntervalSource`: the worker pool on the
configured files (`pool`), the storage model in virtual time (`model`), the agents of a test across servers (`servers`)."""
