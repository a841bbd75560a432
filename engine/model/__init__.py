"""The test configuration: every option declared once, with what is derived from it and how it is validated.

`config` is the pydantic model (title, description, unit, bounds and CLI flag per option),
`options` lists the options from it for the command line and the wizard, `derive` holds
the defaults computed from a few answers (thread count, paths, the quick check),
`validation` checks input against the model and its rules, `units` reads and writes
durations and sizes, `draft` is a test being planned in the wizard, judged as it is typed.
Nothing here touches a disk.
"""
