import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fixbot.agent.editblocks import (
    DIVIDER,
    FENCE,
    REPLACE,
    SEARCH,
    EditBlock,
    EditError,
    apply_block,
    parse_blocks,
    replace_once,
)

REPLY = """I will fix the off-by-one.

src/calc.py
```python
<<<<<<< SEARCH
def total(xs):
    return sum(xs[1:])
=======
def total(xs):
    return sum(xs)
>>>>>>> REPLACE
```

new_file.txt
<<<<<<< SEARCH
=======
hello
>>>>>>> REPLACE

DIAGNOSIS: total skipped the first item.
"""


def test_parse_two_blocks_with_fences_and_paths() -> None:
    blocks = parse_blocks(REPLY)
    assert blocks == [
        EditBlock(
            "src/calc.py",
            "def total(xs):\n    return sum(xs[1:])\n",
            "def total(xs):\n    return sum(xs)\n",
        ),
        EditBlock("new_file.txt", "", "hello\n"),
    ]


def test_no_blocks_is_empty() -> None:
    assert parse_blocks("I think the code is fine.") == []


def test_unclosed_block_is_an_error_naming_the_marker() -> None:
    with pytest.raises(EditError, match=">>>>>>> REPLACE"):
        parse_blocks("a.py\n<<<<<<< SEARCH\nx\n=======\ny\n")


def test_block_without_path_is_an_error() -> None:
    with pytest.raises(EditError, match="no file path"):
        parse_blocks("<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n")


def test_replace_once_exact() -> None:
    assert replace_once("a\nb\nc\n", "b\n", "B\n") == "a\nB\nc\n"


def test_replace_once_ignores_trailing_whitespace() -> None:
    assert replace_once("a  \nb\n", "a\nb", "x\ny") == "x\ny\n"


def test_replace_once_ambiguous_and_missing() -> None:
    with pytest.raises(EditError, match="2 times"):
        replace_once("x\nx\n", "x", "y")
    with pytest.raises(EditError, match="not found"):
        replace_once("x\n", "z", "y")
    with pytest.raises(EditError, match="empty"):
        replace_once("x\n", "  ", "y")


def test_apply_block_create_and_edit() -> None:
    assert apply_block(None, EditBlock("n.txt", "", "hi\n")) == "hi\n"
    assert apply_block("a = 1\n", EditBlock("m.py", "a = 1\n", "a = 2\n")) == "a = 2\n"


def test_apply_block_refuses_empty_search_on_existing_file_and_missing_file() -> None:
    with pytest.raises(EditError, match="already exists"):
        apply_block("old\n", EditBlock("m.py", "", "new\n"))
    with pytest.raises(EditError, match="does not exist"):
        apply_block(None, EditBlock("m.py", "old\n", "new\n"))


# Property tests (hypothesis): the parser meets arbitrary model output.
BREAKS = "\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
MARKERS = (
    "<<<<<<< SEARCH",
    "=======",
    ">>>>>>> REPLACE",
    "```",
    "<<<<< SEARCH",
    ">>>>>>>>> REPLACE",
)
line_text = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters=BREAKS), max_size=30
)
plain_line = line_text.filter(lambda s: not any(m.match(s) for m in (SEARCH, DIVIDER, REPLACE)))
path_line = plain_line.map(str.strip).filter(
    lambda s: bool(s) and s == s.strip("`*").strip() and not FENCE.match(s)
)
block = st.builds(
    EditBlock,
    path_line,
    st.lists(plain_line, max_size=5).map(lambda ls: "".join(x + "\n" for x in ls)),
    st.lists(plain_line, max_size=5).map(lambda ls: "".join(x + "\n" for x in ls)),
)


def render(blocks: list[EditBlock]) -> str:
    return "".join(
        f"{b.path}\n<<<<<<< SEARCH\n{b.search}=======\n{b.replace}>>>>>>> REPLACE\n\n"
        for b in blocks
    )


@given(st.lists(st.one_of(st.sampled_from(MARKERS), st.text(max_size=40)), max_size=20))
@settings(max_examples=300, deadline=None)
def test_parse_blocks_raises_nothing_but_edit_error(lines: list[str]) -> None:
    try:
        parsed = parse_blocks("\n".join(lines))
    except EditError:
        return
    assert all(isinstance(b, EditBlock) and b.path for b in parsed)


@given(st.lists(block, max_size=4), st.text(max_size=40).filter(lambda s: "<<<<<" not in s))
@settings(max_examples=200, deadline=None)
def test_generated_blocks_round_trip(blocks: list[EditBlock], prose: str) -> None:
    text = prose + "\n\n" + render(blocks) if prose.strip() else render(blocks)
    assert parse_blocks(text) == blocks


@given(st.text(max_size=200), st.text(max_size=40), st.text(max_size=40))
@settings(max_examples=300, deadline=None)
def test_replace_once_raises_nothing_but_edit_error(content: str, old: str, new: str) -> None:
    try:
        result = replace_once(content, old, new)
    except EditError:
        return
    assert isinstance(result, str)
