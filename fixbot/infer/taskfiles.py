"""The project's own task files: a test target or session the project declares, read as data
(configparser for tox.ini, `ast` for a noxfile, JSON for package.json, a line scan for the
Makefile's and justfile's rule names). The first that declares one wins, in `ORDER`.
"""

from __future__ import annotations

import ast
import configparser
import json
import re
from collections.abc import Callable
from typing import TypeGuard

from fixbot.infer.plan import Inferred, Origin, Plan

Read = Callable[[str], "str | None"]
TARGET = re.compile(r"^(test|tests|check)\s*:(?!=)", re.M)  # `test:` (not `test := value`)
JUST_RECIPE = re.compile(r"^@?(test|tests|check)\b[^:=\n]*:(?!=)", re.M)
NPM_DEFAULT = "no test specified"  # `npm init`'s placeholder test script exits 1


def tox(read: Read) -> Plan | None:
    """`tox` when tox.ini declares `[tox]` or a test environment."""
    text = read("tox.ini")
    if text is None:
        return None
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    if not any(s == "tox" or s.startswith("testenv") for s in parser.sections()):
        return None
    return Plan(check=Inferred("tox", Origin("tox.ini", detail="its `[tox]` environments")))


def nox(read: Read) -> Plan | None:
    """`nox -s NAME` for the noxfile's session named test/tests, else plain `nox`."""
    text = read("noxfile.py")
    if text is None:
        return None
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    sessions = [node.name for node in tree.body if _is_session(node)]
    if not sessions:
        return None
    named = next((s for s in sessions if s in ("tests", "test")), None)
    command = f"nox -s {named}" if named else "nox"
    return Plan(
        check=Inferred(command, Origin("noxfile.py", detail=f"session `{named or sessions[0]}`"))
    )


def _is_session(node: ast.stmt) -> TypeGuard[ast.FunctionDef]:
    """True for a module-level function a `session` decorator marks (`@nox.session`)."""
    return isinstance(node, ast.FunctionDef) and any(
        "session" in ast.unparse(d) for d in node.decorator_list
    )


def package_json(read: Read) -> Plan | None:
    """`npm test` when package.json has a real `test` script (not npm's placeholder)."""
    text = read("package.json")
    if text is None:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    scripts = data.get("scripts") if isinstance(data, dict) else None
    test = scripts.get("test") if isinstance(scripts, dict) else None
    if not isinstance(test, str) or NPM_DEFAULT in test:
        return None
    setup = "npm ci" if read("package-lock.json") is not None else "npm install"
    return Plan(
        check=Inferred("npm test", Origin("package.json", detail="script `test`")),
        setup=(Inferred(setup, Origin("package.json", detail="its dependencies")),),
    )


def _rules(name: str, pattern: re.Pattern[str], program: str) -> Callable[[Read], Plan | None]:
    def rules(read: Read) -> Plan | None:
        text = read(name)
        found = pattern.search(text) if text is not None else None
        if found is None:
            return None
        return Plan(
            check=Inferred(
                f"{program} {found.group(1)}", Origin(name, detail=f"target `{found.group(1)}`")
            )
        )

    rules.__doc__ = f"`{program} TARGET` for {name}'s first test/tests/check rule."
    return rules


makefile = _rules("Makefile", TARGET, "make")
justfile = _rules("justfile", JUST_RECIPE, "just")
ORDER: tuple[Callable[[Read], Plan | None], ...] = (tox, nox, makefile, package_json, justfile)


def infer(read: Read) -> Plan | None:
    """The first task file's plan (in `ORDER`), None when none declares tests."""
    return next((plan for reader in ORDER if (plan := reader(read)) is not None), None)
