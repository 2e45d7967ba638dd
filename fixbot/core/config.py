"""Load `Settings` from its layers, every problem reported at once and naming its source.

Precedence (lowest first): defaults (the Action's own defaults in the Action) < `[tool.fixbot]` in
pyproject.toml < `.fixbot.toml` < `FIXBOT_<NAME>` variables < flags or Action inputs. Every accepted
name of a setting works in every layer (see `fixbot.core.settings.Spec.names`); list settings accept
a list, a JSON list in a string, or a string with one item per line.

In the Action (`action=True`) the files come from the pull request and the step's environment
may have been written by an earlier step (`GITHUB_ENV`): settings that carry trust
(`Surface.trust`: models, `api-base`, budgets, protected paths, the state folder, whether a
failure is reported, ...) are ignored in both with a warning naming them; only the step's inputs
set them. An input the workflow gives wins, whatever its value (see `read_input_layer`).

The layering is written here rather than with pydantic-settings' sources: those merge every
source into one dict before validation, so a `ValidationError` could not say whether a bad value
came from a flag, a variable or a file key, and the file locations depend on `-C DIR`.
"""

from __future__ import annotations

import difflib
import json
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from fixbot.core.errors import ConfigError
from fixbot.core.settings import Settings
from fixbot.core.surfaces import Spec, by_name, spec, specs
from fixbot.core.values import CommandPermission, ThreadAuthors

Layer = dict[str, tuple[Any, str]]  # field -> (raw value, where it came from)


def split_list(value: str) -> list[str]:
    """A list setting from text: a JSON list of strings, or else one item per non-blank line.

    Text that merely starts with `[` (a shell test such as `[ -f x ] && ...`) is one item a line.
    """
    text = value.strip()
    if text.startswith("["):
        try:
            parsed = json.loads(text)
        except json.JSONDecodeError:
            parsed = None
        if isinstance(parsed, list):
            return [str(item) for item in parsed]
    return [line.strip() for line in text.splitlines() if line.strip()]


def as_list(value: Any) -> Any:
    """A list setting's value from any layer: strings are split, lists of strings flattened."""
    if isinstance(value, str):
        return split_list(value)
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return [part for item in value for part in (split_list(item) or [item])]
    return value


def _unknown(raw_key: str, where: str) -> str:
    names = sorted({name for item in specs() for name in item.names})
    close = difflib.get_close_matches(raw_key.replace("_", "-").lower(), names, n=1)
    hint = f"; did you mean '{close[0]}'?" if close else "; see `fixbot run --help` for the keys"
    return f"{where}: unknown key '{raw_key}'{hint}"


def read_file_layer(
    path: Path, table: tuple[str, ...], *, trusted: bool = True
) -> tuple[Layer, list[str], list[str]]:
    """Read the `table` of a TOML file: (values by field, problems, warnings).

    With `trusted` False, settings that carry trust are left out with a warning.
    """
    if not path.is_file():
        return {}, [], []
    try:
        data: Any = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        return {}, [f"{path}: not valid TOML ({exc}); fix the syntax"], []
    for part in table:
        data = data.get(part, {}) if isinstance(data, dict) else {}
    where = f"{path.name} [{'.'.join(table)}]" if table else path.name
    values, problems, ignored = _file_values(data if isinstance(data, dict) else {}, where, trusted)
    if not ignored:
        return values, problems, []
    warning = (
        f"{where}: ignored {', '.join(ignored)}: in the Action these settings come from the "
        "workflow only (`with:` inputs or FIXBOT_* variables), never from the pull request's "
        "files"
    )
    return values, problems, [warning]


def _file_values(
    data: dict[str, Any], where: str, trusted: bool
) -> tuple[Layer, list[str], list[str]]:
    """The keys of a file's table `data` sorted out: (values by field, problems with unknown
    keys, keys left out because they carry trust and the file is not `trusted`)."""
    names = by_name()
    values: Layer = {}
    problems: list[str] = []
    ignored: list[str] = []
    for raw_key, value in data.items():
        found = names.get(raw_key.strip().lower())
        if found is None:
            problems.append(_unknown(raw_key, where))
        elif not trusted and found.surface.trust:
            ignored.append(raw_key)
        else:
            values[found.field] = (as_list(value) if found.is_list else value, f"{where} {raw_key}")
    return values, problems, ignored


def read_env_layer(env: Mapping[str, str]) -> Layer:
    """Read `FIXBOT_<NAME>` variables (unknown ones are other tools' and left alone)."""
    values: Layer = {}
    for item in specs():
        for variable in reversed(item.variables):  # the public name's variable wins
            raw = env.get(variable, "")
            if raw != "":
                values[item.field] = (as_list(raw) if item.is_list else raw, variable)
    return values


def untrusted_env_layer(env: Mapping[str, str]) -> tuple[Layer, list[str]]:
    """The `FIXBOT_*` layer of the Action: (values, warnings).

    The Action step's environment may have been written by an earlier step that ran the pull
    request's code (`GITHUB_ENV`), so it carries no trust: settings that carry trust set there
    are left out with a warning naming the variables (docs/SECURITY.md, "The repository's files
    are not the workflow").
    """
    values = read_env_layer(env)
    ignored = sorted(source for field, (_, source) in values.items() if spec(field).surface.trust)
    kept = {field: entry for field, entry in values.items() if not spec(field).surface.trust}
    warnings = (
        [
            f"ignored {', '.join(ignored)}: in the Action these settings come from the step's "
            "`with:` inputs only; the environment may have been written by an earlier step "
            "(GITHUB_ENV)"
        ]
        if ignored
        else []
    )
    return kept, warnings


def read_input_layer(env: Mapping[str, str]) -> Layer:
    """Read the Action's inputs (`INPUT_<NAME>`, upper case, hyphens kept).

    The runner sets every input declared in action.yml, to the workflow's value or else to the
    declared default, so whether the workflow gave an input cannot be told from a value equal to
    a default. action.yml therefore declares no default for a setting (scripts/gen_settings.py):
    a non-empty input was given by the workflow, whatever its value, and wins over every other
    layer; an empty one lets `[tool.fixbot]`, `.fixbot.toml`, `FIXBOT_*` and fixbot's own
    Action defaults apply. Source:
    https://docs.github.com/en/actions/reference/workflows-and-actions/metadata-syntax
    """
    values: Layer = {}
    for item in specs():
        if not item.surface.action:
            continue
        raw = env.get(item.input_variable, "")
        if not raw.strip():
            continue
        value = as_list(raw) if item.is_list else raw.strip()
        values[item.field] = (value, f"input `{item.name}` ({item.input_variable})")
    return values


def _defaults(action: bool) -> Layer:
    if not action:
        return {}
    return {
        item.field: (item.surface.action_default, f"the Action's default for `{item.name}`")
        for item in specs()
        if item.surface.action_default is not None
    }


def load_settings(
    repo: Path,
    flags: Mapping[str, Any],
    env: Mapping[str, str] | None = None,
    flag_names: Mapping[str, str] | None = None,
    *,
    action: bool = False,
    warnings: list[str] | None = None,
) -> Settings:
    """Build `Settings` for the repository at `repo` from every layer (see the module doc).

    `flags` maps field names to values given on the command line; None values are skipped.
    `flag_names` maps field names to how the user wrote them (`--max-attempts`) for messages.
    With `action` True the Action's inputs are read from `env`, the Action's defaults apply
    and the files may not set settings that carry trust (their names are appended to
    `warnings`). Raises `ConfigError` listing every problem.
    """
    env = os.environ if env is None else env
    warned: list[str] = []
    merged: Layer = dict(_defaults(action))
    problems: list[str] = []
    for path, table in ((repo / "pyproject.toml", ("tool", "fixbot")), (repo / ".fixbot.toml", ())):
        layer, found, file_warnings = read_file_layer(path, table, trusted=not action)
        merged.update(layer)
        problems.extend(found)
        warned.extend(file_warnings)
    merged.update(_env_layers(env, action, warned))
    merged.update(_flag_layer(flags, flag_names or {}))
    if warnings is not None:
        warnings.extend(warned)
    try:
        settings = Settings.model_validate({k: v for k, (v, _) in merged.items()})
    except ValidationError as exc:
        raise ConfigError(problems + _invalid(exc, merged)) from exc
    if problems:
        raise ConfigError(problems)
    return settings


def _env_layers(env: Mapping[str, str], action: bool, warnings: list[str]) -> Layer:
    """The environment's layers: in the Action its untrusted `FIXBOT_*` variables then its
    inputs (warnings about the variables left out appended to `warnings`), else `FIXBOT_*`."""
    if not action:
        return read_env_layer(env)
    from_env, warned = untrusted_env_layer(env)
    warnings.extend(warned)
    return from_env | read_input_layer(env)


def _flag_layer(flags: Mapping[str, Any], names: Mapping[str, str]) -> Layer:
    """The command line's values (None ones skipped), each named as the user wrote it."""
    values: Layer = {}
    for key, value in flags.items():
        if value is not None:
            item = spec(key)
            values[key] = (as_list(value) if item.is_list else value, names.get(key, item.flags[0]))
    return values


def _invalid(exc: ValidationError, merged: Layer) -> list[str]:
    """One problem per validation error, naming the layer the value came from."""
    problems = []
    for error in exc.errors():
        field = str(error["loc"][0]) if error["loc"] else "?"
        source = merged.get(field, (None, field))[1]
        problems.append(f"{source}: {error['msg']} (got {error.get('input')!r})")
    return problems


class Gates(BaseModel):
    """The settings the gates read before the branch is checked out, as the workflow alone
    sets them (`read_gates`): forks, review threads, comment commands, the pull request gates
    and budgets. Each field is the `Settings` field of the same name (its description there)."""

    model_config = ConfigDict(frozen=True)

    allow_forks: bool
    thread_authors: ThreadAuthors
    thread_bots: list[str]
    command_permission: CommandPermission
    max_runs_per_day: int
    allow_bots: bool
    skip_label: str
    require_label: str | None
    allow_drafts: bool
    max_fixes_per_pr: int


def read_gates(env: Mapping[str, str]) -> Gates:
    """The `Gates` of the Action's environment `env`, read once per run.

    A setting that carries trust comes from its input only (the step's environment may have
    been written by an earlier step, see `untrusted_env_layer`); others from the input, then
    `FIXBOT_*`; else the Action's default. Raises `ConfigError` naming the input of an invalid
    value.
    """
    return Gates(**{name: _workflow_value(env, name) for name in Gates.model_fields})


def _workflow_value(env: Mapping[str, str], field: str) -> Any:
    """One setting as the workflow alone sets it (see `read_gates`)."""
    item: Spec = spec(field)
    from_env = {} if item.surface.trust else read_env_layer(env)
    layer = {**from_env, **read_input_layer(env)}
    if field not in layer:
        return item.action_default
    raw, source = layer[field]
    try:
        annotation: Any = Settings.model_fields[field].annotation
        adapter: TypeAdapter[Any] = TypeAdapter(annotation)
        return adapter.validate_python(raw)
    except ValidationError as exc:
        raise ConfigError([f"{source}: {exc.errors()[0]['msg']} (got {raw!r})"]) from exc
