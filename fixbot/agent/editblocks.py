"""SEARCH/REPLACE edit blocks for models without function calling (pure functions).

The format (the convention Aider made familiar): the path on its own line, then

    <<<<<<< SEARCH
    exact old lines
    =======
    new lines
    >>>>>>> REPLACE

An empty SEARCH part creates a new file. `replace_once` is shared with the `replace_in_file`
tool: the old text must occur exactly once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SEARCH = re.compile(r"^\s*<{5,9} ?SEARCH\s*$")
DIVIDER = re.compile(r"^\s*={5,9}\s*$")
REPLACE = re.compile(r"^\s*>{5,9} ?REPLACE\s*$")
FENCE = re.compile(r"^\s*```")


class EditError(ValueError):
    """An edit that cannot be parsed or applied; the message tells the model how to fix it."""


@dataclass(frozen=True)
class EditBlock:
    """One SEARCH/REPLACE block: `search` empty means create `path` with `replace`."""

    path: str
    search: str
    replace: str


def _path_before(lines: list[str], index: int) -> str:
    for line in reversed(lines[:index]):
        text = line.strip().strip("`*").strip()
        if text and not FENCE.match(line):
            return text
    raise EditError(
        "a SEARCH block has no file path: put the path on its own line just before <<<<<<< SEARCH"
    )


def _until(lines: list[str], start: int, marker: re.Pattern[str], name: str) -> int:
    for index in range(start, len(lines)):
        if marker.match(lines[index]):
            return index
    raise EditError(f"a SEARCH block is not closed: add the line '{name}' after it")


def _join(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def parse_blocks(text: str) -> list[EditBlock]:
    """Every edit block in the model's reply, in order; `EditError` for a malformed block."""
    lines = text.splitlines()
    blocks: list[EditBlock] = []
    index = 0
    while index < len(lines):
        if not SEARCH.match(lines[index]):
            index += 1
            continue
        path = _path_before(lines, index)
        divider = _until(lines, index + 1, DIVIDER, "=======")
        end = _until(lines, divider + 1, REPLACE, ">>>>>>> REPLACE")
        blocks.append(
            EditBlock(path, _join(lines[index + 1 : divider]), _join(lines[divider + 1 : end]))
        )
        index = end + 1
    return blocks


def _loose(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.splitlines())


def replace_once(content: str, old: str, new: str, path: str = "the file") -> str:
    """`content` with the single occurrence of `old` replaced by `new`.

    Falls back to a match that ignores trailing whitespace per line. Raises `EditError` when
    `old` is empty, missing or occurs more than once.
    """
    if not old.strip():
        raise EditError(f"the text to replace in {path} is empty: copy the exact old lines")
    count = content.count(old)
    if count == 1:
        return content.replace(old, new, 1)
    if count > 1:
        raise EditError(
            f"the old text occurs {count} times in {path}: include more surrounding lines so it "
            "matches exactly once"
        )
    loose_content, loose_old = _loose(content), _loose(old)
    if loose_old and loose_content.count(loose_old) == 1:
        end = "\n" if content.endswith("\n") else ""
        return loose_content.replace(loose_old, _loose(new), 1) + end
    raise EditError(
        f"the old text was not found in {path}: read the file again and copy the exact lines, "
        "including indentation"
    )


def apply_block(content: str | None, block: EditBlock) -> str:
    """The new content of `block.path` (current `content`, None when missing) after the block."""
    if not block.search.strip():
        if content:
            raise EditError(
                f"{block.path} already exists: the SEARCH part must hold the exact lines to change"
            )
        return block.replace
    if content is None:
        raise EditError(
            f"{block.path} does not exist: check the path, or leave SEARCH empty to create it"
        )
    return replace_once(content, block.search, block.replace, block.path)
