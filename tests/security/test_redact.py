import base64
from urllib.parse import quote, quote_plus

import pytest

from fixbot.security.redact import MASK, Redactor, secret_values


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


SECRET = "Zq9-abc/def+123456XYZ"


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


@pytest.mark.parametrize("prefix", [b"", b"u", b"us", b"user:"])
def test_base64_of_a_secret_is_masked_in_every_alignment(prefix: bytes) -> None:
    red = Redactor.from_env({"MY_API_KEY": SECRET})
    for encoded in (_b64(prefix + SECRET.encode() + b"!"), _b64(prefix + SECRET.encode())):
        for form in (encoded, encoded.replace("+", "-").replace("/", "_")):
            out = red.redact(f"Authorization: Basic {form}")
            assert MASK in out and form not in out


@pytest.mark.parametrize(
    "form",
    [
        SECRET.encode().hex(),
        SECRET.encode().hex().upper(),
        quote(SECRET, safe=""),
        quote_plus(SECRET),
        SECRET[::-1],
    ],
)
def test_hex_url_encoded_and_reversed_secrets_are_masked(form: str) -> None:
    out = Redactor.from_env({"MY_API_KEY": SECRET}).redact(f"x={form};")
    assert out == f"x={MASK};"


def test_a_secret_split_across_a_line_break_is_masked() -> None:
    red = Redactor.from_env({"MY_API_KEY": SECRET})
    text = f"token: {SECRET[:9]}\n    {SECRET[9:]} end\nnext\n"
    out = red.redact(text)
    assert SECRET[:9] not in out and SECRET[9:] not in out
    assert out.count("\n") == text.count("\n") and out.endswith(" end\nnext\n")


def test_passwords_in_urls_are_masked_without_knowing_them() -> None:
    red = Redactor.from_env({})
    out = red.redact("connect postgres://app:Pa55w0rd!x@db:5432/app failed")
    assert out == f"connect postgres://app:{MASK}@db:5432/app failed"


def test_a_database_url_password_is_masked_wherever_it_appears() -> None:
    red = Redactor.from_env({"DATABASE_URL": "mysql://root:letmein-2024@db/app"})
    assert red.redact("login failed for password letmein-2024") == (
        f"login failed for password {MASK}"
    )


def test_provider_keys_without_a_secret_looking_name_are_masked() -> None:
    red = Redactor.from_env({"DATABRICKS_TOKEN": "dapi0123456789abcdef", "HF_TOKEN": "abcdefgh12"})
    assert red.redact("dapi0123456789abcdef abcdefgh12") == f"{MASK} {MASK}"
