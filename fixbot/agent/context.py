"""The evidence given to the model up front, within a token budget.

Sections, highest priority first: the failure evidence (`fixbot.logs.evidence`: summary lines and
counts of the whole log, the failing tests grouped by file, the distinct failures in full, the
condensed log), snippets around the `file:line`s that recur most across failures, the code most
likely to need the change (`reached`: what the error text names, the coverage spectrum's
ranking, the functions a failing test calls through its imports; where a traceback ends in the
test itself, the only pointer to that code; right after the spectrum's first three, the
functions of their own module their lines the failing run executed call and that it executed
too (`pyrancalls.ran_callees`: a predicate deciding the branch taken; a Go, Rust or JS/TS span's
read by `fixbot.agent.rancalls`), then those a failing test
calls itself, a constructor building the object under test, since every passing test runs
them too and the spectrum ranks them low), the diff since the start sha,
what earlier attempts tried, and (from attempt 2) recent commits touching the failing files.
Each section is cut to its share of the budget, and what they leave unused goes to the code
shown (a formatter check's own diff, `fixbot.agent.formatdiff`, first): a first attempt has no
diff, history or commits yet.
Tokens are estimated as characters / 4 (about right for English and code with OpenAI and
Anthropic tokenizers; `bench/bench_prompt.py` measures with litellm's counter).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from fixbot.agent import (
    jsusers,
    leads,
    literals,
    locate,
    paths,
    pyrancalls,
    rancalls,
    rustcalls,
    shapes,
    spantext,
    tables,
    testsof,
    visitors,
)
from fixbot.agent.editblocks import EditError
from fixbot.agent.tools import Toolbox, read_text
from fixbot.core.failure import Location
from fixbot.core.models import Attempt, FixContext
from fixbot.logs import evidence
from fixbot.process import git

DEFAULT_BUDGET_TOKENS = 6_000
SNIPPET_RADIUS = 6
MAX_SNIPPET_FILES = 8
MAX_SNIPPET_LINES = 4  # lines per file shown, the most recurrent first (locations are ranked)
WHOLE_LINES = 2 * locate.MAX_SPAN_LINES  # the most suspicious function is shown whole up to this
SUSPECTS_BEFORE_CALLEES = 3  # the spectrum's functions shown before the tests' direct callees
DIRECT_CALLEES = 3  # the failing tests' own callees shown in that second tier, at most
DIRECT_LINES = 40  # lines each of them shows at most
GLOBALS_OF = 3  # the best-ranked functions whose module-level data is shown right after them
# (and the spectrum's, each of its functions)
SHARES = {
    "log": 0.4,
    "snippets": 0.2,
    "reached": 0.15,  # at least: with what the other sections leave unused
    "diff": 0.1,
    "history": 0.1,
    "commits": 0.05,
}


def estimate_tokens(text: str) -> int:
    """Rough token count: one token per four characters."""
    return len(text) // 4 + 1


def cut(text: str, tokens: int) -> str:
    """`text` within `tokens`, keeping the head and the tail (errors show at both ends)."""
    limit = tokens * 4
    if len(text) <= limit:
        return text
    half = max(0, limit // 2 - 40)
    return text[:half] + f"\n[... {len(text) - 2 * half} characters cut ...]\n" + text[-half:]


@dataclass(frozen=True)
class Evidence:
    """The rendered sections of the first prompt (each already within its budget)."""

    log: str
    signature: str
    counts: str
    snippets: str
    formatter: str
    reached: str
    diff: str
    history: str
    commits: str


def _merge(locations: list[Location], repo: Path, state_dir: str) -> dict[str, list[int]]:
    """Lines by file for the snippets: only files the model could read with its own tools
    (inside the repository, not private, not secret, not git-ignored)."""
    box = Toolbox(repo, state_dir=state_dir)
    by_file: dict[str, list[int]] = {}
    for loc in locations:
        try:
            target = paths.resolve(repo, relative_to_repo(loc.path, repo), state_dir=state_dir)
        except paths.PathRefused:
            continue
        if target.is_file() and box.ignored(target):
            continue
        lines = by_file.setdefault(paths.relative(repo, target), []) if target.is_file() else None
        if lines is not None and len(lines) < MAX_SNIPPET_LINES:
            lines.append(loc.line)
    return dict(list(by_file.items())[:MAX_SNIPPET_FILES])


def relative_to_repo(path: str, repo: Path) -> str:
    """`path` relative to `repo`: an absolute path inside it made relative; a relative one that
    names no file of the root but ends exactly one tracked file's path (`in_subfolder`) that
    file's; else `path` unchanged."""
    pure = Path(path)
    if pure.is_absolute():
        if pure.is_relative_to(repo.resolve()):
            return pure.relative_to(repo.resolve()).as_posix()
        return path
    if (repo / path).exists():
        return path
    return in_subfolder(path, repo) or path


SAFE_RELATIVE = re.compile(r"^[A-Za-z0-9_.@+-]+(/[A-Za-z0-9_.@+-]+)*$")


def in_subfolder(path: str, repo: Path) -> str | None:
    """The one file git tracks in `repo` whose path is `<folder>/path`, or None (none, several,
    or a `path` that is not a plain relative one).

    A check that runs in a package's folder of a monorepo (`cd packages/x && pytest`,
    `npm test --prefix packages/x`) prints paths relative to that folder; the repository's own
    listing says which folder, whatever command got there."""
    if not SAFE_RELATIVE.match(path) or {".", ".."} & set(path.split("/")):
        return None
    done = git.completed(repo, "ls-files", "-z", "--", f":(glob)**/{path}")
    if done.returncode != 0:
        return None
    found = [name for name in done.stdout.split("\0") if name.endswith(f"/{path}")]
    return found[0] if len(found) == 1 else None


def _windows(lines: list[int], total: int) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    for line in sorted(set(lines)):
        lo, hi = max(1, line - SNIPPET_RADIUS), min(total, line + SNIPPET_RADIUS)
        if spans and lo <= spans[-1][1] + 1:
            spans[-1] = (spans[-1][0], max(hi, spans[-1][1]))
        else:
            spans.append((lo, hi))
    return spans


def snippet(repo: Path, rel: str, lines: list[int]) -> str:
    """Numbered lines around each of `lines` in `rel` (merged windows), '' when unreadable."""
    try:
        content = read_text(repo / rel) or ""
    except EditError:
        return ""
    text = content.splitlines()
    parts = []
    for lo, hi in _windows(lines, len(text)):
        body = "\n".join(f"{n:>5}| {text[n - 1]}" for n in range(lo, hi + 1))
        parts.append(f"--- {rel} lines {lo}-{hi}\n{body}")
    return "\n".join(parts)


def snippets(repo: Path, locations: list[Location], state_dir: str) -> str:
    """Snippets around every `file:line` inside the repository that the model may read."""
    merged = _merge(locations, repo, state_dir)
    found = (snippet(repo, rel, lines) for rel, lines in merged.items())
    return "\n".join(s for s in found if s)


def reached(ctx: FixContext, chars: int, suspects: Sequence[locate.Span] = ()) -> str:
    """The numbered source of the code most likely to need the change, best first, within
    `chars` characters: what the error text names (`fixbot.agent.leads`: the other imports of a
    removed name, where a missing attribute is set), `suspects` (the coverage spectrum's
    ranking, `fixbot.agent.spectrum`), then the functions the failing tests call
    (`fixbot.agent.locate`, in a crate `fixbot.agent.rustcalls`), then the rows of a failing
    parametrized test's case in the tests beside it and the passing tests named after any of
    those (`fixbot.agent.testsof`), then the source lines holding a message the output quotes
    (`fixbot.agent.literals`), then the TypeScript declarations a key the failing diff expects
    joins (`fixbot.agent.shapes`); only files the model could read with its own tools."""
    failure = ctx.failure
    if failure is None:
        return ""
    located = [(relative_to_repo(loc.path, ctx.repo), loc.line) for loc in failure.locations]
    called = locate.spans(ctx.repo, list(failure.failing_tests), located)
    if (ctx.repo / "Cargo.toml").is_file():  # a crate: its tests are Rust, not Python
        called += rustcalls.spans(ctx.repo, list(failure.failing_tests))
    text = "\n".join([failure.condensed, *(g.text for g in failure.groups)])
    best = [replace(s, limit=WHOLE_LINES) for s in suspects[:1]]
    ahead = suspects[1:SUSPECTS_BEFORE_CALLEES]
    ran_callees = _ran_callees(ctx.repo, suspects)
    ranked = [*leads.spans(ctx.repo, text), *best, *ahead, *ran_callees]
    # The visitor methods of the node classes those functions built, which a run stopped before
    # the walk never reaches (`fixbot.agent.visitors`: a parser's node, a compiler's visit_).
    builders = [*_deciding(ctx.repo, suspects)[:SUSPECTS_BEFORE_CALLEES], *ran_callees]
    ranked += visitors.spans(ctx.repo, builders, locate.executed(suspects))
    ranked += _direct(called, suspects)
    ranked += [*suspects[SUSPECTS_BEFORE_CALLEES:], *called]
    # Last, what budget is left: the rows of the failing test's own case in the tests beside
    # it, then the passing tests named after those functions, whose expected values a fix
    # changing what they return must update too (`fixbot.agent.testsof`).
    failing = [_in_repo(test, ctx.repo) for test in failure.failing_tests]
    ranked += testsof.same_case(ctx.repo, failing)
    ranked += testsof.spans(ctx.repo, ranked, failure.failing_tests)
    # A fix often changes a table a function reads, whose lines run under no test: the data
    # of the best-ranked functions and of every function the spectrum ranked follow them, their
    # own module's, their class's and the modules' they import it from (`fixbot.agent.tables`).
    readers = {*ranked[:GLOBALS_OF], *best, *suspects}
    spans = []
    for span in ranked:
        spans += [span, *(tables.read_by(ctx.repo, span) if span in readers else ())]
    # Last, where the best-ranked functions' module bindings are read elsewhere: a fix of how
    # a module's export is used is made at each place reading it so (`fixbot.agent.jsusers`).
    spans += jsusers.users(ctx.repo, list(filter(readers.__contains__, ranked)))
    # Last, with what budget is left, the source lines holding a message the failing output
    # quotes (a snapshot's received text, an error's message: `fixbot.agent.literals`); a
    # phrase on too many lines narrowed to the lines the spectrum's failing run executed, else
    # to the files the spans above and the output name.
    shown = {span.path for span in spans} | {path for path, _ in located}
    spans += literals.spans(ctx.repo, text, reached=shown, executed=locate.executed(suspects))
    # Last, the TypeScript interface a key the failing diff expects joins, which no run
    # executes (`fixbot.agent.shapes`: zod's issue type gaining `options`).
    spans += shapes.spans(ctx.repo, text)
    return spantext.render(ctx.repo, _readable(ctx, spans), chars)


def _in_repo(test: str, repo: Path) -> str:
    """A failing test's id (`path::name`) with its path made repository-relative
    (`relative_to_repo`); an id with no path unchanged."""
    path, sep, rest = test.partition("::")
    return f"{relative_to_repo(path, repo)}{sep}{rest}" if sep else test


def _ran_callees(repo: Path, suspects: Sequence[locate.Span]) -> list[locate.Span]:
    """The functions the spectrum's first `SUSPECTS_BEFORE_CALLEES` call on their lines the
    failing run executed, that it executed too and ranks nowhere (`pyrancalls.ran_callees`): the
    small predicate an executed branch's condition called, which every test runs. A suspect
    whose `except` body the run executed (`pyrancalls.caught_there`: Jinja's `compile` handing the
    parser's error on) is passed over for the next: its callees are the handling."""
    ran, ranked = locate.executed(suspects), {(s.path, s.start) for s in suspects}
    found = []
    for span in _deciding(repo, suspects)[:SUSPECTS_BEFORE_CALLEES]:
        reader = pyrancalls.ran_callees if span.path.endswith(".py") else rancalls.ran_callees
        found += [c for c in reader(repo, span, ran) if (c.path, c.start) not in ranked]
    return found


def _deciding(repo: Path, suspects: Sequence[locate.Span]) -> list[locate.Span]:
    """The spectrum's functions in its order, those whose `except` body the failing run
    executed left out (`pyrancalls.caught_there`: what they called was the handling)."""
    ran = locate.executed(suspects)
    return [s for s in suspects if not pyrancalls.caught_there(repo, s, ran)]


def _direct(called: list[locate.Span], suspects: Sequence[locate.Span]) -> list[locate.Span]:
    """The second tier after the spectrum's first functions: what the failing tests call
    themselves (`locate.spans`' score 1.0 and up: a constructor building the object under test),
    at most `DIRECT_CALLEES`, each cut to `DIRECT_LINES`. The spectrum ranks such a function
    low when the passing tests run it too (`Map.__init__` builds every test's map), though
    it may set the state the failing path reads; a crate's from `rustcalls` alike (its tests'
    direct calls score 1.0 too); without a spectrum `called` follows the leads anyway."""
    if not suspects:
        return []
    ranked = {(s.path, s.start) for s in suspects}
    first = [s for s in called if s.score >= 1.0 and (s.path, s.start) not in ranked]
    return [replace(s, limit=DIRECT_LINES) for s in first[:DIRECT_CALLEES]]


def _readable(ctx: FixContext, spans: list[locate.Span]) -> list[locate.Span]:
    """The spans in files the model could read with its own tools (inside the repository, not
    fixbot's state, not ignored)."""
    box = Toolbox(ctx.repo, state_dir=ctx.state_dir)
    readable = []
    for span in spans:
        try:
            target = paths.resolve(ctx.repo, span.path, state_dir=ctx.state_dir)
        except paths.PathRefused:
            continue
        if target.is_file() and not box.ignored(target):
            readable.append(span)
    return readable


def history_text(history: list[Attempt]) -> str:
    """What each earlier fix attempt tried and how it ended, one paragraph per attempt."""
    rows = []
    for a in history:
        if a.number < 1:
            continue
        result = "check passed" if a.passed else f"check still failing (exit {a.exit_code})"
        if a.fix_error:
            result = f"fixer error: {a.fix_error}"
        files = ", ".join(a.files_changed) or "no files changed"
        refused = f"; refused edits: {'; '.join(a.refused)}" if a.refused else ""
        rows.append(
            f"Attempt {a.number} ({a.phase}): {a.summary or 'no summary'} [{files}] -> {result}"
            f"{'; hypothesis: ' + a.hypothesis if a.hypothesis else ''}{refused}"
        )
    return "\n".join(rows)


def recent_commits(repo: Path, files: list[str], count: int = 5) -> str:
    """`git log` one-liners of the last commits touching `files` (empty when git fails)."""
    if not files:
        return ""
    try:
        return git.run(
            repo, "log", f"-n{count}", "--format=%h %ad %s", "--date=short", "--", *files
        )
    except git.GitError:
        return ""


def gather(
    ctx: FixContext,
    budget: int = DEFAULT_BUDGET_TOKENS,
    suspects: Sequence[locate.Span] = (),
    formatter: str = "",
) -> Evidence:
    """Collect and cut every section of the evidence for `ctx` within `budget` tokens;
    `suspects` are the functions a coverage spectrum ranked first (shown before those the
    failing tests call), `formatter` the diff a formatter check would apply
    (`fixbot.agent.formatdiff`); both take what the other sections leave of the budget."""
    failure = ctx.failure
    log_chars = int(budget * SHARES["log"]) * 4
    log = evidence.render(failure, log_chars) if failure else ""
    locations = failure.locations if failure else []
    snips = snippets(ctx.repo, locations, ctx.state_dir)
    diff = git.diff_since(ctx.repo, ctx.start_sha) if ctx.start_sha else ""
    files = sorted({loc.path for loc in locations})
    commits = recent_commits(ctx.repo, files) if ctx.attempt >= 2 else ""
    counts = failure.counts.model_dump_json(exclude_none=True) if failure else "{}"
    shown = {
        "log": cut(log, int(budget * SHARES["log"])),
        "snippets": cut(snips, int(budget * SHARES["snippets"])),
        "diff": cut(diff, int(budget * SHARES["diff"])),
        "history": cut(history_text(ctx.history), int(budget * SHARES["history"])),
        "commits": cut(commits, int(budget * SHARES["commits"])),
    }
    # What the other sections leave of the budget goes to the code most likely to need the
    # change: on a first attempt there is no diff, history or commit yet.
    spare = budget * 4 - sum(len(text) for text in shown.values())
    chars = max(int(budget * SHARES["reached"]) * 4, spare)
    formatted = cut(formatter, chars // 4) if formatter else ""
    chars -= len(formatted)
    return Evidence(
        formatter=formatted,
        signature=failure.signature[:16] if failure else "",
        counts=counts,
        reached=reached(ctx, chars, suspects),
        **shown,
    )
