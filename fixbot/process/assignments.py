"""Where a shell command assigns a variable itself (`NAME=value cmd`, after `export` or `env`),
read with bashlex (https://github.com/idank/bashlex, bash's own grammar), so that fixbot can add
to a value the command sets instead of losing its own: the spectrum's and cargo coverage's
variables (`fixbot.agent.spectrum`, `fixbot.agent.rustcov`) and the observer's folder and plugin
(`fixbot.run.checkrun.observed`). Pure reading of text; nothing is run.
"""

from __future__ import annotations

from typing import Any

from fixbot.core.bashgrammar import bashlex

__all__ = ["assignment_ends", "assignment_values"]


def _assigning(command: str, name: str) -> set[tuple[int, int]]:
    """The (start, end) offsets in `command` of each word that assigns the variable `name`
    (`NAME=value` before a command, after `export` or `env`); empty when there is none or
    bashlex cannot parse `command`."""
    try:
        nodes = bashlex.parse(command)
    except Exception:  # bashlex raises its own errors and, on some syntax, plain ones
        return set()
    found: set[tuple[int, int]] = set()

    class Assignments(bashlex.ast.nodevisitor):  # type: ignore[misc]
        def visitassignment(self, node: Any, parts: Any) -> None:
            if node.word.startswith(f"{name}="):
                found.add(node.pos)

        def visitword(self, node: Any, word: str) -> None:
            if word.startswith(f"{name}="):  # `export NAME=x`, `env NAME=x cmd`
                found.add(node.pos)

    for node in nodes:
        Assignments().visit(node)
    return found


def assignment_ends(command: str, name: str) -> list[int]:
    """The offsets in `command` just past each word that assigns the variable `name`
    (`NAME=value` before a command, after `export` or `env`), in order; [] when there is none or
    bashlex cannot parse `command`. For adding to a value the command sets itself."""
    return sorted({end for _, end in _assigning(command, name)})


def assignment_values(command: str, name: str) -> list[tuple[int, int]] | None:
    """The (start, end) offsets in `command` of the value of each word that assigns the variable
    `name` (`NAME=value` before a command, after `export` or `env`), in order: `start` just past
    `NAME=`, `end` just past the word, so that `command[start:end]` is the value as written
    (quotes kept: `NAME="a b"` -> `"a b"`); [] when there is none or bashlex cannot parse
    `command`; None when an assigning word does not start with `NAME=` as written
    (`export "NAME=x"`: no offset stands for the value's start outside quotes)."""
    found = _assigning(command, name)
    prefix = f"{name}="
    if any(not command.startswith(prefix, start) for start, _ in found):
        return None
    return sorted((start + len(prefix), end) for start, end in found)
