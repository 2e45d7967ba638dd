"""The source lines holding a message the failing output quotes.

A failing check's output often quotes text the code under test produced: a snapshot's diff
(`"note": "No matching discriminator"`, `"message": "Invalid input"` in zod's), an assertion's
received value, an error's message. That text is a string literal of the repository's code
(`core/schemas.ts`, `locales/en.ts`) at the place that makes it, which no coverage spectrum
ranks above the small functions every test runs. `spans` takes the phrases of a few words the
output quotes (`phrases`: quoted text of at least `MIN_WORDS` words, and the words of an
error's message before the first value it quotes) and gives the lines of the repository's
source files that hold one inside a string literal, in any ecosystem: test files, generated
and installed folders left out, and a JavaScript file committed beside the TypeScript source
it is compiled from (`built`: zod's `v4/core/schemas.cjs` and `.js` beside
`src/v4/core/schemas.ts`, whose copies of a literal would fill the spans the source's own
line needs), each file read through `core.repofiles` (bounded), at most `MAX_SPANS` spans.
A phrase found on more than `MAX_HOLDERS` lines names no one place: it is narrowed to its lines
the failing run executed (`executed`, every spectrum's: a Python file's lines a failing test
ran, `tracerank.executed`; a Go file's lines in a block of the failing run's profile,
`gocov.executed`; a crate's lines a failing test run alone reached, `rustcov.executed`; a node
script's lines whose innermost block ran, `nodelines.ran_lines`: zod's `case "invalid_union":
return "Invalid input"` in `src/v4/locales/en.ts`, not its `default`'s, the old API's
`src/v3/locales/en.ts`, a `throw` not reached or a doc comment), kept when that leaves 1 to
`MAX_HOLDERS` lines; else to its lines in the files the failing run reached (`reached`: the
files of the spans the first request already ranks, the spectrum's, the failing tests' callees',
and the files the output names), kept when that leaves 1 to `MAX_HOLDERS` lines, else left out.
Pure reading of text: nothing is parsed or run.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from pathlib import Path

from fixbot.agent.locate import Span
from fixbot.core.repofiles import regular_text
from fixbot.ecosystems import registry
from fixbot.process import git

MIN_WORDS = 2  # a quoted phrase of fewer words ("string", "note") names no place
MIN_CHARS = 8  # nor one shorter than this many characters
MAX_CHARS = 120  # a quoted text longer than this is cut to its first words
MAX_PHRASES = 12  # phrases looked for, in the order the output quotes them
MAX_HOLDERS = 6  # a phrase on more source lines than this is narrowed to the reached files
MAX_SPANS = 4  # spans shown at most, in the order of the phrases
RADIUS = 4  # lines shown either side of a line holding a phrase
MAX_SCANNED = 3000  # source files read at most, in git's order
MAX_FILE_BYTES = 256_000  # a source file larger than this is not read (a bundle, a table)
SOURCES = (
    *(".py", ".pyi", ".js", ".cjs", ".mjs", ".ts", ".mts", ".cts", ".jsx", ".tsx"),
    *(".go", ".rs", ".rb", ".php", ".java", ".kt", ".c", ".h", ".cc", ".cpp", ".cs"),
)
TYPESCRIPT = (".ts", ".tsx", ".mts", ".cts")  # a source tsc compiles to JavaScript
DECLARATIONS = (".d.ts", ".d.mts", ".d.cts")  # what it declares its types in
COMPILED = (".js", ".cjs", ".mjs", ".jsx")  # what it compiles to
# a quoted run of text: "...", '...' or `...` on one line, no quote of its kind inside
QUOTED = re.compile(r""""([^"\n\\]{8,400})"|'([^'\n\\]{8,400})'|`([^`\n\\]{8,400})`""")
# an error's message: `ValueError: message`, `Error: message`, `error[E0308]: message`
MESSAGE = re.compile(r"(?:\b\w*(?:Error|Exception)|\berror(?:\[\w+\])?):\s+(.{8,400})$", re.M)
WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
# where a message's literal part ends: a quote, a digit, a bracket, a colon, an `=`
VALUE = re.compile(r"""["'`\d(\[{<:=]""")


def _phrase(text: str) -> str | None:
    """`text` as a phrase to look for, its ends stripped and cut to `MAX_CHARS` at a word's
    end, or None when it is shorter than `MIN_CHARS` or has fewer than `MIN_WORDS` words."""
    text = text.strip(" .,;")
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS].rsplit(" ", 1)[0]
    if len(text) < MIN_CHARS or len(WORD.findall(text)) < MIN_WORDS or " " not in text:
        return None
    return text


def phrases(output: str) -> list[str]:
    """The phrases `output` quotes, in order, each once, at most `MAX_PHRASES`: each quoted
    text of a few words (`_phrase`), and what precedes the first value of each error message
    (`Unknown option: 'x'` gives `Unknown option`), the part of it a literal holds."""
    quoted = [match[1] or match[2] or match[3] for match in QUOTED.finditer(output)]
    found = [_phrase(part) for text in quoted for part in (text, _head(text))]
    found += [_phrase(_head(match[1])) for match in MESSAGE.finditer(output)]
    return [p for p in dict.fromkeys(found) if p][:MAX_PHRASES]


def _head(text: str) -> str:
    """`text` up to its first value (`VALUE`): a quote, a digit, a bracket, a colon."""
    return VALUE.split(text, maxsplit=1)[0]


def _sources(repo: Path) -> list[str]:
    """The source files git tracks in `repo`: no test file of any ecosystem, nothing under an
    installed or generated folder, at most `MAX_SCANNED`, in git's order."""
    done = git.completed(repo, "ls-files", "-z")
    if done.returncode != 0:
        return []
    skipped = registry.generated()
    names = [n for n in done.stdout.split("\0") if n.endswith(SOURCES)]
    twins = built(names)
    kept = [
        n
        for n in names
        if not registry.is_test_file(n)
        and not skipped.intersection(n.split("/")[:-1])
        and n not in twins
    ]
    return kept[:MAX_SCANNED]


def typescript(repo: Path) -> list[str]:
    """The TypeScript files (`TYPESCRIPT`) of `_sources`, a declaration file (`x.d.ts`) left
    out when it is the build of one of them (`built`: zod's `v4/core/errors.d.ts` of
    `src/v4/core/errors.ts`); a hand-written one kept."""
    names = [name for name in _sources(repo) if name.endswith(TYPESCRIPT)]
    sources = {key for n in names if not n.endswith(DECLARATIONS) for key in _keys(n)}
    return [
        n
        for n in names
        if not n.endswith(DECLARATIONS) or sources.isdisjoint(_keys(_undeclared(n)))
    ]


def _undeclared(path: str) -> str:
    """A declaration file's path as its source's (`a/x.d.ts` -> `a/x.ts`)."""
    for suffix in DECLARATIONS:
        if path.endswith(suffix):
            return path.removesuffix(suffix) + ".ts"
    return path


def _keys(path: str) -> set[str]:
    """`path` with its suffix dropped, as itself and without its first folder (`src/a/b.ts`
    gives `src/a/b` and `a/b`; a file at the root only itself)."""
    stem = path.rsplit(".", 1)[0]
    _, slash, below = stem.partition("/")
    return {stem, below} if slash else {stem}


def built(names: list[str]) -> set[str]:
    """The JavaScript files of `names` (`COMPILED`) that are the build of a TypeScript file of
    `names` (`TYPESCRIPT`, declaration files not counted): the same path with its suffix
    dropped, once at most the first folder of either is dropped too, as tsc's `outDir` and
    `rootDir` map them: `x.js` beside `x.ts`, zod's `v4/core/schemas.cjs` of
    `src/v4/core/schemas.ts` (`rootDir` `src`), `lib/a.js` of `src/a.ts`. A root file
    (`index.js`) has no folder to drop: it is the build of a root `index.ts` or of
    `<folder>/index.ts`, not of a deeper file of the same name."""
    sources = {
        key
        for name in names
        if name.endswith(TYPESCRIPT) and not name.endswith(DECLARATIONS)
        for key in _keys(name)
    }
    return {n for n in names if n.endswith(COMPILED) and not sources.isdisjoint(_keys(n))}


def _in_literal(line: str, phrase: str) -> bool:
    """True when `phrase` lies inside a string literal of `line`: an opening quote before it
    on the line with no quote of the same kind between them."""
    at = line.find(phrase)
    while at >= 0:
        before = line[:at]
        if any(before.count(q) % 2 == 1 for q in "\"'`"):
            return True
        at = line.find(phrase, at + 1)
    return False


def holders(
    repo: Path, wanted: list[str], reached: Collection[str] = ()
) -> dict[str, list[tuple[str, int]]]:
    """Phrase -> the (file, 1-based line) of the source files (`_sources`) holding it inside
    a string literal (`_in_literal`), in git's order, at most `MAX_HOLDERS + 1` each besides
    those of the files `reached` (repository-relative paths), which are all kept."""
    found: dict[str, list[tuple[str, int]]] = {p: [] for p in wanted}
    if not wanted:
        return found
    for rel in _sources(repo):
        text = regular_text(repo, repo / rel, MAX_FILE_BYTES)
        if not text or not any(p in text for p in wanted):
            continue
        every = rel in reached
        for number, line in enumerate(text.splitlines(), 1):
            _hold(found, rel, number, line, every)
    return found


def _hold(
    found: dict[str, list[tuple[str, int]]], rel: str, number: int, line: str, every: bool
) -> None:
    """Add (`rel`, `number`) to the places of each phrase of `found` that `line` holds inside
    a string literal, while it has at most `MAX_HOLDERS`, or always when `every`."""
    for phrase, places in found.items():
        if (every or len(places) <= MAX_HOLDERS) and phrase in line and _in_literal(line, phrase):
            places.append((rel, number))


def narrowed(
    places: list[tuple[str, int]],
    reached: Collection[str],
    executed: Mapping[str, Collection[int]] | None = None,
) -> list[tuple[str, int]]:
    """`places` as they are when at most `MAX_HOLDERS`; else those on a line the failing run
    `executed` (path -> lines, the spectrum's) when that leaves 1 to `MAX_HOLDERS`; else those
    in the files `reached` when that leaves at most `MAX_HOLDERS`, else none (a phrase of too
    many places names none)."""
    if len(places) <= MAX_HOLDERS:
        return places
    ran = [place for place in places if place[1] in (executed or {}).get(place[0], ())]
    if 1 <= len(ran) <= MAX_HOLDERS:
        return ran
    kept = [place for place in places if place[0] in reached]
    return kept if len(kept) <= MAX_HOLDERS else []


def spans(
    repo: Path,
    output: str,
    score: float = 0.0,
    reached: Collection[str] = (),
    executed: Mapping[str, Collection[int]] | None = None,
) -> list[Span]:
    """The lines of the repository's source files holding a phrase `output` quotes (see the
    module's docstring), each with `RADIUS` lines either side, named after the phrase and
    scored `score`, at most `MAX_SPANS`; a phrase on more than `MAX_HOLDERS` lines narrowed
    to those the failing run `executed` (path -> lines), else to those of the files `reached`
    (repository-relative paths, `narrowed`), or left out."""
    executed = executed or {}
    reached = frozenset(reached)
    found: list[Span] = []
    for phrase, places in holders(repo, phrases(output), reached | set(executed)).items():
        for rel, line in narrowed(places, reached, executed):
            span = Span(
                rel, max(1, line - RADIUS), line + RADIUS, f'holds "{phrase}"', score, (line,)
            )
            if all((s.path, s.start) != (span.path, span.start) for s in found):
                found.append(span)
    return found[:MAX_SPANS]
