"""Batched "reply, then resolve" GraphQL mutations: up to `BATCH` threads per request.

Pure. One request replies in and resolves up to 20 threads, each under its own aliases
(`a<N>`: `addPullRequestReviewThreadReply`, `r<N>`: `resolveReviewThread`) with its own
variables (`$t<N>` thread id, `$b<N>` its reply: the commit and the hunk that addressed it).
GraphQL runs a mutation's root fields one after the other and reports a failed field in
`errors` with that field `null` in `data` (https://spec.graphql.org/October2021/#sec-Mutation),
so each thread's result is read from its aliases. The one-thread form is
`fixbot/github/api/queries/resolve_and_reply.graphql`; the tests check that `document(1)` is
that file and that `document(BATCH)` is valid against GitHub's schema.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, Field

BATCH = 20
T = TypeVar("T")

_RESOLVE = """  r{n}: resolveReviewThread(input: {{threadId: $t{n}}}) {{
    thread {{
      id
      isResolved
    }}
  }}"""
_REPLY = """  a{n}: addPullRequestReviewThreadReply(
    input: {{pullRequestReviewThreadId: $t{n}, body: $b{n}}}
  ) {{
    comment {{
      id
      url
    }}
  }}"""


def chunks(items: Sequence[T], size: int = BATCH) -> list[list[T]]:
    """`items` in consecutive lists of at most `size`."""
    return [list(items[i : i + size]) for i in range(0, len(items), size)]


def document(count: int) -> str:
    """The mutation resolving and replying in `count` threads (1..BATCH)."""
    if not 1 <= count <= BATCH:
        raise ValueError(f"a batch holds 1 to {BATCH} threads, not {count}")
    params = ", ".join(f"$t{n}: ID!, $b{n}: String!" for n in range(count))
    fields = "\n".join(f"{_REPLY.format(n=n)}\n{_RESOLVE.format(n=n)}" for n in range(count))
    return f"mutation ResolveAndReply({params}) {{\n{fields}\n}}\n"


def variables(thread_ids: Sequence[str], body: str | Mapping[str, str]) -> dict[str, str]:
    """The variables of `document(len(thread_ids))`: each thread's reply is `body[id]` (a
    mapping), or the same `body` (a string). Raises KeyError for a thread without a reply."""
    found: dict[str, str] = {}
    for n, thread_id in enumerate(thread_ids):
        found[f"t{n}"] = thread_id
        found[f"b{n}"] = body if isinstance(body, str) else body[thread_id]
    return found


class BatchResult(BaseModel):
    """Which threads of a batch were resolved and which got the reply (ids, in order)."""

    resolved: list[str] = Field(default_factory=list)
    replied: list[str] = Field(default_factory=list)


def result(thread_ids: Sequence[str], data: Mapping[str, Any] | None) -> BatchResult:
    """Read each thread's aliases from a (possibly partial) `data` answer."""
    data = data or {}
    found = BatchResult()
    for n, thread_id in enumerate(thread_ids):
        resolved = (data.get(f"r{n}") or {}).get("thread") or {}
        if resolved.get("isResolved"):
            found.resolved.append(thread_id)
        if (data.get(f"a{n}") or {}).get("comment"):
            found.replied.append(thread_id)
    return found
