"""The real runners' check commands, shared by the runner-report tests and the attack rounds
that run go, jest and cargo (`tests/run/test_runner_reports.py` defines them); and the tiny
projects' pytest without this suite's own pytest plugins (`project_plugins_off`)."""

from __future__ import annotations

import pytest

from tests.run.test_runner_reports import go_check, jest_check, rustup

__all__ = ["go_check", "jest_check", "project_plugins_off", "rustup"]

# pytest's switch for the plugins installed packages register by entry point (`pytest11`):
# https://docs.pytest.org/en/stable/how-to/plugins.html#deactivating-unregistering-a-plugin-by-name
AUTOLOAD_OFF = "PYTEST_DISABLE_PLUGIN_AUTOLOAD"
# the modules whose projects' tests import hypothesis (property tests): their pytest keeps the
# plugins, hypothesis's among them, as a project that uses hypothesis has it
WITH_PLUGINS = frozenset(
    {
        "test_observer_attacks_known_answer.py",
        "test_observer_attacks_round7.py",
        "test_observer_pythons.py",
    }
)


@pytest.fixture(autouse=True)
def project_plugins_off(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The tiny projects' checks here run this suite's own Python (`tests.fakes.pythons`), whose
    environment holds the suite's test tools: every pytest process of a check would load their
    plugins (hypothesis, anyio, xdist), which the projects neither use nor install, and
    hypothesis's imports the whole of hypothesis at its terminal summary (about 0.25 s of CPU
    per pytest process, a third of a tiny project's run; bench/README.md "suite time"). So
    their pytest loads none (`AUTOLOAD_OFF`), as a project without them would; fixbot's
    observer is loaded by `-p`, which the switch leaves on. The modules of `WITH_PLUGINS` keep
    them. Sets the variable for this test's processes only."""
    if request.path.name not in WITH_PLUGINS:
        monkeypatch.setenv(AUTOLOAD_OFF, "1")
