"""The spellings of a secret: one table, read by redaction (`fixbot.security.redact`) and by the
leak scan (`fixbot.security.leakscan`).

`ENCODERS` maps a form's name to a function from the secret to its spellings in that form: plain,
reversed, hex (either case), URL-encoded (`%20` and `+` for spaces), base64 (standard and
URL-safe alphabets, the core of all three byte alignments, so a secret inside a longer encoded blob
is found), base32 (upper and lower case, all five byte alignments: RFC 4648) and rot13. Adding an
encoding is one row here; both readers take it.

No list can enumerate every encoding a program may write (two rot13s, XOR, a value split over
files and reassembled at run time): these are a last line, the isolation of the commands is the
boundary (docs/SECURITY.md).
"""

from __future__ import annotations

import base64
import codecs
from collections.abc import Callable, Iterator
from urllib.parse import quote, quote_plus


def _cores(encode: Callable[[bytes], bytes], block: int, bits: int, data: bytes) -> Iterator[str]:
    """The characters of `encode(data)` that do not depend on `data`'s neighbours, at each of the
    `block` byte alignments (`bits` per character: 6 for base64, 5 for base32)."""
    for shift in range(block):
        encoded = encode(b"\0" * shift + data).decode("ascii")
        start = -(-shift * 8 // bits)  # characters holding bits of the padding bytes
        end = (shift + len(data)) * 8 // bits  # characters holding only bits of `data`
        yield encoded[start:end]


def _base64(secret: str) -> list[str]:
    cores = list(_cores(base64.b64encode, 3, 6, secret.encode("utf-8")))
    return cores + [c.replace("+", "-").replace("/", "_") for c in cores]


def _base32(secret: str) -> list[str]:
    cores = list(_cores(base64.b32encode, 5, 5, secret.encode("utf-8")))
    return cores + [c.lower() for c in cores]


ENCODERS: dict[str, Callable[[str], list[str]]] = {
    "plain": lambda s: [s],
    "reversed": lambda s: [s[::-1]],
    "hex": lambda s: [s.encode("utf-8").hex(), s.encode("utf-8").hex().upper()],
    "url-encoded": lambda s: [quote(s, safe=""), quote_plus(s, safe="")],
    "base64": _base64,
    "base32": _base32,
    "rot13": lambda s: [codecs.encode(s, "rot13")],
}


def forms(secret: str, min_length: int = 8) -> dict[str, str]:
    """Every spelling of `secret`: `<form>#<n>` -> text, each at least `min_length` characters
    and each text once (the first form that spells it keeps it, `plain` first)."""
    found: dict[str, str] = {}
    seen: set[str] = set()
    for name, encode in ENCODERS.items():
        for n, text in enumerate(encode(secret)):
            if len(text) >= min_length and text not in seen:
                found[f"{name}#{n}"] = text
                seen.add(text)
    return found


def form_name(key: str) -> str:
    """The form of a `forms` key: `base64#3` -> `base64`."""
    return key.split("#")[0]


def encodings(secret: str, min_length: int = 8) -> list[str]:
    """Every spelling of `secret` but the plain one, sorted (for a redaction pattern)."""
    return sorted(t for t in forms(secret, min_length).values() if t != secret)
