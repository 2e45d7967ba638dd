"""Generate every settings surface that lives in a file from the `Settings` declarations.

Writes the `inputs:` of action.yml (and of runner/action.yml when it exists), the settings
table of README.md (between `<!-- settings:start -->` and `<!-- settings:end -->`), and
README.md's comment command table (between `<!-- commands:start -->` and
`<!-- commands:end -->`) from the command registry. A setting whose choices a registry holds
(`edit-protocol`) gets them listed. For runner/action.yml (the composite action of the runner
mode) it also writes the `INPUT_*` variables of its "Run fixbot" step (between
`# inputs-env:start` and `# inputs-env:end`: composite actions do not set them) and its
`outputs:`, copied from action.yml's with a `value:` each. `--check` writes nothing and exits 1
when a file is out of date (tests/core/test_settings_surfaces.py runs the same check).

Usage: .venv/bin/python scripts/gen_settings.py [--check]
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fixbot.agent.protocols import registry as protocols  # noqa: E402
from fixbot.core.surfaces import Spec, shown_default, specs  # noqa: E402
from fixbot.core.values import AUTO_PROTOCOL  # noqa: E402
from fixbot.github.events.commands import registry as commands  # noqa: E402
from fixbot.github.events.inputs import EXTRA_INPUTS  # noqa: E402

ACTION = ROOT / "action.yml"
RUNNER_ACTION = ROOT / "runner" / "action.yml"
ACTIONS = [ACTION, RUNNER_ACTION]
TABLES = [ROOT / "README.md"]
START, END = "<!-- settings:start -->", "<!-- settings:end -->"
COMMANDS_START, COMMANDS_END = "<!-- commands:start -->", "<!-- commands:end -->"
README = ROOT / "README.md"
ENV_START, ENV_END = "# inputs-env:start", "# inputs-env:end"


def _yaml_string(text: str) -> str:
    """A YAML double-quoted scalar (JSON strings are valid YAML)."""
    return json.dumps(text, ensure_ascii=False)


def described(item: Spec) -> str:
    """A setting's description, with the choices a registry holds for it (the edit protocols)."""
    if item.name != "edit-protocol":
        return item.help
    return (
        f"{item.help} One of: {', '.join(f'`{n}`' for n in [AUTO_PROTOCOL, *protocols.names()])}."
    )


def input_description(item: Spec) -> str:
    """The action.yml description of a setting's input, ending with fixbot's default."""
    text = described(item)
    if item.is_list:
        text += " A list: one item per line (or a JSON list)."
    if item.surface.trust:
        text += " Read from the step's inputs only, never from the repository's files or FIXBOT_*."
    default = default_text(item).replace("\n", ", ")
    if not item.required:
        text += f" Default: `{default}`." if default else " Default: unset."
    return text


def inputs_block() -> str:
    """The `inputs:` section of action.yml, from the settings and the extra inputs.

    A setting's input declares an empty default: the runner sets `INPUT_<NAME>` to the default
    when the workflow gives none, so a non-empty value means the workflow gave it, whatever the
    value (`fixbot.core.config.read_input_layer`); fixbot applies its own defaults.
    """
    lines = ["inputs:"]
    for item in specs():
        if not item.surface.action:
            continue
        lines += [f"  {item.name}:", f"    description: {_yaml_string(input_description(item))}"]
        if item.required:
            lines.append("    required: true")
            continue
        lines += ["    required: false", '    default: ""']
    for extra in EXTRA_INPUTS:
        lines += [
            f"  {extra.name}:",
            f"    description: {_yaml_string(extra.description)}",
            "    required: false",
            f"    default: {_yaml_string(extra.default)}",
        ]
    return "\n".join(lines) + "\n"


def input_names() -> list[str]:
    """Every Action input, in action.yml's order."""
    names = [item.name for item in specs() if item.surface.action]
    return names + [extra.name for extra in EXTRA_INPUTS]


def inputs_env_block(indent: str) -> str:
    """The `INPUT_<NAME>: ${{ inputs.<name> }}` lines of runner/action.yml's "Run fixbot" step.

    The name is upper case with hyphens kept, as the runner names a container action's inputs
    (`fixbot.github.events.inputs.variable`).
    """
    return "".join(
        f"{indent}INPUT_{name.upper()}: ${{{{ inputs.{name} }}}}\n" for name in input_names()
    )


def outputs_of(action_text: str) -> list[tuple[str, str]]:
    """(name, description line) of each output in action.yml's `outputs:` section."""
    found = re.search(r"^outputs:\n(.*?)(?=^\S)", action_text, re.S | re.M)
    if not found:
        raise SystemExit("action.yml has no top-level `outputs:` section")
    pairs = re.findall(r"^  ([\w-]+):\n    (description: .*)$", found[1], re.M)
    return [(name, description) for name, description in pairs]


def runner_outputs_block(action_text: str) -> str:
    """runner/action.yml's `outputs:`: action.yml's, each with the "Run fixbot" step's value."""
    lines = ["outputs:"]
    for name, description in outputs_of(action_text):
        value = f"${{{{ steps.fixbot.outputs.{name} }}}}"
        lines += [f"  {name}:", f"    {description}", f"    value: {value}"]
    return "\n".join(lines) + "\n"


def render_runner(text: str, action_text: str) -> str:
    """runner/action.yml (`text`) with its outputs and the step's INPUT_* variables regenerated."""
    found = re.search(r"^outputs:\n.*?(?=^\S)", text, re.S | re.M)
    if not found:
        raise SystemExit("runner/action.yml has no top-level `outputs:` section")
    text = text[: found.start()] + runner_outputs_block(action_text) + "\n" + text[found.end() :]
    marked = re.search(
        rf"^( *){re.escape(ENV_START)}\n.*?^ *{re.escape(ENV_END)}\n", text, re.S | re.M
    )
    if not marked:
        raise SystemExit(f"runner/action.yml has no `{ENV_START}` ... `{ENV_END}` markers")
    indent = marked[1]
    block = f"{indent}{ENV_START}\n{inputs_env_block(indent)}{indent}{ENV_END}\n"
    return text[: marked.start()] + block + text[marked.end() :]


def default_text(item: Spec) -> str:
    """The Action's default of a setting as an input value (lists one item per line)."""
    return shown_default(item.action_default)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", "<br>")


def _where(item: Spec) -> str:
    if not item.surface.cli:
        return "Action only"
    if not item.surface.action:
        return "`fixbot run` only"
    return ""


def _default_cell(item: Spec) -> str:
    if item.required:
        return "required"
    cli, action = shown_default(item.default), shown_default(item.action_default)
    shown = ", ".join(f"`{part}`" for part in cli.split("\n")) if cli else "unset"
    if action != cli:
        shown += f" (Action: `{action}`)" if action else " (Action: unset)"
    return shown


def settings_table() -> str:
    """The markdown table of every setting (one row each) with its names on every surface."""
    rows = [
        "| setting | flag / variable | default | description |",
        "|---|---|---|---|",
    ]
    for item in specs():
        flags = [f"`{f}`" for f in item.flags] if item.surface.cli else []
        names = ", ".join([*flags, f"`{item.variables[0]}`"])
        notes = [n for n in [_where(item)] if n]
        if item.surface.trust:
            notes.append("workflow only in the Action")
        note = f" ({'; '.join(notes)})" if notes else ""
        rows.append(
            f"| `{item.name}` | {names} | {_default_cell(item)} | {_cell(described(item))}{note} |"
        )
    for extra in EXTRA_INPUTS:
        rows.append(
            f"| `{extra.name}` | Action only | `{extra.default}` | {_cell(extra.description)} |"
        )
    return "\n".join(rows) + "\n"


def render_action(text: str) -> str:
    """`text` (an action.yml) with its `inputs:` section regenerated."""
    found = re.search(r"^inputs:\n.*?(?=^\S)", text, re.S | re.M)
    if not found:
        raise SystemExit("action.yml has no top-level `inputs:` section")
    return text[: found.start()] + inputs_block() + "\n" + text[found.end() :]


def render_table(text: str) -> str:
    """`text` (markdown) with the settings table between the markers regenerated."""
    if START not in text or END not in text:
        return text
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{settings_table()}{END}{tail}"


def commands_table() -> str:
    """The markdown table of the comment commands, in the help text's order."""
    rows = ["| command | what happens |", "|---|---|"]
    rows += [f"| `{spec.usage}` | {_cell(spec.summary)} |" for spec in commands.commands()]
    return "\n".join(rows) + "\n"


def render_commands(text: str) -> str:
    """`text` (README.md) with the command table between its markers regenerated."""
    head, rest = text.split(COMMANDS_START, 1)
    _, tail = rest.split(COMMANDS_END, 1)
    return f"{head}{COMMANDS_START}\n{commands_table()}{COMMANDS_END}{tail}"


ENVIRONMENT = ROOT / "fixbot" / "core" / "environment.py"
GENERATED_START = "# generated:start"
GENERATED_END = "# generated:end"


def _names(names: set[str]) -> str:
    body = "".join(f"        {json.dumps(name)},\n" for name in sorted(names))
    return "frozenset(\n    {\n" + body + "    }\n)"


def environment_block() -> str:
    """The allowlist's generated names: every setting's `INPUT_*` and `FIXBOT_*` variables and
    the Action's extra inputs, and the runner's variables `GitHubEnv` reads."""
    from fixbot.core.github_env import GitHubEnv

    settings = {variable for item in specs() for variable in item.variables}
    settings |= {item.input_variable for item in specs() if item.surface.action}
    settings |= {"INPUT_" + extra.name.upper() for extra in EXTRA_INPUTS}
    github = set()
    for name, info in GitHubEnv.model_fields.items():
        alias = info.validation_alias
        github |= set(getattr(alias, "choices", ())) or {"GITHUB_" + name.upper()}
    return (
        f"SETTING_VARIABLES = {_names(settings)}\n"
        f"GITHUB_VARIABLES = {_names({str(name) for name in github})}\n"
    )


def render_environment(text: str) -> str:
    """fixbot/core/environment.py with its generated block rewritten."""
    head, rest = text.split(GENERATED_START, 1)
    line, rest = rest.split("\n", 1)
    _, tail = rest.split(GENERATED_END, 1)
    return f"{head}{GENERATED_START}{line}\n{environment_block()}{GENERATED_END}{tail}"


def generated() -> dict[Path, str]:
    """Every generated file that exists, with its wanted content."""
    out: dict[Path, str] = {}
    for path in ACTIONS:
        if path.exists():
            out[path] = render_action(path.read_text(encoding="utf-8"))
    if RUNNER_ACTION in out:
        out[RUNNER_ACTION] = render_runner(out[RUNNER_ACTION], ACTION.read_text(encoding="utf-8"))
    for path in TABLES:
        if path.exists():
            out[path] = render_table(path.read_text(encoding="utf-8"))
    out[README] = render_commands(out[README])
    out[ENVIRONMENT] = render_environment(ENVIRONMENT.read_text(encoding="utf-8"))
    return out


def main(argv: list[str]) -> int:
    """Write the files (or, with --check, report the ones that are out of date)."""
    stale = [p for p, text in generated().items() if p.read_text(encoding="utf-8") != text]
    if "--check" in argv:
        for path in stale:
            print(f"{path.relative_to(ROOT)} is out of date: run scripts/gen_settings.py")
        return 1 if stale else 0
    for path in stale:
        path.write_text(generated()[path], encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
