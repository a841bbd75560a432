"""The window's views of a run: the running test with its live plots, the verdict with the advice, the tuning session."""
