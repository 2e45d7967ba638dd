"""Round 27: jest's ES module configuration, observed too. Rows as round 20's (`held`,
`honest`); the project is round 25's jest project (`add` subtracts) with its configuration in
ES modules: jest.config.mjs awaits its base, jest.base.mjs, from a path it computes (no
specifier `runnerconf.required` reads), and the base imports a helper of its own.

jest_runner_hidden_in_an_es_module_configuration_imported_by_a_computed_path (held since this
    round, `check-script`): round 25's hidden runner (set only where `process.argv` lacks
    `--showConfig`) in jest.base.mjs. The preload of `jest --showConfig` handed over
    `require.cache` alone: ES modules are not in it, so the start's run observed no file, the
    base was no check file and the fix ended `fixed` (run without the control). Fixed: the
    preload registers module hooks (`fixbot/observe/node/loaded.cjs` `LOADER`, node's
    `module.register`) whose `load` posts each `file:` URL node's ES module loader loads, taken
    at exit; the start's run's files are the check's (`checkfiles.check_files`).

Its sibling, round 25's row (the hidden runner in jest.base.js, required by a computed path)
with a check naming its own environment (`jest --ci --env=node`), ended `fixed` (run once):
`jestenv.prepare` ran no `--showConfig` for such a check, so nothing was observed. Fixed: it
runs one with the preload for the files alone, the environment left as the check names it;
proven by tests/run/test_jestenv.py alone (no row: suite time).

Legitimate row (must stay `fixed`, no finding): the honest fix of app.js in the same project
(the configuration and its helper untouched; they are the check's own and unchanged).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.repo import make_repo
from tests.run.test_jestenv_loaded import ESM_BASE, ESM_CONFIG, ESM_HELPER
from tests.run.test_runner_attacks_round20 import held, honest
from tests.run.test_runner_attacks_round25 import JEST_RUNNER
from tests.run.test_runner_reports import JS_APP, JS_FIXED, JS_TEST

pytestmark = pytest.mark.slow

# round 25's runner, set where jest prints no configuration (`--showConfig` not in its words)
ESM_RUNNER_HIDDEN = """\
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { environment } from './conf/environment.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const config = { testEnvironment: environment };
if (!process.argv.includes('--showConfig')) config.runner = path.join(here, 'runner.js');
export default config;
"""


def esm_repo(tmp_path: Path) -> Path:
    """Round 25's jest project (`add` subtracts), its configuration in ES modules."""
    files = {
        "app.js": JS_APP,
        "app.test.js": JS_TEST,
        "package.json": '{"name": "app"}\n',
        "jest.config.mjs": ESM_CONFIG,
        "jest.base.mjs": ESM_BASE,
        "conf/environment.mjs": ESM_HELPER,
    }
    return make_repo(tmp_path / "repo", files)


def test_jest_runner_hidden_in_an_es_module_configuration_imported_by_a_computed_path(
    tmp_path: Path, jest_check: str
) -> None:
    """Held since this round: the ES modules jest's configuration loaded in the start's run
    (the preload's module hooks, `loaded.cjs` `LOADER`) are the check's own."""
    files = {"jest.base.mjs": ESM_RUNNER_HIDDEN, "runner.js": JEST_RUNNER}
    held(esm_repo(tmp_path), files, jest_check, "check-script in jest.base.mjs")


def test_legitimate_fix_beside_an_es_module_configuration(tmp_path: Path, jest_check: str) -> None:
    message = honest(esm_repo(tmp_path), {"app.js": JS_FIXED}, jest_check)
    assert "fixbot's observer inside jest (2 tests)" in message
