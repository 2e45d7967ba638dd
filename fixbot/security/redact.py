"""Secret redaction for everything fixbot sends to a model or writes to a report or log.

Masked with `[REDACTED]`:
- the secret values of the environment (`fixbot.core.secrets.secret_values`: variables named like a
  secret, model-provider keys, GitHub's tokens, passwords inside URL values) and `extra`
  values, in every form a log or a model may show them: plain, split across one line break,
  and every encoding of `fixbot.security.encodings` (reversed, URL-encoded, hex, base64 and
  base32 at every byte alignment, rot13), the table the leak scan reads too;
- the password of any URL (`scheme://user:PASSWORD@host`, e.g. a `DATABASE_URL` in a log);
- well-known token shapes: GitHub tokens (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`,
  see https://github.blog/2021-04-05-behind-githubs-new-authentication-token-formats/),
  OpenAI/Anthropic style keys (`sk-...`), AWS access key ids (`AKIA` + 16 characters, see
  https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html), Slack tokens
  (`xox[baprs]-`), Google API keys (`AIza` + 35 characters) and Hugging Face tokens (`hf_`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from fixbot.core.secrets import MIN_SECRET_LENGTH, URL_PASSWORD, secret_values
from fixbot.security.encodings import encodings as spellings

__all__ = ["MASK", "Redactor", "encodings", "secret_values"]

MASK = "[REDACTED]"
LINE_BREAK = r"(?:[ \t\\]*\r?\n[ \t]*)?"  # where a wrapped secret may be cut
TOKEN_SHAPES = (
    r"\bgh[pousr]_[A-Za-z0-9]{20,}",
    r"\bgithub_pat_[A-Za-z0-9_]{20,}",
    r"\bsk-[A-Za-z0-9_\-]{16,}",
    r"\bAKIA[0-9A-Z]{16}\b",
    r"\bxox[baprs]-[A-Za-z0-9\-]{10,}",
    r"\bAIza[0-9A-Za-z_\-]{35}",
    r"\bhf_[A-Za-z0-9]{30,}",
)


def encodings(secret: str) -> list[str]:
    """Every form of `secret` that is redacted besides the plain one (long enough to be safe):
    the one table of `fixbot.security.encodings`."""
    return spellings(secret, MIN_SECRET_LENGTH)


def _wrappable(secret: str) -> str:
    """A pattern for `secret`, also when a line break cuts it in two."""
    return LINE_BREAK.join(re.escape(char) for char in secret)


def _mask(match: re.Match[str]) -> str:
    """`[REDACTED]` for each line the match spans, so line counts stay the same."""
    return re.sub(r"[^\r\n]+", MASK, match.group(0))


SHAPES = re.compile("|".join(TOKEN_SHAPES))
NOTHING = re.compile(r"(?!)")


@dataclass(frozen=True)
class Redactor:
    """Replace secrets in text by `[REDACTED]`; build it with `Redactor.from_env(os.environ)`.

    `pattern` matches the known secret values in all their forms, `shapes` the token shapes;
    they are two expressions because one alternation of both is about four times slower
    (an alternative starting with `\\b` stops `re` from skipping ahead by first characters).
    """

    pattern: re.Pattern[str]
    shapes: re.Pattern[str] = SHAPES

    @classmethod
    def from_env(cls, env: Mapping[str, str], extra: Iterable[str] = ()) -> Redactor:
        """A redactor for the secret values of `env`, `extra` values and the token shapes."""
        values = set(secret_values(env)) | {v for v in extra if len(v) >= MIN_SECRET_LENGTH}
        forms = sorted({f for v in values for f in encodings(v)} - values, key=len, reverse=True)
        plain = sorted(values, key=len, reverse=True)
        parts = [_wrappable(v) for v in plain] + [re.escape(f) for f in forms]
        return cls(re.compile("|".join(parts)) if parts else NOTHING)

    def redact(self, text: str) -> str:
        """`text` with every secret, URL password and token shape replaced by `[REDACTED]`."""
        text = URL_PASSWORD.sub(lambda m: m.group(1) + MASK + m.group(3), text)
        return self.shapes.sub(MASK, self.pattern.sub(_mask, text))
