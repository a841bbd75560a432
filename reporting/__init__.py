"""The printable report, Qt-free: it reads a run's result and samples and never re-derives them.

`bundle` finds a run (store or folder), `document` builds the report's view model and
HTML, `charts` draws SVG charts from `series` envelopes, `csv_export` writes the samples.
`suite` combines an ESRP suite's five runs into one report, a summary then each stage's own.
The engine never imports this package; the window prints what it renders.
"""
