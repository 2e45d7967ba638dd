"""Pull request comment commands (`/fixbot retry [hint]`, `/fixbot status`, `/fixbot help`).

Pure. One module per command (`retry`, `status`, `help`), each exporting one `COMMAND`, a
`base.CommandSpec`: its name, usage line, argument parsing, answer and place in the help.
`registry` finds them; `comment` finds a command in a comment's CommonMark text, answers it
through the registry, and writes the help text from it. Adding a command is one module here
and its test (README.md, "Extending fixbot"; `scripts/gen_settings.py` writes README's table).
"""
