"""What the window drives rather than shows: the engine process, runs and auto-tune, an ESRP suite's stages, the
reports of a run or a suite, configuration files in and out (Jetwise's JSON, JetstressConfig.xml), and the wizard's
services on the run store, the machine and the runs folder."""
