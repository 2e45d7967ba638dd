"""What a work-tree module's names are bound to at the run's end, held to the module code the
import system ran for its file (`modulecode.loaded`): read by `modulecode.held`, which names a
file imported only where its names still hold (round 41's holes).

A module's file holds where (1) `sys.modules` (the dict captured at load: the import system's
own) still maps the module's name to the module object the import system ran the file's code
into; (2) each name its module code binds once, by a `def` no decorator wraps, is still the
function of that very code object (round 41: app.py set `checks.assert_alike` to a no-op after
importing it); (3) each name it binds once by `from m import n` (or `import m`), where `m` is a
work-tree module the import system loaded, is still `m`'s function `n` (as (2) holds it) or the
module object loaded for `m.n` (or `m`): round 41, app.py put a module of its own in
`sys.modules["checks"]`, and the helper module's `from checks import assert_alike` bound its
lambda. Read at the run's end, after the tests: `unittest.mock.patch` and pytest's
`monkeypatch` have put back what a test patched.

Copied beside the observers (`fixbot.observe.channel`'s `PARTS`, as `<module>_modulenames`) and
loaded by `modulecode`; it imports the standard library and the observer's `bytecode` part alone
(the instructions read from `co_code`, no `dis` at run time). No project code runs: exact types,
a module's namespace through `ModuleType`'s own `__dict__` descriptor, a function's code
through `FunctionType`'s.

Limits: a name bound twice in its module code (`f = wrap(f)` after `def f`), by a decorated
`def`, by a class statement, or at a nested level, is not held (a class's methods are the
unittest observer's, `unittest_asserts`); a relative import is resolved from the module's own
name (a package where its file is `__init__.py`).
"""

from __future__ import annotations

import importlib
import sys
from types import CodeType, FunctionType, ModuleType

# nothing more is imported: `typing` for the checker alone
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _part(name: str, _name: str = __name__) -> Any:
    """The observer's part `name` (`bytecode`), copied beside this one (`<module>_<name>`, this
    being `<module>_modulenames`) and taken out of `sys.modules` as the observer's parts are,
    or `fixbot.observe.<name>` where imported from fixbot's package."""
    package, _, module = _name.rpartition(".")
    if package:
        return importlib.import_module(f"{package}.{name}")
    named = module[: -len("modulenames")] + name
    try:
        return importlib.import_module(named)
    finally:
        sys.modules.pop(named, None)


BYTECODE = _part("bytecode")  # the instructions of a code object, read without `dis`
STORES = frozenset({"STORE_NAME", "STORE_GLOBAL"})  # a module-level name bound
UNBINDS = frozenset({"DELETE_NAME", "DELETE_GLOBAL"})
# passed over between a MAKE_FUNCTION and its store
PASSED = frozenset({"SET_FUNCTION_ATTRIBUTE", "EXTENDED_ARG"})
# a module's namespace, no `__getattr__` asked
NAMESPACE: Any = vars(ModuleType)["__dict__"].__get__
GETCODE: Any = FunctionType.__dict__["__code__"].__get__
ABSENT = object()


def _names(code: Any, arg: Any, _type: Any = type, _int: Any = int) -> Any:
    """The name an instruction's raw argument `arg` indexes in `code.co_names`."""
    return code.co_names[arg] if _type(arg) is _int else None


def _made(state: dict[str, Any], code: Any, value: Any, _type: Any = type) -> Any:
    """At a MAKE_FUNCTION: ("def", the code object of the function it makes), from the last
    constants loaded (3.8 to 3.10 load its qualified name after it)."""
    made = None
    for const in state["consts"]:
        if _type(const) is CodeType:
            made = const
    return ("def", made) if made is not None else None


def _import_name(
    state: dict[str, Any], code: Any, value: Any, _len: Any = len, _type: Any = type
) -> Any:
    """At an IMPORT_NAME (its level the first of the two constants before it): what `import m`
    binds, ("from", (m's first part, level, None)); the module kept for its IMPORT_FROMs."""
    consts = state["consts"]
    level = consts[0] if _len(consts) == 2 and _type(consts[0]) is int else 0
    module = _names(code, value)
    state["importing"] = (module, level)
    return ("from", (module.partition(".")[0], level, None))


def _import_from(state: dict[str, Any], code: Any, value: Any) -> Any:
    """At an IMPORT_FROM: ("from", (m, level, n)) of the IMPORT_NAME before it."""
    importing = state["importing"]
    if importing is None:
        return None
    return ("from", (importing[0], importing[1], _names(code, value)))


# what the next store binds, by the instruction before it (any other: nothing read)
STEPS = {"MAKE_FUNCTION": _made, "IMPORT_NAME": _import_name, "IMPORT_FROM": _import_from}


def _once(found: dict[str, Any], counts: dict[str, int]) -> dict[str, Any]:
    """The entries of `found` whose name `counts` says is bound exactly once."""
    return {name: value for name, value in found.items() if counts.get(name) == 1}


def bindings(
    code: Any,
    _instructions: Any = BYTECODE.instructions,
    _names: Any = _names,
    _stores: frozenset[str] = STORES,
    _unbinds: frozenset[str] = UNBINDS,
    _passed: frozenset[str] = PASSED,
    _steps: dict[str, Any] = STEPS,
) -> tuple[dict[str, Any], dict[str, tuple[str, int, Any]]]:
    """(defs, imports) of module code `code`, for the names it binds exactly once: `defs` the
    name of an undecorated `def` to its function's code object; `imports` a name bound by
    `from m import n` to `(m, level, n)`, by `import m` to `(m's first part, level, None)`."""
    found: dict[str, dict[str, Any]] = {"def": {}, "from": {}}
    counts: dict[str, int] = {}
    state: dict[str, Any] = {"consts": [], "importing": None}
    pending: Any = None  # what the next store binds: ("def", code) or ("from", (m, level, n))
    for _, name, value in _instructions(code):
        if name in _stores or name in _unbinds:
            bound = _names(code, value)
            counts[bound] = counts.get(bound, 0) + 1
            if name in _stores and pending is not None:
                found[pending[0]][bound] = pending[1]
            pending = None
        elif name not in _passed:
            step = _steps.get(name)
            pending = step(state, code, value) if step is not None else None
            state["consts"] = [*state["consts"][-1:], value] if name == "LOAD_CONST" else []
    return _once(found["def"], counts), _once(found["from"], counts)


def _absolute(name: str, package: bool, module: str, level: int) -> str:
    """The absolute name of `module` imported at `level` from module `name` (a package's
    `__init__.py` where `package`)."""
    if not level:
        return module
    base = name if package else name.rpartition(".")[0]
    for _ in range(level - 1):
        base = base.rpartition(".")[0]
    return f"{base}.{module}" if module else base


def _function_of(value: Any, code: Any, _type: Any = type, _fn: Any = FunctionType) -> bool:
    """Whether `value` is a function of code object `code`, by identity."""
    return _type(value) is _fn and GETCODE(value) is code


def unheld(
    file: str,
    record: tuple[Any, Any, str, str],
    by_name: dict[str, tuple[Any, Any, str, str]],
    modules: dict[str, Any],
    read: dict[int, Any],
    _bindings: Any = bindings,
    _id: Any = id,
) -> str:
    """Why `file`'s names no longer hold ("" where they do): `record` is (module code, module
    object, module name, the file's digest) as the import system loaded it, `by_name` every
    loaded file's record by module name, `modules` the import system's `sys.modules`, `read`
    each module code's `bindings` read so far (by its identity: each read once per record)."""
    code, module, name = record[0], record[1], record[2]
    if modules.get(name, ABSENT) is not module:
        return f"sys.modules[{name!r}] is not the module imported from {file}"
    space = NAMESPACE(module)
    defs, imports = read[_id(code)] = read.get(_id(code)) or _bindings(code)
    for bound, made in defs.items():
        if not _function_of(space.get(bound, ABSENT), made):
            return f"{name}.{bound} is not the function its def made"
    package = file.endswith("__init__.py")
    for bound, (target, level, attr) in imports.items():
        absolute = _absolute(name, package, target, level)
        why = _bound_to(space.get(bound, ABSENT), absolute, attr, by_name, read)
        if why:
            return f"{name}.{bound}: {why}"
    return ""


def _bound_to(
    value: Any,
    absolute: str,
    attr: Any,
    by_name: dict[str, tuple[Any, Any, str, str]],
    read: dict[int, Any],
    _id: Any = id,
) -> str:
    """Why `value` is not what `from absolute import attr` (`import absolute`: `attr` None)
    binds from the loaded work-tree modules ("" where it is, or where they do not say);
    `read` as `unheld`'s."""
    if attr is not None and f"{absolute}.{attr}" in by_name:
        absolute, attr = f"{absolute}.{attr}", None
    target = by_name.get(absolute)
    if target is None:
        return ""  # no work-tree module the import system loaded: not held here
    if attr is None:
        return "" if value is target[1] else f"not the module {absolute} imported"
    code = target[0]
    read[_id(code)] = read.get(_id(code)) or bindings(code)
    made = read[_id(code)][0].get(attr)
    if made is None or _function_of(value, made):
        return ""
    return f"not {absolute}.{attr} as its def made it"
