from pathlib import Path

from fixbot.redact import MASK, Redactor, redact_file, secret_values


def test_values_of_secret_looking_variables_are_masked() -> None:
    env = {"MY_API_KEY": "abcd1234efgh", "DB_PASSWORD": "hunter2hunter2", "HOME": "/root/home1"}
    red = Redactor.from_env(env)
    out = red.redact("key=abcd1234efgh pw=hunter2hunter2 home=/root/home1")
    assert out == f"key={MASK} pw={MASK} home=/root/home1"


def test_short_and_numeric_values_are_kept() -> None:
    env = {"SHORT_TOKEN": "abc123", "MAX_TOKENS": "123456789"}
    assert secret_values(env) == []
    assert Redactor.from_env(env).redact("abc123 123456789") == "abc123 123456789"


def test_well_known_token_shapes_are_masked_without_env() -> None:
    red = Redactor.from_env({})
    samples = [
        "ghp_" + "a1B2" * 9,
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
        "sk-proj-" + "x" * 30,
        "AKIAIOSFODNN7EXAMPLE",
    ]
    for token in samples:
        assert red.redact(f"before {token} after") == f"before {MASK} after"


def test_longer_secret_wins_over_its_prefix() -> None:
    red = Redactor.from_env({"A_TOKEN": "prefix12", "B_TOKEN": "prefix12345678"})
    assert red.redact("x prefix12345678 y") == f"x {MASK} y"


def test_github_token_and_extra_values() -> None:
    red = Redactor.from_env({"GITHUB_TOKEN": "v1.0123456789abcdef"}, extra=["custom-secret-1"])
    assert red.redact("v1.0123456789abcdef custom-secret-1") == f"{MASK} {MASK}"


def test_redact_file_streams_and_keeps_other_bytes(tmp_path: Path) -> None:
    log = tmp_path / "check.log"
    log.write_bytes(b"ok \xff\xfe line\ntoken=ghp_" + b"a" * 36 + b" end\nplain\n")
    assert redact_file(log, Redactor.from_env({}))
    assert log.read_bytes() == b"ok \xff\xfe line\ntoken=[REDACTED] end\nplain\n"
    clean = tmp_path / "clean.log"
    clean.write_bytes(b"nothing secret\n")
    assert not redact_file(clean, Redactor.from_env({}))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["check.log", "clean.log"]
