"""The GitHub side of fixbot: the Action's event, intents, gates, publish plan and adapters.

`fixbot.github.action.main(env)` is the entry point of `fixbot action` and only wires the
others: pure decisions (`event`, `intent`, `gates`, `permission`, `threads`, `commands`,
`memory`, `batch`, `plan`, `render`), the steps that act on them (`publish`, `conversation`),
and thin adapters (`rest`, `graphql`, `workflow`, `checkout`). `local` is `fixbot run --pr`.
"""
