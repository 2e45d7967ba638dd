"""scripts/image_trim.py's choices, read against the litellm and botocore installed here (the
same pinned versions the image installs); the image's own test
(`test_image_e2e.py::test_what_the_image_leaves_out_is_not_what_a_run_uses`) checks the result."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.fakes.paths import ROOT


def load_trim() -> ModuleType:
    spec = importlib.util.spec_from_file_location("image_trim", ROOT / "scripts" / "image_trim.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("image_trim", module)
    spec.loader.exec_module(module)
    return module


trim = load_trim()
LITELLM = trim.package_dir("litellm")
BOTOCORE_DATA = trim.package_dir("botocore") / "data"
SERVICES = [p.name for p in BOTOCORE_DATA.iterdir() if p.is_dir()]


def test_the_aws_services_a_bedrock_or_sagemaker_model_needs_are_kept() -> None:
    kept = trim.kept_services(LITELLM, SERVICES)
    # Signing, role assumption (GitHub's OIDC token through STS), SSO credentials, the providers.
    assert {"sts", "sso", "sso-oidc", "bedrock-runtime", "sagemaker-runtime", "s3"} <= kept
    assert "ec2" not in kept and "lambda" not in kept  # never named by litellm
    assert len(kept) < len(SERVICES) / 4


def test_only_the_unkept_service_models_are_removed(tmp_path: Path) -> None:
    data = tmp_path / "data"
    for name in ("sts", "sso", "ec2", "bedrock-runtime"):
        (data / name / "2011-06-15").mkdir(parents=True)
        (data / name / "2011-06-15" / "service-2.json.gz").write_bytes(b"x" * 10)
    (data / "endpoints.json").write_text("{}")
    unused = trim.unused_services(LITELLM, data)
    assert [p.name for p in unused] == ["ec2"]
    assert trim.remove(unused, dry_run=False) == 10
    assert sorted(p.name for p in data.iterdir()) == [
        "bedrock-runtime",
        "endpoints.json",
        "sso",
        "sts",
    ]


def test_the_proxys_static_files_and_the_rust_extension_are_found_in_litellm() -> None:
    found = trim.litellm_unused(LITELLM)
    assert {p.relative_to(LITELLM).parts[0] for p in found} == {"proxy", "rust_bridge"}
    # Nothing litellm imports is among them: only static files, and the extension its loader
    # treats as optional.
    assert not [p for p in found if p.suffix == ".py" or list(p.rglob("*.py"))]


def test_a_litellm_that_moved_a_trimmed_path_stops_the_build(tmp_path: Path) -> None:
    (tmp_path / "proxy").mkdir()
    with pytest.raises(SystemExit, match="no proxy/_experimental/out"):
        trim.litellm_unused(tmp_path)


def test_a_dry_run_changes_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    before = sorted(p.name for p in BOTOCORE_DATA.iterdir())
    assert trim.main(["--dry-run"]) == 0
    assert sorted(p.name for p in BOTOCORE_DATA.iterdir()) == before
    assert trim.litellm_unused(LITELLM)  # still there
    out = capsys.readouterr().out
    assert "services litellm does not call" in out and "MB" in out
