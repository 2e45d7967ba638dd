import pytest

from fixbot.agent.editblocks import EditBlock, EditError, apply_block, parse_blocks, replace_once

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
