"""The workflow events fixbot handles, one module per event family.

Pure. Each module exports `KIND`, an `EventKind` (`base.EventKind`) or a tuple of them: the
event's name, how its payload fills in the `Event`, the `Intent` it comes to, and every rule
that is the event's own (threads, history, fork safety, fixbot's own commit, the failed run's
logs, publishing). `registry` finds them; `event` parses through it and `intent` decides
through it. Adding an event (say `merge_group`) is one module here and its test (README.md,
"Extending fixbot").
"""
