"""GitHub Actions expressions (`${{ matrix.python }}`, `runner.os == 'Linux'`), evaluated over
what is known without running anything: the matrix values chosen, the `env:` in force, the
runner's OS (Linux). Anything else (secrets, another step's or job's outputs, `github.*`, a
function fixbot does not model) raises `Unknowable` naming it.

The grammar and semantics follow GitHub's reference
(https://docs.github.com/en/actions/reference/workflows-and-actions/expressions): `||` and `&&`
return an operand, `==` compares strings case-insensitively, a missing property is null.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

Value = str | int | float | bool | None

_TOKEN = re.compile(
    r"\s*(?:(?P<str>'(?:[^']|'')*')|(?P<num>-?\d+(?:\.\d+)?)|(?P<op>==|!=|<=|>=|&&|\|\||[!<>().,\[\]*])"
    r"|(?P<name>[A-Za-z_][\w-]*))"
)
_EXPR = re.compile(r"\$\{\{(.*?)\}\}", re.S)


class Unknowable(Exception):
    """An expression whose value depends on something fixbot cannot know here; the message
    names it (`secrets.TOKEN`, `needs.build.outputs.versions`)."""


@dataclass(frozen=True)
class Context:
    """What expressions may read: `matrix` (the chosen combination), `env`, and the runner's OS."""

    matrix: Mapping[str, object] = field(default_factory=dict)
    env: Mapping[str, str] = field(default_factory=dict)
    os: str = "Linux"


def interpolate(text: str, ctx: Context) -> str:
    """`text` with every `${{ ... }}` replaced by its value's string (null is empty, booleans
    `true`/`false`). Raises `Unknowable`."""
    return _EXPR.sub(lambda m: as_text(evaluate(m.group(1), ctx)), text)


def has_expression(text: str) -> bool:
    """True when `text` holds a `${{ ... }}`."""
    return _EXPR.search(text) is not None


def as_text(value: object) -> str:
    """A value as GitHub writes it into a string."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def condition(text: str, ctx: Context) -> bool:
    """An `if:`'s truth (with or without `${{ }}`). Raises `Unknowable`."""
    body = text.strip()
    match = _EXPR.fullmatch(body)
    return _truthy(evaluate(match.group(1) if match else body, ctx))


def evaluate(text: str, ctx: Context) -> object:
    """The value of one expression (the part inside `${{ }}`). Raises `Unknowable`."""
    parser = _Parser(_tokens(text), ctx, text.strip())
    value = parser.either()
    if parser.pos != len(parser.tokens):
        raise Unknowable(f"`{text.strip()}` (not an expression fixbot reads)")
    return value


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text.rstrip()):
        match = _TOKEN.match(text, pos)
        if not match or match.end() == pos:
            raise Unknowable(f"`{text.strip()}` (not an expression fixbot reads)")
        kind = match.lastgroup or ""
        out.append((kind, match.group(kind)))
        pos = match.end()
    return out


def _truthy(value: object) -> bool:
    return value not in (None, False, 0, "", 0.0)


def _equal(left: object, right: object) -> bool:
    if isinstance(left, str) and isinstance(right, str):
        return left.lower() == right.lower()
    return left == right


class _Parser:
    """Recursive descent over the tokens: either -> both -> unary -> compare -> primary."""

    def __init__(self, tokens: list[tuple[str, str]], ctx: Context, text: str) -> None:
        self.tokens, self.ctx, self.text, self.pos = tokens, ctx, text, 0

    def peek(self) -> str:
        return self.tokens[self.pos][1] if self.pos < len(self.tokens) else ""

    def take(self, expected: str | None = None) -> tuple[str, str]:
        if self.pos >= len(self.tokens) or (expected and self.peek() != expected):
            raise Unknowable(f"`{self.text}` (not an expression fixbot reads)")
        self.pos += 1
        return self.tokens[self.pos - 1]

    def either(self) -> object:
        value = self.both()
        while self.peek() == "||":
            self.take()
            other = self.both()
            value = value if _truthy(value) else other
        return value

    def both(self) -> object:
        value = self.unary()
        while self.peek() == "&&":
            self.take()
            other = self.unary()
            value = other if _truthy(value) else value
        return value

    def unary(self) -> object:
        if self.peek() == "!":
            self.take()
            return not _truthy(self.unary())
        return self.compare()

    def compare(self) -> object:
        left = self.primary()
        op = self.peek()
        if op in ("==", "!="):
            self.take()
            same = _equal(left, self.primary())
            return same if op == "==" else not same
        if op in ("<", ">", "<=", ">="):
            self.take()
            return _order(op, left, self.primary(), self.text)
        return left

    def primary(self) -> object:
        kind, word = self.take()
        if kind == "str":
            return word[1:-1].replace("''", "'")
        if kind == "num":
            return float(word) if "." in word else int(word)
        if word == "(":
            value = self.either()
            self.take(")")
            return value
        if kind != "name":
            raise Unknowable(f"`{self.text}` (not an expression fixbot reads)")
        if word in ("true", "false", "null"):
            return {"true": True, "false": False, "null": None}[word]
        if self.peek() == "(":
            return self.call(word)
        return self.reference(word)

    def call(self, name: str) -> object:
        self.take("(")
        args: list[object] = []
        while self.peek() != ")":
            args.append(self.either())
            if self.peek() == ",":
                self.take()
        self.take(")")
        return _function(name, args, self.text)

    def reference(self, head: str) -> object:
        path = [head]
        while self.peek() in (".", "["):
            if self.take()[1] == ".":
                path.append(self.take()[1])
            else:
                path.append(as_text(self.either()))
                self.take("]")
        return _lookup(path, self.ctx)


def _order(op: str, left: object, right: object, text: str) -> bool:
    """`<`, `>`, `<=`, `>=` over numbers (GitHub casts both sides to numbers)."""
    try:
        a, b = float(as_text(left) or 0), float(as_text(right) or 0)
    except ValueError as exc:
        raise Unknowable(f"`{text}` (an ordering of text)") from exc
    return {"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[op]


def _lookup(path: list[str], ctx: Context) -> object:
    head, rest = path[0], path[1:]
    if head == "matrix" and len(rest) == 1:
        return ctx.matrix.get(rest[0])
    if head == "env" and len(rest) == 1:
        return ctx.env.get(rest[0])
    if head == "runner" and rest == ["os"]:
        return ctx.os
    if head == "runner" and rest == ["arch"]:
        return "X64"
    raise Unknowable(f"`{'.'.join(path)}`")


def _function(name: str, args: list[object], text: str) -> object:
    lowered = name.lower()
    if lowered in ("success", "always") and not args:
        return True
    if lowered in ("failure", "cancelled") and not args:
        return False
    if lowered in ("startswith", "endswith", "contains") and len(args) == 2:
        hay, needle = as_text(args[0]).lower(), as_text(args[1]).lower()
        return {
            "startswith": hay.startswith,
            "endswith": hay.endswith,
            "contains": hay.__contains__,
        }[lowered](needle)
    if lowered == "format" and args:
        template = as_text(args[0])
        for index, arg in enumerate(args[1:]):
            template = template.replace("{" + str(index) + "}", as_text(arg))
        return template
    raise Unknowable(f"`{text}` (the function `{name}`)")
