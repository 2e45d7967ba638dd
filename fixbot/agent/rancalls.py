"""The functions a ranked Go, Rust or JavaScript/TypeScript function's executed lines call, that
the failing run executed too: `fixbot.agent.pyrancalls.ran_callees`' reading for the ecosystems
whose source `ast` cannot parse (a Python span is `pyrancalls`').

Pure reading of the span's own file (a Go span's whole package: the non-test `.go` files of its
folder), with no parser: a function is what the ecosystem's own readers find (`gocov.functions`,
gofmt'd top-level `func`s; `rustcalls.functions`, every `fn` with a body), or in a JS/TS file a
`function name(`, a `const name = (...) =>` or `= function`, or a method `name(...) {` line and
the braces it opens; a call is a word followed by `(` on a line the run executed (strings and
comments of the line left out), bare, after `.` or after `::`. A call resolves by name to a
function of that file (package) whose own body lines the run executed, which is what keeps a
name shared by an unrun method out.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from fixbot.agent import gocov, rustcalls
from fixbot.agent.locate import Span
from fixbot.agent.pyrancalls import RAN_CALLEE_FOCUS, RAN_CALLEE_LINES, RAN_CALLEES
from fixbot.core.repofiles import regular_text

JS_SUFFIXES = (".js", ".cjs", ".mjs", ".ts", ".cts", ".mts", ".jsx", ".tsx")
JS_MAX_LINES = 2_000  # a JS/TS function's braces matched over at most so many lines
GO_PACKAGE_FILES = 50  # a Go package's files read at most for its functions
# a word called: `f(`, `x.f(`, `Self::f(`, `f::<T>(`, `f<T>(` (TypeScript's and Go's type arguments)
CALL = re.compile(r"(?<![\w$])([A-Za-z_$][\w$]*)\s*(?:(?:::)?<[^<>()]*>)?\s*\(")
NOT_CALLS = frozenset(
    [
        "if",
        "for",
        "while",
        "switch",
        "catch",
        "return",
        "function",
        "func",
        "fn",
        "match",
        "loop",
        "in",
        "as",
        "typeof",
        "new",
        "await",
        "yield",
        "super",
        "import",
        "require",
        "defer",
        "go",
    ]
)
# a line's strings and comments, blanked before its calls are read
QUOTED = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|`[^`]*`|//.*|/\*.*?\*/')
JS_DEF = re.compile(
    r"^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)"
    r"|^\s*(?:export\s+)?(?:(?:const|let|var)\s+|[\w$]+(?:\.[\w$]+)*\.)([A-Za-z_$][\w$]*)\s*"
    r"(?::[^=]+)?=\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*(?::[^=]+)?=>|[A-Za-z_$][\w$]*\s*=>)"
    r"|^\s*([A-Za-z_$][\w$]*)\s*:\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*=>)"
    r"|^\s*(?:(?:public|private|protected|static|async|get|set|override|readonly)\s+)*"
    r"\*?\s*([A-Za-z_$][\w$]*)\s*(?:<[^>]*>)?\s*\([^;]*\)\s*(?::\s*[^{;=]+)?\{\s*$"
)
JS_NOT_METHODS = frozenset(
    ["if", "for", "while", "switch", "catch", "function", "return", "else", "with", "do"]
)

# a function: (name, first line, last line)
Function = tuple[str, int, int]


def ran_callees(repo: Path, span: Span, ran: dict[str, frozenset[int]]) -> list[Span]:
    """The functions of `span`'s own file (a Go span's: its package's) that a line of `span`
    the failing run executed calls by name and whose own lines after their first the run
    executed too (`ran`: path -> lines, `Ranked.executed`), in the order of their calls, each
    focused on its executed lines and shown at most `RAN_CALLEE_LINES` lines; at most
    `RAN_CALLEES`, `span`'s own function left out; [] for a file of no such ecosystem or
    none of its lines executed."""
    lines = ran.get(span.path, frozenset())
    text = regular_text(repo, repo / span.path) if lines else None
    if text is None:
        return []
    called = _called_on(text.splitlines(), span, lines)
    defined = _defined(repo, span.path, text, frozenset(called))
    found: list[Span] = []
    for name in called:
        for path, start, end in defined.get(name, []):
            found += _ran_span(path, name, start, end, span, ran.get(path, frozenset()))
    return list(dict.fromkeys(found))[:RAN_CALLEES]


def _defined(
    repo: Path, rel: str, text: str, called: frozenset[str]
) -> dict[str, list[tuple[str, int, int]]]:
    """Name -> (path, first line, last line) of each function of `rel`'s file (package) named
    among `called`."""
    found: dict[str, list[tuple[str, int, int]]] = {}
    for path, name, start, end in _functions(repo, rel, text, called):
        found.setdefault(name, []).append((path, start, end))
    return found


def _functions(
    repo: Path, rel: str, text: str, called: frozenset[str]
) -> list[tuple[str, str, int, int]]:
    """(path, name, first line, last line) of the functions of `rel`'s file or Go package."""
    if rel.endswith(".rs"):
        return [(rel, n, a, b) for n, a, b, test in rustcalls.functions(repo, rel) if not test]
    if rel.endswith(JS_SUFFIXES):
        return [(rel, n, a, b) for n, a, b in js_functions(text, called)]
    if not rel.endswith(".go"):
        return []
    return [
        (path, n, a, b) for path in _package(repo, rel) for a, b, n in gocov.functions(repo, path)
    ]


def _package(repo: Path, rel: str) -> list[str]:
    """The non-test `.go` files of `rel`'s folder (`rel` first), at most `GO_PACKAGE_FILES`."""
    folder = PurePosixPath(rel).parent
    try:
        names = sorted(p.name for p in (repo / folder).iterdir() if p.name.endswith(".go"))
    except OSError:
        names = []
    others = [(folder / n).as_posix() for n in names if not n.endswith("_test.go")]
    return [rel, *(p for p in others if p != rel)][:GO_PACKAGE_FILES]


def js_functions(text: str, names: frozenset[str] | None = None) -> list[Function]:
    """(name, first line, last line) of each function of a JS/TS file's text: a line defining
    one (`JS_DEF`) and, when it holds a `{`, the line of the `}` closing its last one (strings,
    template literals and comments skipped); a definition with no brace on its line (an arrow
    returning an expression) is its line alone, one whose braces do not close within
    `JS_MAX_LINES` its first that many; only those named among `names` when given."""
    found = []
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        match = JS_DEF.match(line)
        name = match and next(g for g in match.groups() if g)
        if not name or name in JS_NOT_METHODS or (names is not None and name not in names):
            continue
        opening = _blank(line).rfind("{")
        end = _closing(lines, number, opening) if opening >= 0 else number
        found.append((name, number, end))
    return found


def _blank(line: str) -> str:
    """`line` with its strings and comments replaced by spaces (same length)."""
    return QUOTED.sub(lambda m: " " * len(m.group()), line)


def _closing(lines: list[str], number: int, opening: int) -> int:
    """The line of the `}` closing the `{` at column `opening` of line `number` (1-based), the
    last line when unbalanced (at most `JS_MAX_LINES` on); each line's strings and comments
    left out."""
    depth = 0
    for k in range(number - 1, min(len(lines), number - 1 + JS_MAX_LINES)):
        code = _blank(lines[k])[opening if k == number - 1 else 0 :]
        for ch in code:
            depth += {"{": 1, "}": -1}.get(ch, 0)
            if depth == 0:
                return k + 1
    return min(len(lines), number - 1 + JS_MAX_LINES)


def _called_on(source: list[str], span: Span, lines: frozenset[int]) -> list[str]:
    """The words called on the lines among `lines` inside `span` (its first, the definition's,
    left out), in the order written."""
    names = []
    for number in sorted(n for n in lines if span.start < n <= min(span.end, len(source))):
        names += [m[1] for m in CALL.finditer(_blank(source[number - 1]))]
    return list(dict.fromkeys(n for n in names if n not in NOT_CALLS))


def _ran_span(
    path: str, name: str, start: int, end: int, span: Span, lines: frozenset[int]
) -> list[Span]:
    """The function `name` at `path`'s `start`..`end` as a span focused on its lines among
    `lines`, [] when none after its first ran or when it is `span`'s own function or one
    nested in it (a Rust `fn` inside the suspect's: the request shows it already)."""
    inside = sorted(n for n in lines if start < n <= end)
    if not inside or (path == span.path and span.start <= start and end <= span.end):
        return []
    focus = tuple(inside[:RAN_CALLEE_FOCUS])
    return [Span(path, start, end, name, 0.0, focus, RAN_CALLEE_LINES)]
