"""The model's tools: their OpenAI function schemas and one pydantic model per tool's arguments.

The schemas are what the model is shown (litellm translates them for every provider); the models
validate what it sends back, so `path: 123`, `start_line: "abc"` or `summary: 42` become an error
message for the model instead of a traceback. `tests/agent/test_adversarial_tools.py` checks that
every schema property is a field of its model and the other way round.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

MAX_WRITE_BYTES = 1_000_000  # a write over this is refused
Line = Annotated[int, Field(ge=-(2**31), le=2**31)]


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ReadArgs(_Args):
    """`read_file`: `path`, lines `start_line`..`end_line` (1-based, inclusive)."""

    path: str
    start_line: Line | None = None
    end_line: Line | None = None


class ListArgs(_Args):
    """`list_files`: a folder, the root by default."""

    path: str = "."


class SearchArgs(_Args):
    """`search_code`: a regular expression and the folder or file to search."""

    pattern: Annotated[str, Field(min_length=1, max_length=1000)]
    path: str = "."


class ReplaceArgs(_Args):
    """`replace_in_file`: `old` (exactly once in the file) becomes `new`."""

    path: str
    old: str
    new: str


class WriteArgs(_Args):
    """`write_file`: create or overwrite `path` with `content`."""

    path: str
    content: str


class FinishArgs(_Args):
    """`finish`: the model's summary, its root-cause hypothesis and the threads it resolved."""

    summary: str = ""
    diagnosis: str | None = None
    resolved_thread_ids: list[str] = Field(default_factory=list)


ARGUMENTS: dict[str, type[_Args]] = {
    "read_file": ReadArgs,
    "list_files": ListArgs,
    "search_code": SearchArgs,
    "replace_in_file": ReplaceArgs,
    "write_file": WriteArgs,
    "finish": FinishArgs,
}


def describe(exc: ValidationError) -> str:
    """The validation errors of `exc` in one line: `start_line: Input should be ...`."""
    return "; ".join(
        f"{'.'.join(str(p) for p in err['loc']) or 'arguments'}: {err['msg']}"
        for err in exc.errors(include_url=False, include_input=False)
    )


def _fn(name: str, description: str, props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    schema = {"type": "object", "properties": props, "required": required}
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": schema},
    }


STR = {"type": "string"}
INT = {"type": "integer"}
TOOL_SCHEMAS = [
    _fn(
        "read_file",
        "Read a file with line numbers.",
        {"path": STR, "start_line": INT, "end_line": INT},
        ["path"],
    ),
    _fn("list_files", "List files under a folder (default: the root).", {"path": STR}, []),
    _fn(
        "search_code",
        "Regex search: lines 'path:line: text'.",
        {"pattern": STR, "path": STR},
        ["pattern"],
    ),
    _fn(
        "replace_in_file",
        "Replace `old` (must occur exactly once, copied exactly) by `new` in a file.",
        {"path": STR, "old": STR, "new": STR},
        ["path", "old", "new"],
    ),
    _fn(
        "write_file",
        f"Create or overwrite a file with `content` (text, at most {MAX_WRITE_BYTES} bytes).",
        {"path": STR, "content": STR},
        ["path", "content"],
    ),
    _fn(
        "finish",
        "End the attempt. `diagnosis`: your root-cause hypothesis.",
        {"summary": STR, "diagnosis": STR, "resolved_thread_ids": {"type": "array", "items": STR}},
        ["summary"],
    ),
]
TOOL_NAMES = [s["function"]["name"] for s in TOOL_SCHEMAS]
REVIEW_SCHEMA = _fn(
    "submit_review",
    "Submit the review; an empty list means clean.",
    {
        "findings": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "path": STR,
                    "line": INT,
                    "severity": {"type": "string", "enum": ["blocker", "major", "minor"]},
                    "message": STR,
                },
                "required": ["path", "severity", "message"],
            },
        }
    },
    ["findings"],
)
