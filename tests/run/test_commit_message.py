"""The verified fix's commit message: a title cut at a word, the whole summary kept, a title
even when the fixer gave no summary."""

from __future__ import annotations

from fixbot.core.models import Attempt
from fixbot.core.settings import Settings
from fixbot.run.outcome import TITLE_CHARS, commit_message

SETTINGS = Settings(check="pytest -q")
# A summary of the length real models write (14 of 15 in a round of real CI failures were
# longer than the title).
LONG = (
    "Handle a missing configuration file in load_settings by falling back to the defaults "
    "instead of raising FileNotFoundError"
)


def message(summary: str, files: list[str] | None = None) -> tuple[str, str]:
    attempt = Attempt(number=2, summary=summary, fixer="model:x", files_changed=files or ["a.py"])
    title, _, body = commit_message(SETTINGS, attempt).partition("\n\n")
    return title, body


def test_a_long_summary_is_cut_at_a_word_and_kept_whole_in_the_body() -> None:
    title, body = message(LONG)
    assert title.startswith("fixbot: Handle a missing") and title.endswith("...")
    cut = title.removeprefix("fixbot: ").removesuffix("...").rstrip()
    assert len(cut) <= TITLE_CHARS and LONG.startswith(cut)
    assert LONG[len(cut)] == " "  # cut between words, never inside one
    assert body.startswith(LONG + "\n\nVerified by `pytest -q`")
    assert body.endswith("fixbot-attempt: 2\n")


def test_a_short_summary_is_the_title_only() -> None:
    title, body = message("sum every item")
    assert title == "fixbot: sum every item"
    assert body.startswith("Verified by `pytest -q`")


def test_no_summary_names_the_files_instead_of_a_placeholder() -> None:
    assert message("")[0] == "fixbot: fix a.py"
    many = message("", ["a.py", "b.py", "c.py", "d.py"])[0]
    assert many == "fixbot: fix a.py, b.py, c.py and more"
