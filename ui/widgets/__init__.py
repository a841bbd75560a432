"""Widgets the window is built from: fields made from the option declarations, live plots, a collapsible section,
the status and tables of each kind of test (an ESRP suite's too), a JetstressConfig.xml's import report, and the one
style module every colour comes from."""
