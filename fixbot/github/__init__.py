"""The GitHub side of fixbot: from a workflow event to a published result.

`fixbot.github.action.main` is the entry point of `fixbot action` and only wires the others:
`events/` (the event into one intent, gates and permissions: pure), `publish/` (the publish plan
and every markdown body: pure), `api/` (PyGithub, gql and git adapters: thin), and the steps that
act on them (`publisher`, `replies`, `conversation`, `cifail`). `local` and `fromrun` are
`fixbot run --pr` and `--from-run`; `stats/` is `fixbot stats`.
"""
