"""The workflow events fixbot handles, one module per event family.

Pure. Each module exports `EventKind`s (`base.EventKind`): the event's name, how its payload
fills in the `Event`, and the `Intent` it comes to. `registry.KINDS` lists them; `event`
parses through it and `intent` decides through it. Adding an event (say `merge_group`) is one
module here, one entry in `registry.KINDS` and its test (README.md, "Extending fixbot").
"""
