"""The Jetwise window (PySide6): may import the report and the engine, never the application wiring.

`shell` is the main window; `wizard/` plans a test, one module per page; `views/` show a run,
its verdict and its tuning session; `widgets/` are the fields, plots and the one style module;
`controllers/` drive the engine process, auto-tune, the ESRP suite and the reports; `workers`
runs blocking checks off the GUI thread; `printing` puts the report on paper; `scans`,
`recovery` and `suite` word the tests that are not timed runs, and the ESRP qualification.
"""
