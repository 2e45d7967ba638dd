"""What the check's environment lacks that is not an import: a pytest plugin's fixture, a
program the tests run, read from the words of the tool that missed it (pure).

A fixture pytest reports as `fixture 'x' not found` is a missing plugin only when `x` is in
`PLUGIN_FIXTURES` (the fixtures well-known plugins register, from each plugin's own
documentation); any other name is a typo or a fixture the code must define. A program is
missing when the spawning call says so with the program's bare name (no folder in it: a path
is a file of the project or the code's problem): Python's `subprocess` raising
`FileNotFoundError` from `_execute_child`, node's `spawn x ENOENT` / `spawnSync x ENOENT`, Go's
`exec: "x": executable file not found in $PATH`, and `env`'s `/usr/bin/env: 'x': No such file
or directory` (a script whose `#!/usr/bin/env node` finds no node). `fixbot.logs.missing`
reads the name and decides with the repository's files; `fixbot.logs.classify` carries
`STATED` in its `missing_dependency` rule.
"""

from __future__ import annotations

import re

# fixture -> the distribution that registers it (each plugin's documentation)
PLUGIN_FIXTURES = {
    **dict.fromkeys(
        ("mocker", "class_mocker", "module_mocker", "package_mocker", "session_mocker"),
        "pytest-mock",
    ),
    "benchmark": "pytest-benchmark",
    "httpx_mock": "pytest-httpx",
    "requests_mock": "requests-mock",
    "respx_mock": "respx",
    "freezer": "pytest-freezer",
    "time_machine": "time-machine",
    "snapshot": "syrupy",
    "httpserver": "pytest-httpserver",
    **dict.fromkeys(("aiohttp_client", "aiohttp_server"), "pytest-aiohttp"),
    **dict.fromkeys(("unused_tcp_port", "unused_tcp_port_factory"), "pytest-asyncio"),
    "qtbot": "pytest-qt",
    "fs": "pyfakefs",
    "faker": "Faker",
    **dict.fromkeys(("datadir", "shared_datadir", "original_datadir"), "pytest-datadir"),
    "xprocess": "pytest-xprocess",
    **dict.fromkeys(
        ("rf", "admin_client", "django_user_model", "django_db_setup", "django_assert_num_queries"),
        "pytest-django",
    ),
    **dict.fromkeys(
        ("data_regression", "file_regression", "num_regression", "image_regression"),
        "pytest-regressions",
    ),
    "docker_services": "pytest-docker",
    "postgresql": "pytest-postgresql",
    "redisdb": "pytest-redis",
    "cov": "pytest-cov",
    **dict.fromkeys(("worker_id", "testrun_uid"), "pytest-xdist"),
}
FIXTURE = (
    r"\bfixture '(?P<name>"
    + "|".join(sorted(map(re.escape, PLUGIN_FIXTURES), key=len, reverse=True))
    + r")' not found"
)
QUOTES = "'\u2018\u2019"  # env quotes the name in the locale's quotes
BARE = rf"[^\s\"/`{QUOTES}]+"  # a program's name: no folder, no quote
PROGRAM = (
    rf"_execute_child\b(?:.*\n){{0,300}}?.*?FileNotFoundError: \[Errno 2\] "
    rf"No such file or directory: '(?P<name>{BARE})'",
    rf"\bspawn(?:Sync)? (?P<name>{BARE}) ENOENT\b",
    rf'\bexec: "(?P<name>{BARE})": executable file not found in \$PATH',
    rf"(?:^|\s)\S*/env: [{QUOTES}]?(?P<name>{BARE})[{QUOTES}]?: No such file or directory",
)
FIXTURE_RE = re.compile(FIXTURE)
PROGRAM_RES = tuple(re.compile(p, re.MULTILINE) for p in PROGRAM)
STATED = "|".join(p.replace("(?P<name>", "(?:") for p in (FIXTURE, *PROGRAM))


def absent(text: str) -> tuple[str, str, int] | None:
    """(`fixture` or `program`, its name, where it stands in `text`) of the first missing
    plugin fixture or program `text` reports, None when it reports none."""
    found = [("fixture", m) for m in [FIXTURE_RE.search(text)] if m]
    found += [("program", m) for pattern in PROGRAM_RES if (m := pattern.search(text))]
    if not found:
        return None
    kind, match = min(found, key=lambda item: item[1].start("name"))
    return kind, match["name"], match.start("name")
