"""Scan a diff for secrets before anything is pushed or posted: pure functions, no I/O.

A fix is code the model wrote and the check ran; whatever the check could see could end up in a
file. Before fixbot pushes a commit (or posts a patch), the lines the diff adds are searched for the
value of every secret fixbot knows, in the forms a program would write it — plain, reversed, base64
(standard and URL-safe, at every byte alignment, so a value inside a longer base64 string is found
too), hex (either case) and URL-encoded — and for token-shaped strings
(`fixbot.security.redact.TOKEN_SHAPES`). Encoders wrap long output (`base64` and MIME at 76 columns,
PEM at 64, hex dumps), so each run of consecutive added lines of a file is also searched joined,
without its line breaks and indentation (form "... wrapped"). Any finding refuses the push
(`LeakRefused`).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import quote, quote_plus

from fixbot.core.errors import FixbotError
from fixbot.security.redact import TOKEN_SHAPES, secret_values

MIN_FORM_LENGTH = 8  # shorter encodings would match by chance


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


def _base64_forms(raw: bytes) -> list[str]:
    """The base64 text of `raw` at each of the 3 byte alignments, edge characters dropped."""
    found = []
    for shift in range(3):
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            text = encode(b"\0" * shift + raw).decode().rstrip("=")
            start = (shift * 4 + 2) // 3  # characters that mix in the padding bytes
            end = len(text) - (1 if (shift + len(raw)) % 3 else 0)
            found.append(text[start:end])
    return found


def forms(value: str) -> dict[str, str]:
    """Every spelling of `value` to search for: form name -> text (at least 8 characters)."""
    raw = value.encode()
    spelled = {
        "plain": value,
        "reversed": value[::-1],
        "hex": raw.hex(),
        "HEX": raw.hex().upper(),
        "url-encoded": quote(value, safe=""),
        "url-encoded+": quote_plus(value, safe=""),
    }
    for n, text in enumerate(_base64_forms(raw)):
        spelled[f"base64#{n}"] = text
    unique: dict[str, str] = {}
    for form, text in spelled.items():
        if len(text) >= MIN_FORM_LENGTH and text not in unique.values():
            unique[form] = text
    return unique


def _form_label(form: str) -> str:
    return form.split("#")[0].rstrip("+").lower() if form != "HEX" else "hex"


def _walk(diff: str) -> Iterable[tuple[str, str | None]]:
    """(path, text) for every line a unified diff adds (`+` lines, not the `+++` header), and
    (path, None) for every other line."""
    path = "?"
    for line in diff.splitlines():
        if line.startswith("+++ "):
            name = line[4:]
            path = name[2:] if name.startswith("b/") else name
            yield path, None
        else:
            yield path, line[1:] if line.startswith("+") else None


def added_lines(diff: str) -> Iterable[tuple[str, str]]:
    """(path, text) of every line a unified diff adds (`+` lines, not the `+++` header)."""
    return ((path, text) for path, text in _walk(diff) if text is not None)


def added_runs(diff: str) -> Iterable[tuple[str, str]]:
    """(path, text) of every run of two or more consecutive lines `diff` adds to one file that
    are one word each (wrapped encodings have no inner spaces), joined without line breaks and
    the whitespace around each line."""
    run: list[str] = []
    where = "?"
    for path, text in [*_walk(diff), ("?", None)]:
        word = (text or "").strip()
        if text is not None and len(word.split()) == 1:
            run.append(word)
            where = path
            continue
        if len(run) > 1:
            yield where, "".join(run)
        run = []


def scan(diff: str, secrets: Mapping[str, str]) -> list[Leak]:
    """The leaks in the lines `diff` adds: `secrets` maps a name to a value (values shorter than
    8 characters are skipped); token shapes are found without a value. Each run of consecutive
    added lines is searched again joined (see `added_runs`); what only the joined text shows is
    reported with its form followed by " wrapped". One Leak per (name, form, path)."""
    searches = [
        (name, _form_label(form), text)
        for name, value in secrets.items()
        if len(value) >= MIN_FORM_LENGTH
        for form, text in forms(value).items()
    ]
    shapes = re.compile("|".join(TOKEN_SHAPES))
    leaks: dict[tuple[str, str, str], Leak] = {}
    seen: set[tuple[str, str]] = set()  # (name, path) found on one line

    def search(path: str, text: str, wrapped: bool) -> None:
        for name, form, needle in searches:
            if needle in text and not (wrapped and (name, path) in seen):
                label = f"{form} wrapped" if wrapped else form
                leaks.setdefault((name, label, path), Leak(name, label, path))
                seen.add((name, path))
        shape = "a token-shaped string"
        if shapes.search(text) and not (wrapped and (shape, path) in seen):
            leaks.setdefault((shape, "", path), Leak("a token", "shape", path))
            seen.add((shape, path))

    for path, line in added_lines(diff):
        search(path, line, wrapped=False)
    for path, joined in added_runs(diff):
        search(path, joined, wrapped=True)
    return list(leaks.values())


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


def known_secrets(env: Mapping[str, str], **extra: str) -> dict[str, str]:
    """Name -> value of every secret fixbot knows: the secret-looking variables of `env`
    (`fixbot.security.redact.secret_values`) and `extra` (e.g. `github_token=...`)."""
    values = set(secret_values(env))
    found = {name: value for name, value in env.items() if value in values}
    found.update({name: value for name, value in extra.items() if value})
    return found
