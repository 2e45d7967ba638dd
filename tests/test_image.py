"""The Dockerfile's promises that no linter checks (no Docker engine runs here): the tools the
check finds, the unprivileged user, fixbot kept apart from the project's environment, and the
marker that tells fixbot it runs in the container."""

from __future__ import annotations

import json
import re

import pytest

from fixbot.process import installation
from tests.fakes import image
from tests.fakes.paths import ROOT

DOCKERFILE = (ROOT / "Dockerfile").read_text(encoding="utf-8")


def instructions(name: str) -> list[str]:
    """The arguments of every `name` instruction, continuation lines joined."""
    joined = re.sub(r"\\\n\s*", " ", DOCKERFILE)
    return [line.split(None, 1)[1] for line in joined.splitlines() if line.startswith(name + " ")]


def test_git_and_a_pinned_uv_are_installed() -> None:
    runs = " ".join(instructions("RUN"))
    assert "apt-get install --yes --no-install-recommends git" in runs
    assert re.search(r"ARG UV_VERSION=\d+\.\d+\.\d+", DOCKERFILE)
    assert '"uv==${UV_VERSION}"' in runs and "uv --version" in runs


def test_the_unprivileged_user_is_fixbot_with_uid_1001() -> None:
    assert "useradd --create-home --uid 1001 --shell /bin/bash fixbot" in " ".join(
        instructions("RUN")
    )
    assert not instructions("USER")  # GitHub runs container actions as root


def test_fixbot_is_installed_apart_from_the_projects_virtual_environment() -> None:
    env = " ".join(instructions("ENV"))
    # the project's venv is active for the commands (fixbot puts it first on their PATH), never
    # on root's PATH, where a program the commands planted would run as root
    assert "VIRTUAL_ENV=/opt/venv" in env and "/opt/venv/bin" not in env
    install = next(r for r in instructions("RUN") if "pip install" in r)
    assert (
        "/usr/local/bin/python -m pip install --no-compile --constraint constraints.txt" in install
    )
    # Trimmed in the same layer, binutils (for strip) gone by its end (docs/image.md, "Size and
    # cold start").
    assert install.index("pip install") < install.index("scripts/image_trim.py")
    assert install.index("image_trim.py") < install.index(
        "apt-get purge --yes --auto-remove binutils"
    )
    assert "test ! -e /opt/venv/bin/fixbot" in install
    assert [json.loads(e) for e in instructions("ENTRYPOINT")] == [installation.entry_argv()]


def test_no_dynamic_program_starts_before_the_loaders_variables_are_gone() -> None:
    """The ENTRYPOINT starts with statically linked programs (tini-static, busybox from
    busybox-static) and removes every variable of glibc's unsafe list before the first dynamic
    one (Python)."""
    entry = installation.entry_argv()
    assert entry[:4] == ["/usr/bin/tini-static", "--", "/bin/busybox", "env"]
    removed = [entry[i + 1] for i, word in enumerate(entry[:-5]) if word == "-u"]
    assert set(removed) == set(installation.LOADER_VARIABLES) >= {"LD_PRELOAD", "LD_AUDIT"}
    assert entry[-5:] == ["/usr/local/bin/python", "-I", "-m", "fixbot", "action"]
    runs = " ".join(instructions("RUN"))
    assert re.search(r"apt-get install --yes --no-install-recommends [^&]*\btini\b", runs)
    assert re.search(r"apt-get install --yes --no-install-recommends [^&]*busybox-static", runs)


def test_fixbot_knows_it_runs_in_the_container_from_a_root_owned_file() -> None:
    """Where fixbot runs is an installation fact (an earlier step can write any variable)."""
    assert "FIXBOT_RUNTIME" not in " ".join(instructions("ENV"))
    shipped = " ".join(instructions("RUN"))
    assert "printf 'container\\n' > /etc/fixbot/runtime" in shipped
    assert "chown root:root /etc/fixbot/runtime" in shipped
    assert "chmod 0644 /etc/fixbot/runtime" in shipped


def test_the_image_tests_skip_with_the_reason_and_fail_under_ci() -> None:
    with pytest.raises(pytest.skip.Exception, match="buildah is missing"):
        image.require("buildah is missing", in_ci=False)
    with pytest.raises(pytest.fail.Exception, match=r"CI=true, and .* buildah is missing"):
        image.require("buildah is missing", in_ci=True)
    image.require(None, in_ci=True)


def test_not_root_is_a_reason_not_to_build_the_image(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("os.geteuid", lambda: 1000)
    assert "needs root" in str(image.image_unavailable())
    monkeypatch.setattr("os.geteuid", lambda: 0)
    monkeypatch.setenv("PATH", "/nonexistent")
    assert str(image.image_unavailable()).startswith("buildah is missing")
