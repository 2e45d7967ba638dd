"""What the observer is made of: its functions (`functions`: its hooks and what their closure
cells and default arguments hold), the identities of its code objects (`codes`, `nested`) and
the hook implementations pluggy holds for it (`registered`). The sender answers only the code
objects `codes` names (`fixbot.observe.sender`), the audit hook counts their frames as the
observer's own and guards its functions (`fixbot.observe.reach`), and the self-check compares
what they found with what it was at registration (`fixbot.observe.integrity.seal`).

Copied beside the plugin as `<module>_identities` and loaded with it, inside the project's own
Python (3.8 or later). It imports the standard library alone.
"""

from __future__ import annotations

from collections.abc import Iterable
from types import FunctionType, ModuleType
from typing import Any


def functions(roots: Iterable[Any], folder: str) -> list[FunctionType]:
    """The observer's functions: `roots` and every function their closure cells and default
    arguments (`__defaults__`, `__kwdefaults__`) hold, transitively, whose code is in a file
    under `folder` (the observer's own)."""
    found: dict[int, FunctionType] = {}
    stack = [r for r in roots if isinstance(r, FunctionType)]
    while stack:
        function = stack.pop()
        if id(function) in found or not function.__code__.co_filename.startswith(folder):
            continue
        found[id(function)] = function
        stack += [h for h in _holds(function) if isinstance(h, FunctionType)]
    return list(found.values())


def _holds(function: FunctionType) -> list[Any]:
    """What `function` holds: its default arguments (`__defaults__`, `__kwdefaults__`) and
    the contents of its closure cells (an empty cell, a name assigned after the function was
    made, holds nothing)."""
    held = list(function.__defaults__ or ()) + list((function.__kwdefaults__ or {}).values())
    for cell in function.__closure__ or ():
        try:
            held.append(cell.cell_contents)
        except ValueError:
            continue
    return held


def nested(functions: Iterable[Any]) -> set[int]:
    """The identities of `functions`' code objects and of the code nested in them (their
    inner functions, lambdas, comprehensions)."""
    found: dict[int, Any] = {}
    stack = [f.__code__ for f in functions if isinstance(f, FunctionType)]
    while stack:
        code = stack.pop()
        if id(code) not in found:
            found[id(code)] = code
            stack += [c for c in code.co_consts if hasattr(c, "co_code")]
    return set(found)


def codes(modules: Iterable[ModuleType]) -> set[int]:
    """The identities of every code object of `modules`' functions (and their classes'),
    nested ones too: a frame running one of them is the observer's, whatever file name a
    code object made elsewhere claims."""
    found: dict[int, Any] = {}
    stack: list[Any] = []
    for module in modules:
        for value in list(vars(module).values()):
            members = vars(value).values() if isinstance(value, type) else [value]
            stack += [m.__code__ for m in members if isinstance(m, FunctionType)]
    while stack:
        code = stack.pop()
        if id(code) not in found:
            found[id(code)] = code
            stack += [c for c in code.co_consts if hasattr(c, "co_code")]
    return set(found)


def registered(manager: Any, plugin: Any) -> list[tuple[str, Any, Any, Any]]:
    """(hook name, `HookImpl`, its function, the hook's `get_hookimpls`) for each hook
    implementation of `plugin` that pluggy's `manager` holds, as it holds them now."""
    found = []
    for hook, caller in list(vars(manager.hook).items()):
        get = getattr(caller, "get_hookimpls", None)
        if get is None:
            continue
        for impl in get():
            if impl.plugin is plugin:
                found.append((hook, impl, impl.function, get))
    return found
