"""What the window drives rather than shows: the engine process, runs and auto-tune, the reports of a run,
and the wizard's services on the run store and the machine."""
