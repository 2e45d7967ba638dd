"""The GitHub side of fixbot: the Action's event, gates, publish plan and API adapters.

`fixbot.github.action.main(env)` is the entry point of `fixbot action`; the other modules are
pure decisions (`event`, `gates`, `plan`, `render`) or thin adapters (`rest`, `workflow`,
`checkout`).
"""
