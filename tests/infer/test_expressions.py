"""GitHub expressions over the matrix, env and runner OS; the rest is named as unknowable."""

from __future__ import annotations

import pytest

from fixbot.infer.expressions import Context, Unknowable, condition, evaluate, interpolate

CTX = Context(matrix={"python": "3.12", "os": "ubuntu-latest", "go": 17}, env={"CARGO": "cargo"})


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("matrix.python", "3.12"),
        ("matrix.tox || format('py{0}', matrix.python)", "py3.12"),
        ("env.CARGO", "cargo"),
        ("runner.os == 'linux'", True),  # == is case-insensitive
        ("startsWith(matrix.os, 'ubuntu') && !cancelled()", True),
        ("matrix.go < 24 && 'old' || 'new'", "old"),
        ("matrix.missing", None),
    ],
)
def test_evaluate(text: str, value: object) -> None:
    assert evaluate(text, CTX) == value


@pytest.mark.parametrize(
    "text", ["secrets.TOKEN", "needs.build.outputs.v", "github.repository", "fromJSON('[1]')"]
)
def test_what_depends_on_the_run_is_unknowable_and_named(text: str) -> None:
    with pytest.raises(Unknowable, match=text.split("(")[0].split(".")[0]):
        evaluate(text, CTX)


def test_interpolate_and_condition() -> None:
    assert interpolate("pytest --py ${{ matrix.python }}", CTX) == "pytest --py 3.12"
    assert condition("${{ runner.os == 'Windows' }}", CTX) is False
    assert condition("matrix.os != 'windows-latest'", CTX) is True
