"""Secret redaction for everything fixbot sends to a model or writes to a report or log.

Two sources of secrets are masked with `[REDACTED]`:
- values (8 characters or longer) of environment variables whose names look secret
  (`*TOKEN*`, `*SECRET*`, `*KEY*`, `*PASSWORD*`, `*PASSWD*`, `*CREDENTIAL*`, `GITHUB_TOKEN`);
- well-known token shapes: GitHub tokens (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`,
  see https://github.blog/2021-04-05-behind-githubs-new-authentication-token-formats/),
  OpenAI/Anthropic style keys (`sk-...`), AWS access key ids (`AKIA` + 16 characters, see
  https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html), Slack tokens
  (`xox[baprs]-`) and Google API keys (`AIza` + 35 characters).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

MASK = "[REDACTED]"
MIN_SECRET_LENGTH = 8
SECRET_NAME = re.compile(r"TOKEN|SECRET|KEY|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)
TOKEN_SHAPES = (
    r"\bgh[pousr]_[A-Za-z0-9]{20,}",
    r"\bgithub_pat_[A-Za-z0-9_]{20,}",
    r"\bsk-[A-Za-z0-9_\-]{16,}",
    r"\bAKIA[0-9A-Z]{16}\b",
    r"\bxox[baprs]-[A-Za-z0-9\-]{10,}",
    r"\bAIza[0-9A-Za-z_\-]{35}",
)


def secret_values(env: Mapping[str, str]) -> list[str]:
    """Values of variables whose names look secret, 8+ characters, not purely numeric."""
    found = {
        value
        for name, value in env.items()
        if SECRET_NAME.search(name) and len(value) >= MIN_SECRET_LENGTH and not value.isdigit()
    }
    return sorted(found, key=len, reverse=True)


@dataclass(frozen=True)
class Redactor:
    """Replace secrets in text by `[REDACTED]`; build it with `Redactor.from_env(os.environ)`."""

    pattern: re.Pattern[str]

    @classmethod
    def from_env(cls, env: Mapping[str, str], extra: Iterable[str] = ()) -> Redactor:
        """A redactor for the secret-looking variables of `env`, `extra` values and token shapes."""
        values = secret_values(env) + sorted(
            (v for v in extra if len(v) >= MIN_SECRET_LENGTH), key=len, reverse=True
        )
        parts = [re.escape(v) for v in values] + list(TOKEN_SHAPES)
        return cls(re.compile("|".join(parts)))

    def redact(self, text: str) -> str:
        """`text` with every secret value and token shape replaced by `[REDACTED]`."""
        return self.pattern.sub(MASK, text)


def redact_file(path: Path, redactor: Redactor) -> bool:
    """Redact `path` in place, streaming line by line (bounded memory for any size).

    Bytes that are not UTF-8 are kept as they are (surrogateescape). The file is replaced
    atomically and only when something was redacted. Returns True when it was.
    """
    changed = False
    tmp = path.with_name(path.name + ".redacting")
    with path.open("rb") as source, tmp.open("wb") as target:
        for raw in source:
            line = raw.decode("utf-8", "surrogateescape")
            clean = redactor.redact(line)
            changed = changed or clean != line
            target.write(clean.encode("utf-8", "surrogateescape"))
    if changed:
        os.replace(tmp, path)
    else:
        tmp.unlink()
    return changed
