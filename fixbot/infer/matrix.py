"""A job's `strategy.matrix` read as GitHub expands it (its reference, "Expanding or adding
matrix configurations"): the product of the listed values, less what `exclude:` matches, with
each `include:` entry merged into the combinations it agrees with or added as its own. Pure
data: no expression is evaluated here (`fixbot.infer.workflow` renders a job's name over these).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Container, Mapping
from typing import Any

import yaml

MAX_COMBINATIONS = 4096  # a larger matrix is not searched for the one a run's name shows


def listed_keys(matrix: Mapping[str, Any]) -> list[str]:
    """The keys of `matrix` with a list of values (not `include` or `exclude`)."""
    return [k for k, v in matrix.items() if k not in ("include", "exclude") and isinstance(v, list)]


def product(matrix: Mapping[str, Any]) -> list[dict[str, object]] | None:
    """Every combination of the listed keys' values, in order ([{}] with none listed); None
    beyond `MAX_COMBINATIONS`."""
    keys = listed_keys(matrix)
    lists = [matrix[k] for k in keys]
    if math.prod(len(v) for v in lists) > MAX_COMBINATIONS:
        return None
    return [dict(zip(keys, values, strict=True)) for values in itertools.product(*lists)]


def combinations(matrix: Mapping[str, Any]) -> list[dict[str, object]]:
    """Every combination of `matrix` as GitHub expands it: the product less those `exclude:`
    matches; then each `include:` entry is added to every combination whose original values it
    does not change, or is a combination of its own when it fits none. Empty beyond
    `MAX_COMBINATIONS`."""
    everything = product(matrix)
    if everything is None:
        return []
    excluded = _entries(matrix.get("exclude"))
    originals = _less_excluded(everything, excluded) if listed_keys(matrix) else []
    return _with_included(originals, _entries(matrix.get("include")))


def merge_include(entries: object, chosen: dict[str, object]) -> None:
    """Apply a matrix's `include:` entries to the one combination `chosen`, in place: with no
    listed key, it becomes the first entry; else it takes the new keys of every entry that
    agrees with it on the keys they share (as `combinations` merges them)."""
    merged = _with_included([chosen] if chosen else [], _entries(entries))
    chosen.update(merged[0] if merged else {})


def shown_in(matrix: Mapping[str, Any], shown: str) -> dict[str, object] | None:
    """The first combination of the product whose every value appears in `shown` (a job's name
    as a run shows it), or None (also for a matrix with no listed key, or beyond the bound)."""
    if not listed_keys(matrix):
        return None
    for combo in product(matrix) or []:
        if all(short(v) in shown for v in combo.values()):
            return combo
    return None


def short(value: object) -> str:
    """A matrix value as a run's name shows it: itself, a mapping or list in YAML flow style."""
    return (
        str(value)
        if not isinstance(value, (dict, list))
        else yaml.safe_dump(value, default_flow_style=True).strip()
    )


def _less_excluded(
    combos: list[dict[str, object]], excluded: list[dict[str, object]]
) -> list[dict[str, object]]:
    """The combinations of `combos` that no (non-empty) `exclude:` entry matches."""
    return [c for c in combos if not any(_agrees(e, c, e) for e in excluded if e)]


def _with_included(
    originals: list[dict[str, object]], included: list[dict[str, object]]
) -> list[dict[str, object]]:
    """`originals` with each `include:` entry merged into every combination whose original
    values it agrees with, then the entries that fit none, each a combination of its own."""
    combos = [dict(c) for c in originals]
    added: list[dict[str, object]] = []
    for entry in included:
        fits = [c for c, o in zip(combos, originals, strict=True) if _agrees(entry, o, o)]
        for combo in fits:
            combo.update(entry)
        if not fits:
            added.append(dict(entry))
    return combos + added


def _agrees(entry: Mapping[str, object], combo: Mapping[str, object], keys: Container[Any]) -> bool:
    """True when `entry`'s value of each of `keys` it has is `combo`'s."""
    return all(combo.get(k) == v for k, v in entry.items() if k in keys)


def _entries(entries: object) -> list[dict[str, object]]:
    """The mappings of an `include:` or `exclude:` list (anything else: none)."""
    return [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []
