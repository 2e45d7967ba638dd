"""Property tests (hypothesis) for comment commands (`fixbot.github.events.commands.comment.parse`):
any text parses without an error, commands in code or quotes never count, the text around a command
line does not change it, and the hint is a bounded piece of the comment."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fixbot.github.events.commands.base import HINT_LIMIT, Command
from fixbot.github.events.commands.comment import COMMENT_LIMIT, parse

FAST = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")  # a code fence opening (CommonMark 0.31, 4.5)
BREAKS = "\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"  # what str.splitlines splits on
LINE_ENDS = set("\r\n")

# Comment text as people (and pasted logs) write it: prose, Markdown, near-misses of commands.
PIECES = (
    "/fixbot",
    "/FixBot",
    " retry",
    " status",
    " help",
    " ",
    "\t",
    "```",
    "~~~",
    "> ",
    "    ",
    "`",
    "\x00",
    "\r",
    "\n",
    "\r\n",
    "\u2028",
    "\x85",
    "é",
    "\U0001f600",
)
any_text = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=12)), max_size=40).map(
    "".join
)
line_text = st.text(st.characters(codec="utf-8", exclude_characters=BREAKS))
word = st.text(st.characters(whitelist_categories=("L", "N")), min_size=1, max_size=12)
SUBCOMMANDS = ("retry", "status", "help", "Retry", "STATUS", "hElP")


@st.composite
def command_parts(draw: st.DrawFn) -> tuple[str, str, str]:
    """A command line (indentation, any case, a subcommand or none, a hint, trailing blanks),
    with the subcommand and the hint it was written with."""
    indent = " " * draw(st.integers(0, 3))
    name = draw(st.sampled_from(("/fixbot", "/FIXBOT", "/Fixbot")))
    sub = draw(st.one_of(st.just(""), st.sampled_from(SUBCOMMANDS), word))
    hint = draw(line_text) if sub else ""
    gap = draw(st.sampled_from((" ", "\t", "  ")))
    line = f"{indent}{name}{gap}{sub}{gap}{hint}" if sub else f"{indent}{name}"
    return line + draw(st.sampled_from(("", " ", "\t"))), sub, hint


command_line = command_parts().map(lambda parts: parts[0])


def is_command_line(line: str) -> bool:
    """True when `line` on its own would be a command (the module's own rule, line by line)."""
    return parse(line) is not None


# A list item marker (`-`, `1.`) opens a container: the indented fence after it would be the
# item's, and a command line after that a paragraph of its own (CommonMark 0.31, 5.2).
LIST_MARKER = re.compile(r"^ {0,3}(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)")
plain_line = line_text.filter(
    lambda s: FENCE.match(s) is None and not is_command_line(s) and LIST_MARKER.match(s) is None
)


@st.composite
def fenced(draw: st.DrawFn, inner: st.SearchStrategy[str]) -> str:
    """A closed fenced code block (``` or ~~~, maybe longer, maybe with an info string) whose
    lines are drawn from `inner`; lines that would close it early are left out."""
    mark = draw(st.sampled_from("`~")) * draw(st.integers(3, 6))
    info = draw(st.sampled_from(("", "py", "text", " console")))
    lines = draw(st.lists(inner, max_size=5))
    body = [
        line
        for line in lines
        if not (
            (m := FENCE.match(line)) and m.group(1)[0] == mark[0] and not line[m.end() :].strip()
        )
    ]
    indent = " " * draw(st.integers(0, 3))
    return "\n".join([f"{indent}{mark}{info}", *body, f"{indent}{mark}"])


@st.composite
def quoted(draw: st.DrawFn) -> str:
    """Block-quoted lines (`>` after up to three spaces), commands among them."""
    lines = draw(st.lists(st.one_of(command_line, line_text), min_size=1, max_size=4))
    marks = draw(st.lists(st.sampled_from((">", "> ", " >", "   > ", ">>")), min_size=len(lines)))
    return "\n".join(mark + line for mark, line in zip(marks, lines, strict=False))


inner_line = st.one_of(command_line, line_text, st.sampled_from(("```py", "~~~~", "```` x")))
indented = command_line.map(lambda line: "    " + line.lstrip(" "))
inline_code = st.sampled_from(("```x```", "``` `/fixbot retry` ```", "````a``b````"))  # not fences
no_command_block = st.one_of(plain_line, inline_code, fenced(inner_line), quoted(), indented)
no_command_text = st.lists(no_command_block, max_size=8).map("\n".join)
# An HTML block of CommonMark's kinds 1 to 5 (`<!--`, `<pre`, `<?`, ...) runs past a blank line
# until its end marker; other blocks end at one (CommonMark 0.31, 4.6).
HTML_START = re.compile(r"^ {0,3}<")
closed_block = st.one_of(
    plain_line.filter(lambda s: HTML_START.match(s) is None),
    inline_code,
    fenced(inner_line),
    quoted(),
    indented,
)
closed_text = st.lists(closed_block, max_size=8).map("\n".join)


@settings(FAST, max_examples=400)
@given(any_text)
def test_any_text_parses_without_an_error(body: str) -> None:
    command = parse(body)
    assert command is None or isinstance(command, Command)
    if command is not None and command.hint is not None:
        assert len(command.hint) <= HINT_LIMIT and command.hint in body
        assert command.hint == command.hint.strip() and command.kind == "retry"


@settings(FAST, max_examples=150)
@given(no_command_text)
def test_commands_in_code_blocks_quotes_and_indented_code_do_not_count(body: str) -> None:
    assert parse(body) is None


@settings(FAST, max_examples=150)
@given(closed_text, command_line, st.lists(st.one_of(command_line, line_text), max_size=5))
def test_the_text_around_a_command_line_does_not_change_it(
    before: str, line: str, after: list[str]
) -> None:
    """A command line that starts a paragraph (after a blank line) means the same whatever
    comes before it or after it. Right after a line of text it would continue that text's
    block, a block quote's among them (its lazy continuation: quoted, not a command)."""
    alone = parse(line)
    assert alone is not None
    for newline in ("\n", "\r\n"):
        body = newline.join([before, "", line, *after]) if before else newline.join([line, *after])
        assert parse(body) == alone


@settings(FAST, max_examples=150)
@given(st.sampled_from((">", "> ", " >", ">>", "> > ", "   >")), word, command_line)
def test_a_command_on_a_block_quotes_lazy_continuation_line_does_not_count(
    mark: str, text: str, line: str
) -> None:
    """`> text` then `/fixbot retry` on the next line: the second line continues the quoted
    paragraph (CommonMark 0.31, 5.1, laziness), so it is quoted, and no command."""
    assert parse(f"{text}\n{line}") is not None  # after text outside a quote, it counts
    assert parse(f"{mark}{text}\n{line}") is None


@settings(FAST, max_examples=300)
@given(command_parts())
def test_a_command_line_parses_as_the_module_documents(parts: tuple[str, str, str]) -> None:
    line, sub, hint = parts
    word = sub.lower()  # `/fixbot` and the subcommand are case-insensitive
    expected = {
        "retry": Command(kind="retry", hint=hint.strip()[:HINT_LIMIT] or None),
        "status": Command(kind="status"),
        "help": Command(kind="help"),
        "": Command(kind="help"),
    }.get(word, Command(kind="help", unknown=word))
    assert parse(line) == expected


@settings(FAST, max_examples=12)
@given(
    st.sampled_from(("x" * 79 + "\n", "\n", "\r\n", "\n```\n", "\x00", "é", "> ")),
    st.integers(0, 3),
)
def test_a_megabyte_comment_parses(filler: str, where: int) -> None:
    """A body longer than GitHub accepts parses; only its first `COMMENT_LIMIT` characters
    are read, so a command after them does not count (`where` 3)."""
    head = filler * ((COMMENT_LIMIT // 2) // len(filler) | 1)  # odd: "```" fences left open
    pad = filler * (1_000_000 // len(filler))
    line = "/fixbot retry " + "h" * (3 * HINT_LIMIT)
    body = (line + pad, head + "\n" + line + pad, head + line + pad, pad + "\n" + line)[where]
    command = parse(body)
    hidden = (
        where == 3
        or (where == 2 and not head.endswith("\n"))  # after text on the same line
        or (where > 0 and "```" in filler)  # inside the fence left open
        # after 8,000 nested block quotes: past markdown-it-py's nesting limit (20) the quote
        # takes the next line too (the parser's bound, not CommonMark's)
        or (where > 0 and filler == "> ")
    )
    if hidden:
        assert command is None
    else:  # the hint is the rest of the command's line, cut to HINT_LIMIT
        assert command == Command(kind="retry", hint="h" * HINT_LIMIT)


@settings(FAST, max_examples=200)
@given(
    st.text(min_size=1, max_size=20).filter(
        # prose that is itself a command (`/FIXBOT ...`) is not "text before a command"
        lambda s: not LINE_ENDS & set(s) and not s.lstrip(" ").lower().startswith("/fixbot")
    ),
    st.sampled_from(sorted(set(BREAKS) - LINE_ENDS)),
    command_line,
)
def test_a_command_after_text_on_the_same_line_does_not_count(
    prose: str, separator: str, line: str
) -> None:
    # Markdown ends lines at \n, \r\n and \r only (CommonMark 0.31, 2.1): a form feed, \x85 or
    # U+2028 is not a line break, so the command is not at the start of a line
    assert parse(prose + separator + line) is None
