"""What a shell command's words resolve to, answered by the shell that will run it.

The check command is shell text. Instead of guessing what each word means (a builtin, a keyword,
a program on PATH, a path relative to a folder a `cd` entered), fixbot parses the command with
bashlex (https://github.com/idank/bashlex, a port of bash's own grammar) and turns it into a
*probe*: a small script with the same structure that performs the command's `cd`s and asks
`command -v` (or `[ -x ]` for a path) about each command word, without running any of them. The
probe runs under `/bin/sh` (the shell the check runs under, `fixbot.process.spawn`) in the
check's folder, with the check's environment and as the user who will run the check
(`ask_shell`); a nested `bash -c '...'` is probed by that bash. Its answers are lines
`missing<TAB>shell<TAB>word` and `cd<TAB>folder<TAB>the shell's error`.

What a probe cannot know it does not guess: after `source`, `.`, `eval`, a function definition or
a change to PATH it stops; words built at run time (`$PYTHON`, `$(...)`) are skipped; a `cd`
whose failure the command handles (`cd x || ...`, inside `if`) stops quietly.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fixbot.core.bashgrammar import bashlex
from fixbot.process.sandbox import Identity

__all__ = [
    "Answer",
    "ask_shell",
    "bash_builtin",
    "exec_if_program",
    "probe",
    "resolve",
    "words",
]

SHELL = "/bin/sh"  # the check's shell: fixbot.process.spawn runs every command with `/bin/sh -c`
BASH = "/bin/bash"  # asked which words are its builtins (an absolute path: never from PATH)
PROBE_TIMEOUT_S = 10.0
# Commands whose argument is the program that runs (`timeout 60 pytest`): the probe looks past
# them and their options. `exec` and `command` are the shell's own; the rest are programs.
WRAPPERS = frozenset({"command", "env", "exec", "nice", "nohup", "stdbuf", "time", "timeout"})
SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh"})
# After these the environment (PATH, functions, the folder) is whatever the sourced code made it.
UNKNOWABLE = frozenset({"source", ".", "eval", "alias"})
PATH_VARIABLES = frozenset({"PATH", "CDPATH", "HOME"})
STOP = "exit 0"
GLOB = frozenset("*?[")


# Characters that make a command more than one simple command of plain words.
SHELL_SYNTAX = frozenset(";&|<>()`$\\\n*?[]{}~#'\"=")


def exec_if_program(command: str) -> str:
    """The text `SHELL -c` runs for `command`: for one simple command of plain words, the shell
    asks itself (`command -v`) whether the first word is a program file and then replaces itself
    with it (`exec`); for a builtin, a keyword or anything with shell syntax, `command` unchanged.

    Why: dash does not replace itself with the last command of `sh -c`, and only the shell's own
    process inherits the parent-death signal (`fixbot.process.spawn`), so an exec'd program dies
    with fixbot. `exec` of a builtin (`cd`, `exit`, bash's `source`) would fail instead, and which
    words are builtins depends on the shell: the shell says, at run time, not a list here
    (`command -v` prints a path for a program, the bare word for a builtin or keyword; POSIX).
    """
    words = command.split()
    if not words or SHELL_SYNTAX & set(command):
        return command
    return f"case $(command -v -- {words[0]}) in */*) exec {command};; *) {command};; esac"


@dataclass(frozen=True)
class Answer:
    """What the shell said about a command: words not found (with the shell that looked) and the
    `cd` that failed (its folder and the shell's message), if any."""

    missing: list[tuple[str, str]] = field(default_factory=list)
    failed_cd: tuple[str, str] | None = None


def probe(command: str, shell: str = SHELL) -> str | None:
    """The probe script for `command` (run under `shell`), or None when bashlex cannot parse it
    (the shell will say what is wrong when the check runs)."""
    try:
        nodes = bashlex.parse(command)
    except Exception:  # bashlex raises its own errors and, on some syntax, plain ones
        return None
    lines = [line for node in nodes for line in _node(node, shell, guarded=False, optional=False)]
    return "\n".join([*lines, STOP]) + "\n"


def words(command: str) -> list[str]:
    """Every literal word of `command` as the shell's grammar reads it (`sh check.sh -v` ->
    `sh`, `check.sh`, `-v`; quotes removed), [] when bashlex cannot parse it. For the files
    the check command names (its own scripts), which verification pins to the start commit."""
    try:
        nodes = bashlex.parse(command)
    except Exception:  # bashlex raises its own errors and, on some syntax, plain ones
        return []
    found: list[str] = []

    class Words(bashlex.ast.nodevisitor):  # type: ignore[misc]
        def visitword(self, node: Any, word: str) -> None:
            found.append(word)

    for node in nodes:
        Words().visit(node)
    return found


def word_ends(command: str) -> list[tuple[str, int, bool]]:
    """Every literal word of `command` (quotes removed) with the offset in `command` just past
    it and whether it is the program word of its simple command (the first word past its
    assignments), in order; [] when bashlex cannot parse `command`. For adding options after a
    program's own word (`jest src/a.test.js` -> after `jest`)."""
    try:
        nodes = bashlex.parse(command)
    except Exception:  # bashlex raises its own errors and, on some syntax, plain ones
        return []
    found: list[tuple[str, int, bool]] = []
    programs: set[int] = set()

    class Words(bashlex.ast.nodevisitor):  # type: ignore[misc]
        def visitcommand(self, node: Any, parts: Any) -> None:
            first = next((p for p in parts if p.kind == "word"), None)
            if first is not None:
                programs.add(first.pos[1])

        def visitword(self, node: Any, word: str) -> None:
            found.append((word, node.pos[1], False))

    for node in nodes:
        Words().visit(node)
    return sorted(((w, end, end in programs) for w, end, _ in found), key=lambda item: item[1])


def _node(node: Any, shell: str, *, guarded: bool, optional: bool) -> Iterator[str]:
    """The probe lines for `node`. `guarded`: a failing `cd` here may be intended (stop
    quietly); `optional`: the command handles this part failing (`a || b`), so a program
    missing here is not reported (`pytest || python -m pytest`)."""
    kind = node.kind
    if kind == "list":
        yield from _list(node.parts, shell, guarded, optional)
    elif kind == "pipeline":  # each part runs in a subshell of its own
        for part in node.parts:
            if part.kind != "pipe":
                yield _subshell(_node(part, shell, guarded=guarded, optional=optional))
    elif kind == "compound":
        yield from _compound(node, shell, guarded, optional)
    elif kind == "command":
        yield from _command(node, shell, guarded, optional)
    elif kind == "function":
        yield STOP  # a function defined here can be called below: not knowable without running
    # anything else (a comment, a reserved word) starts nothing


def _list(parts: list[Any], shell: str, guarded: bool, optional: bool) -> Iterator[str]:
    """`a && b; c || d`: each part in order; a part followed or preceded by `||` may fail."""
    ops = [p.op if p.kind == "operator" else None for p in parts]
    for at, part in enumerate(parts):
        if part.kind == "operator":
            continue
        near_or = "||" in (ops[at - 1] if at else None, ops[at + 1] if at + 1 < len(ops) else None)
        yield from _node(part, shell, guarded=guarded or near_or, optional=optional or near_or)


def _compound(node: Any, shell: str, guarded: bool, optional: bool) -> Iterator[str]:
    """`{ ...; }` in this shell; `( ... )`, if, while, for, case in a subshell."""
    first = node.list[0] if node.list else None
    opener = getattr(first, "word", None)
    inner = [p for p in node.list if p.kind not in ("reservedword",)]
    if opener == "{":
        for part in inner:
            yield from _node(part, shell, guarded=guarded, optional=optional)
        return
    # `( ... )`, if, while, for, case: in a subshell, and a failing `cd` inside may be intended
    yield _subshell(_compound_body(inner, shell, guarded or opener != "(", optional))


def _compound_body(inner: list[Any], shell: str, guarded: bool, optional: bool) -> Iterator[str]:
    """The probe lines of a compound command's parts, reserved words and operators skipped."""
    for part in inner:
        for sub in getattr(part, "parts", None) or [part]:
            if sub.kind not in ("reservedword", "operator", "pipe"):
                yield from _node(sub, shell, guarded=guarded, optional=optional)


def _subshell(lines: Iterator[str]) -> str:
    body = list(lines)
    return "(\n" + "\n".join(body) + "\n)" if body else ":"


def _command(node: Any, shell: str, guarded: bool, optional: bool) -> Iterator[str]:
    """One simple command: its `cd` performed, its program looked up."""
    words = [p for p in node.parts if p.kind == "word"]
    if not words:
        if _assigns_path(node):
            yield STOP
        return
    words = _past_wrappers(words)
    if not words or _expanded(words[0]):
        return  # nothing runs, or the program is decided at run time
    name = words[0].word
    if name == "cd":
        yield from _cd(words[1:], guarded)
        return
    if not optional:
        yield _lookup(name, shell)
    if _changes_lookup(name, words[1:]):
        yield STOP
    else:
        yield from _nested_shell(name, words)


def _assigns_path(node: Any) -> bool:
    """True for a command of assignments only that sets a variable of PATH_VARIABLES."""
    assigned = {p.word.split("=", 1)[0] for p in node.parts if p.kind == "assignment"}
    return bool(PATH_VARIABLES & assigned)


def _changes_lookup(name: str, args: list[Any]) -> bool:
    """True when the command makes later lookups unknowable (UNKNOWABLE, `export PATH=...`)."""
    return name in UNKNOWABLE or (name == "export" and any(_sets_path(w.word) for w in args))


def _nested_shell(name: str, words: list[Any]) -> Iterator[str]:
    """`bash -c SCRIPT`: SCRIPT probed in that shell, when the shell exists and SCRIPT is
    known before run time."""
    if Path(name).name not in SHELLS or "-c" not in [w.word for w in words[1:-1]]:
        return
    script = words[[w.word for w in words].index("-c") + 1]
    nested = None if _expanded(script) else probe(script.word, name)
    if nested:
        shell_word = shlex.quote(name)
        found = f"command -v {shell_word} >/dev/null 2>&1"
        yield f"{found} && {shell_word} -c {shlex.quote(nested)}"


def _past_wrappers(words: list[Any]) -> list[Any]:
    """The words from the program a wrapper runs on (`timeout 60 pytest` -> `pytest ...`);
    none for `command -v X`, which asks about X without running it."""
    while words and words[0].word in WRAPPERS:
        if words[0].word == "command" and len(words) > 1 and words[1].word in ("-v", "-V"):
            return []
        words = _past_wrapper_arguments(words[1:])
    return words


def _past_wrapper_arguments(words: list[Any]) -> list[Any]:
    """The words after a wrapper's options, durations (`60`, `5m`) and assignments
    (`env FOO=1 pytest`)."""
    while words and (words[0].word.startswith("-") or words[0].word.rstrip("smhd").isdigit()):
        words = words[1:]
    while words and "=" in words[0].word and words[0].word.split("=")[0].isidentifier():
        words = words[1:]
    return words


def _expanded(word: Any) -> bool:
    """True when the word's value is only known when the shell expands it."""
    return bool(getattr(word, "parts", None)) or "$" in word.word or "`" in word.word


def _sets_path(word: str) -> bool:
    return word.split("=", 1)[0] in PATH_VARIABLES


def _cd(args: list[Any], guarded: bool) -> Iterator[str]:
    """Perform `cd`; a target the shell expands (`$X`, `~`, a glob) or `cd -` stops the probe."""
    word = args[0].word if args else ""
    if args and (_expanded(args[0]) or word.startswith("-") or GLOB & set(word)):
        yield STOP
        return
    target = shlex.quote(word) if args else '"$HOME"'
    if guarded:
        yield f"cd -- {target} 2>/dev/null || {STOP}"
        return
    yield (
        f"if ! _fixbot_err=$(cd -- {target} 2>&1); then "
        f"printf 'cd\\t%s\\t%s\\n' {target} \"$_fixbot_err\"; {STOP}; fi; cd -- {target}"
    )


def _lookup(name: str, shell: str) -> str:
    word, where = shlex.quote(name), shlex.quote(shell)
    report = f"printf 'missing\\t%s\\t%s\\n' {where} {word}"
    if "/" in name:  # a path: relative to the folder the `cd`s reached
        return f"{{ [ -f {word} ] && [ -x {word} ]; }} || {report}"
    return f"command -v {word} >/dev/null 2>&1 || {report}"


def ask_shell(
    script: str, cwd: Path, env: Mapping[str, str], identity: Identity | None = None
) -> str | None:
    """Run `script` with `/bin/sh -c` in `cwd`, with `env`, as `identity` (None: as fixbot), and
    return its standard output; None when the shell could not be started there (the folder is
    not the user's to enter: `fixbot.process.sandbox.handed_over` reports that) or took longer than
    `PROBE_TIMEOUT_S` seconds. The one place the preflight runs a command as the commands' user.
    """
    try:
        done = subprocess.run(
            [SHELL, "-c", script],
            cwd=cwd,
            env=dict(env),
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT_S,
            check=False,
            stdin=subprocess.DEVNULL,
            user=None if identity is None else identity.uid,
            group=None if identity is None else identity.gid,
            extra_groups=None if identity is None else [],
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout


def resolve(
    command: str, cwd: Path, env: Mapping[str, str], identity: Identity | None = None
) -> Answer:
    """Ask the shell what `command`'s words resolve to in `cwd`, after its `cd`s, as `identity`.

    An empty `Answer` when everything resolves, or when the command cannot be parsed or the shell
    cannot be started (the check itself will then say what is wrong).
    """
    script = probe(command)
    output = ask_shell(script, cwd, env, identity) if script else None
    missing: list[tuple[str, str]] = []
    failed_cd: tuple[str, str] | None = None
    for line in (output or "").splitlines():
        kind, _, rest = line.partition("\t")
        first, _, second = rest.partition("\t")
        if kind == "missing" and (first, second) not in missing:
            missing.append((first, second))
        elif kind == "cd" and failed_cd is None:
            failed_cd = (first, second.strip())
    return Answer(missing, failed_cd)


def bash_builtin(word: str, env: Mapping[str, str]) -> bool:
    """True when bash (on `env`'s PATH) knows `word` as a builtin or keyword (`source`, `[[`)."""
    try:
        done = subprocess.run(
            [BASH, "-c", 'type -t -- "$1"', "bash", word],
            env={"PATH": env.get("PATH", os.defpath)},
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT_S,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.stdout.strip() in ("builtin", "keyword")
