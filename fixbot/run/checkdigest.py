"""A failed check digested in the run's context, the second phase of verifying an attempt
(`fixbot.run.verify`), after the check ran (`fixbot.run.checkrun`): `fixbot.logs.digest`
reads the log alone; here its `Failure` gets what only the run knows. Its locations become
repository-relative (the folder the check ran in, the workspace, a Go package's folder), a
missing check program is permanent, and a missing Python package the check's interpreter has
after all is the code's problem.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from fixbot.core.failure import CheckResult, Classification, ErrorClass, Failure
from fixbot.core.repofiles import regular_text
from fixbot.core.settings import Settings
from fixbot.ecosystems import python
from fixbot.logs.dialects import go
from fixbot.logs.digest import digest, of_failed_check
from fixbot.logs.signature import parse_counts
from fixbot.policy.recovery import check_program_missing
from fixbot.process.launcher import Launcher


def digest_check(
    settings: Settings,
    result: CheckResult,
    repo: Path,
    workdir: Path,
    env: Mapping[str, str],
    launcher: Launcher,
) -> Failure:
    """Digest the failed `result` of the check run in `workdir` (inside the work tree `repo`,
    with the environment `env`, through the run's `launcher`); locations become relative to
    the repository root, the counts come from the whole output's tail when the condensed log
    lost the summary line, a missing check program is permanent (`program_missing`), and a
    missing Python package the check's interpreter has after all is the code's problem
    (`installed_after_all`). Locations are looked for in fixbot's clone: its files are written
    first."""
    if launcher.pair is not None:
        launcher.pair.write_files()
    failure = program_missing(settings, digest(result, workdir))
    failure = in_go_packages(failure, workdir)
    failure = installed_after_all(failure, env.get("PATH", ""), launcher)
    if failure.counts.problems is None and result.tail:
        counts = of_failed_check(parse_counts(result.tail))
        failure = failure.model_copy(update={"counts": counts})
    workspace = launcher.pair.workspace if launcher.pair is not None else None
    if workdir == repo:
        return in_repository(failure, workspace)
    prefix = workdir.relative_to(repo)
    moved = [
        loc.model_copy(update={"path": (prefix / loc.path).as_posix()})
        if not Path(loc.path).is_absolute() and (workdir / loc.path).exists()
        else loc
        for loc in failure.locations
    ]
    return in_repository(failure.model_copy(update={"locations": moved}), workspace)


def program_missing(settings: Settings, failure: Failure) -> Failure:
    """`failure`, made permanent (`command_not_found`) when the check's own program is missing
    (`python -m pytest` printing `No module named pytest`): no code change can fix that."""
    missing = failure.classification.category == "missing_dependency"
    if failure.classification.error_class is ErrorClass.PERMANENT and not missing:
        return failure
    if check_program_missing(settings.check, failure.condensed) is None:
        return failure
    permanent = Classification(
        error_class=ErrorClass.PERMANENT, category="command_not_found", rule="missing_program"
    )
    return failure.model_copy(update={"classification": permanent})


def in_repository(failure: Failure, workspace: Path | None) -> Failure:
    """`failure` with its absolute locations inside `workspace` (the folder the check ran in,
    `Launcher.pair.workspace`; not fixbot's clone, whose path the output never names) made
    repository-relative, so that the first request shows their code. Unchanged without one."""
    if workspace is None:
        return failure
    roots = list(dict.fromkeys((workspace, workspace.resolve())))
    moved = []
    for loc in failure.locations:
        path = Path(loc.path)
        root = next((r for r in roots if path.is_absolute() and path.is_relative_to(r)), None)
        if root is not None:
            loc = loc.model_copy(update={"path": path.relative_to(root).as_posix()})
        moved.append(loc)
    return failure.model_copy(update={"locations": moved})


def in_go_packages(failure: Failure, workdir: Path) -> Failure:
    """`failure` with each relative location that is no file of `workdir` but is one of a Go
    package's folder made relative to `workdir`: go test prints a test file's lines relative to
    its package (`parse_test.go:12` for `fastfloat/parse_test.go`), and the first request shows
    only the code of files it finds. The packages are the ones the log names under the module
    `workdir/go.mod` declares, failed ones first; unchanged without a go.mod."""
    text = regular_text(workdir, workdir / "go.mod")
    module = None if text is None else go.module_path(text)
    if module is None:
        return failure
    folders = go.package_folders(failure.condensed, module)
    moved = []
    for loc in failure.locations:
        if not Path(loc.path).is_absolute() and not (workdir / loc.path).is_file():
            inside = next((f for f in folders if (workdir / f / loc.path).is_file()), None)
            if inside is not None:
                loc = loc.model_copy(update={"path": f"{inside}/{loc.path}"})
        moved.append(loc)
    return failure.model_copy(update={"locations": moved})


def installed_after_all(failure: Failure, search_path: str, launcher: Launcher) -> Failure:
    """`failure`, made fixable again ("import") when the Python package it names as missing is
    installed in the check's own interpreter (the first Python on `search_path`, asked through
    the run's `launcher`, see `fixbot.agent.research.find_python`): `No module named 'pkg.sub'`
    of an installed `pkg` is the code's problem. Without an interpreter to ask, the
    repository's verdict stands."""
    missing = failure.classification.missing
    if missing is None or missing.ecosystem != python.ECOSYSTEM.name:
        return failure
    # imported here: only a missing Python package needs the model's research helpers, and a
    # run without one never loads the agent package
    from fixbot.agent.research import ResearchError, find_python

    try:
        package = find_python(missing.name, search_path, launcher)
    except ResearchError:
        return failure
    if package is None:
        return failure
    note = f"`{missing.name}` is installed ({package.version}): the import fails in the code"
    if missing.provides:  # the plugin is there and pytest did not load it: its configuration
        note = f"`{missing.name}` is installed ({package.version}) but {missing.provides} is not"
    fixable = Classification(
        error_class=ErrorClass.FIXABLE, category="import", rule="import", note=note
    )
    return failure.model_copy(update={"classification": fixable})
