"""Scan what fixbot publishes for secrets before it leaves: pure functions, no I/O.

A fix is code the model wrote and the check ran; whatever the check could see could end up in a
file, a file name or a commit message, and a report or comment quotes logs. Before fixbot pushes a
commit (or posts a patch), the diff is parsed with unidiff (by its hunks' line counts, so an added
line that starts with `++ ` is content, never a `+++` header) and the lines it adds and the names
of the files it touches are searched; every text fixbot publishes (commit messages, pull-request
and issue bodies, comments) is searched the same way (`refuse_if_text_leaking`).

The search looks for the value of every secret fixbot knows in every spelling of
`fixbot.security.encodings` (plain, reversed, hex, URL-encoded, base64 and base32 at every byte
alignment, rot13), for token-shaped strings (`fixbot.security.redact.TOKEN_SHAPES`), for each run
of consecutive one-word lines joined (encoders wrap at 64 or 76 columns: form "... wrapped"), and
for a third of a long secret's value anywhere (form "fragment": a value split over two files or
lines). Any finding refuses (`LeakRefused`). No scan can enumerate every encoding: this is the last
line, the isolation of the commands is the boundary (docs/SECURITY.md).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from unidiff.errors import UnidiffParseError
from unidiff.patch import PatchSet

from fixbot.core.errors import FixbotError
from fixbot.security.encodings import form_name
from fixbot.security.encodings import forms as spellings
from fixbot.security.redact import TOKEN_SHAPES, secret_values

MIN_FORM_LENGTH = 8  # shorter encodings would match by chance
MIN_FRAGMENT = 12  # a fragment of a secret this long does not occur by chance
FRAGMENT_OF = 3  # a value split into up to this many pieces has one piece this share long


class LeakRefused(FixbotError):
    """A diff about to be pushed carries a secret; nothing was pushed. The message names the
    secret and the file, never the value."""


@dataclass(frozen=True)
class Leak:
    """One secret found in a diff: which secret (`name`), in which `form`, in which file."""

    name: str
    form: str
    path: str

    def describe(self) -> str:
        """`GITHUB_TOKEN (base64) in build-info.txt`."""
        return f"{self.name} ({self.form}) in {self.path}"


def forms(value: str) -> dict[str, str]:
    """Every spelling of `value` to search for: form name -> text (at least 8 characters)."""
    return spellings(value, MIN_FORM_LENGTH)


def fragments(value: str) -> list[str]:
    """The windows of `value` that a piece of it split in up to `FRAGMENT_OF` parts must hold:
    every substring of length max(`MIN_FRAGMENT`, ceil(len / FRAGMENT_OF)); none when `value`
    is too short for a fragment to be safe from chance matches."""
    width = max(MIN_FRAGMENT, -(-len(value) // FRAGMENT_OF))
    if len(value) < 2 * MIN_FRAGMENT:
        return []
    return sorted({value[i : i + width] for i in range(len(value) - width + 1)})


@dataclass(frozen=True)
class Text:
    """One text to scan: where it goes (`path`: a file, "file names", "commit messages", ...)
    and its lines."""

    path: str
    lines: list[str]


def diff_texts(diff: str) -> list[Text]:
    """The added lines of each file of a unified `diff`, and the names of the files it touches
    (as one Text "file names"). Parsed with unidiff by the hunks' line counts; a diff unidiff
    cannot parse is scanned whole, line by line (nothing is skipped)."""
    try:
        patch = PatchSet(diff)
    except UnidiffParseError:
        return [Text("the diff", diff.splitlines())]
    texts = [
        Text(f.path, [line.value.rstrip("\r\n") for hunk in f for line in hunk if line.is_added])
        for f in patch
    ]
    names = [name for f in patch for name in (f.source_file, f.target_file, f.path)]
    return [*texts, Text("file names", names)]


def added_lines(diff: str) -> Iterable[tuple[str, str]]:
    """(path, text) of every line a unified diff adds (`+` lines, never a header)."""
    return ((t.path, line) for t in diff_texts(diff) if t.path != "file names" for line in t.lines)


def _runs(text: Text) -> Iterator[str]:
    """Every run of two or more consecutive one-word lines of `text`, joined without line
    breaks and the whitespace around each line (wrapped encodings have no inner spaces)."""
    run: list[str] = []
    for line in [*text.lines, "two words"]:
        word = line.strip()
        if len(word.split()) == 1:
            run.append(word)
            continue
        if len(run) > 1:
            yield "".join(run)
        run = []


def added_runs(diff: str) -> Iterable[tuple[str, str]]:
    """(path, joined text) of every run of two or more consecutive one-word lines `diff` adds
    to one file (see `_runs`)."""
    return ((t.path, joined) for t in diff_texts(diff) for joined in _runs(t))


def scan(diff: str, secrets: Mapping[str, str]) -> list[Leak]:
    """The leaks in the lines `diff` adds and the names of the files it touches (see
    `scan_texts`)."""
    return scan_texts(diff_texts(diff), secrets)


def scan_texts(texts: Iterable[Text], secrets: Mapping[str, str]) -> list[Leak]:
    """The leaks in `texts`: `secrets` maps a name to a value (values shorter than 8 characters
    are skipped); token shapes are found without a value. Each line is searched for every form;
    each run of consecutive one-word lines again joined ("<form> wrapped"); the whole text for a
    fragment of a long value ("fragment"). One Leak per (name, form, path), a name found in a path
    once in the strongest form."""
    searches = [
        (name, form_name(form), text)
        for name, value in secrets.items()
        if len(value) >= MIN_FORM_LENGTH
        for form, text in forms(value).items()
    ]
    pieces = [(name, piece) for name, value in secrets.items() for piece in fragments(value)]
    findings = _Findings(searches, re.compile("|".join(TOKEN_SHAPES)))
    for text in texts:
        findings.examine(text, pieces)
    return list(findings.leaks.values())


@dataclass
class _Findings:
    """The leaks `scan_texts` has found: `searches` are (secret name, form name, text of the
    value in that form), `shapes` the token shapes."""

    searches: list[tuple[str, str, str]]
    shapes: re.Pattern[str]
    leaks: dict[tuple[str, str, str], Leak] = field(default_factory=dict)
    seen: set[tuple[str, str]] = field(default_factory=set)  # (name, path) already found

    def found(self, name: str, label: str, path: str, later: bool) -> None:
        """Record a leak; a `later` (weaker) form only where the name was not found yet."""
        if not (later and (name, path) in self.seen):
            self.leaks.setdefault((name, label, path), Leak(name, label, path))
            self.seen.add((name, path))

    def examine(self, text: Text, pieces: list[tuple[str, str]]) -> None:
        """Search each line of `text`, each run of its one-word lines joined, and the whole
        text for the `pieces` (secret name, fragment of its value)."""
        for line in text.lines:
            self.search(text.path, line, wrapped=False)
        for joined in _runs(text):
            self.search(text.path, joined, wrapped=True)
        whole = "\n".join(text.lines)
        for name, piece in pieces:
            if piece in whole:
                self.found(name, "fragment", text.path, later=True)

    def search(self, path: str, text: str, wrapped: bool) -> None:
        """Search `text` (a line, or a run of one-word lines joined when `wrapped`) of `path`."""
        for name, form, needle in self.searches:
            if needle in text:
                self.found(name, f"{form} wrapped" if wrapped else form, path, wrapped)
        if self.shapes.search(text):
            self.found("a token", "shape", path, wrapped)


def refuse_if_leaking(diff: str, secrets: Mapping[str, str], what: str) -> None:
    """Raise `LeakRefused` naming every leak (never a value) when `diff` carries a secret.

    `what` says what was refused ("push to fix-branch"), for the message.
    """
    leaks = scan(diff, secrets)
    if leaks:
        listed = "; ".join(leak.describe() for leak in leaks[:10])
        raise LeakRefused(
            f"{what} refused: the diff carries a secret ({listed}). The check or the fix wrote "
            "it into the repository; nothing was pushed. Look at the files named, and at what "
            "the check writes"
        )


def refuse_if_text_leaking(texts: Mapping[str, str], secrets: Mapping[str, str], what: str) -> None:
    """Raise `LeakRefused` naming every leak (never a value) when one of `texts` (where it goes
    -> the text: "the pull request's body" -> ...) carries a secret; `what` names the refused
    act ("opening the pull request")."""
    leaks = scan_texts([Text(where, text.splitlines()) for where, text in texts.items()], secrets)
    if leaks:
        listed = "; ".join(leak.describe() for leak in leaks[:10])
        raise LeakRefused(
            f"{what} refused: the text carries a secret ({listed}); nothing was sent. The text "
            "quotes the check's output or the fix: look at what the check prints"
        )


def known_secrets(env: Mapping[str, str], **extra: str) -> dict[str, str]:
    """Name -> value of every secret fixbot knows: the secret-looking variables of `env`
    (`fixbot.security.redact.secret_values`) and `extra` (e.g. `github_token=...`)."""
    values = set(secret_values(env))
    found = {name: value for name, value in env.items() if value in values}
    found.update({name: value for name, value in extra.items() if value})
    return found
