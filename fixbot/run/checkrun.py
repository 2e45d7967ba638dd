"""One run of the check, the first phase of verifying an attempt (`fixbot.run.verify`): through
the run's launcher, with fixbot's observer loaded into its pytest (`fixbot.observe.channel`)
and the runner asked for its own per-test report where it can write one (`report_for`).

What it gives is the check's `CheckResult` (its log bounded and redacted as it is written,
`fixbot.process.launcher.Launcher`), the per-test outcomes of the runner's report and what the
observer streamed; digesting a failed result is the next phase (`fixbot.run.checkdigest`).
"""

from __future__ import annotations

import dataclasses
import os
import shlex
import tempfile
from collections.abc import Sequence
from pathlib import Path

from fixbot.core.failure import CheckResult
from fixbot.core.observed import Observation
from fixbot.core.settings import Settings
from fixbot.logs.dialects import Report, jest, report_for
from fixbot.observe import goexec, golang
from fixbot.observe.channel import REPORTER, Channel
from fixbot.observe.reporter import relocated, summarized
from fixbot.process import assignments, shellwords
from fixbot.process.launcher import Launcher
from fixbot.process.nofollow import read_file
from fixbot.run import jestenv, jestloaded, npxbin

MAX_REPORT_BYTES = 50_000_000  # a per-test report larger than this is not read (bytes)


@dataclasses.dataclass(frozen=True)
class CheckRun:
    """Where and how the check runs: `settings` (its command, `check`, and `timeout` in
    seconds), the run's `launcher` (`fixbot.process.launcher.launcher_for`: the one way a
    project command runs), `repo` the work tree's root, `workdir` the folder the check runs in,
    `stdin_path` a file fed to its standard input (`inputs-file`) or None, `watch` the node ids
    of the tests the observer watches (`fixbot.observe.pytest_plugin`)."""

    settings: Settings
    launcher: Launcher
    repo: Path
    workdir: Path
    stdin_path: Path | None
    watch: Sequence[str]


def run_check(
    where: CheckRun, log: Path
) -> tuple[CheckResult, dict[str, str] | None, Observation | None]:
    """Run the check through the launcher (the one way a project command runs), its log at
    `log`, with the per-test outcomes of the runner's own report (None: it can write none, or
    wrote none) and what fixbot's observer inside pytest streamed (`fixbot.observe.channel`:
    every pytest the check starts loads it from fixbot's installation; None when the channel
    could not be made, or the check's pytest could not import the plugin: a check that sets
    its own PYTHONPATH where `observed` does not put the folder back (in a nested shell's
    string, quoted before its `=`, in a script) and starts its Python by path (by name, fixbot's
    shims on PATH put the folder back: `fixbot.observe.channel`), or a tox that passes
    PYTEST_ADDOPTS alone, is run again without it, and a fix's run judged unobserved where the
    start's was observed is not verified). The check runs as `observed` makes it: the
    observer's folder first on each PYTHONPATH its words assign, `-p <module>` in each
    PYTEST_ADDOPTS; the result names the check as written (`shown`).

    Where the check's runner can write a structured report (`report_for` its shell words), it
    is asked for one (through its environment, or flags added to a check that is the runner's
    own one simple command: `Report.command`, with fixbot's reporter added to jest's and vitest's
    reporters, `fixbot.observe.reporter`) in a folder made for this run alone, and read as
    soon as the check has ended, when no process of the check is left to rewrite it
    (`Launcher.run`); a report that is the runner's standard output is read from the log,
    which then gets the runner's plain text back (`from_output`)."""
    # the fix's files are named relative to the work tree's root, as the check sees it
    pair = where.launcher.pair
    root = pair.workspace if pair is not None else where.repo
    try:
        path = where.launcher.env.get("PATH", os.defpath)  # the check's: its shims' programs
        channel = Channel.open(where.watch, str(root), path)
    except OSError:
        channel = None
    # an `npx jest` check (`npm exec`, yarn, pnpm, bunx alike) runs jest's own bin, whose process
    # inherits the channel (`npxbin`)
    npx = npxbin.direct(where.settings.check, _workdir(where))
    go = _go(where, channel, root)
    try:
        result, tests, unused, configured = _run(where, log, channel, npx, go)
    finally:
        more, cut = (
            golang.collect(go, channel.nonce, _reader(where.launcher)) if channel else (b"", False)
        )
        seen = channel.close(more, cut) if channel is not None else None
    if seen is not None:  # the node reporter's ids name files as the report's do
        cut = result.cut(where.launcher.max_log_bytes)
        seen = summarized(relocated(seen, where.repo, root), result.log_path, cut)
        seen.environment, seen.configured = unused, configured.files
        seen.unhooked, seen.unthreaded = configured.unhooked, configured.unthreaded
        seen.cut = configured.cut
        seen.unreached, seen.own_main = npx.why or go.why, go.own_main
    if channel is not None and seen is not None and unloaded(channel.module, seen, result):
        result, tests, _, _ = _run(where, log, None)
        seen = None
    return result, tests, seen


def _go(where: CheckRun, channel: Channel | None, root: Path) -> golang.Prepared:
    """fixbot's observer inside the check's go test binaries (`fixbot.observe.golang.prepare`),
    written into `channel`'s folder, the work tree seen by the check at `root` (its folders read
    in fixbot's clone, or there where the clone holds none yet); its records
    folder the commands' user's where they run as another user. Nothing without a channel, or
    where it cannot be written."""
    if channel is None:
        return golang.Prepared()
    who = where.launcher.identity
    owner = (who.uid, who.gid) if who is not None else None
    try:
        # fixbot's clone, or the workspace where the clone holds no files yet (the initial check)
        trees = (where.repo, root)
        return golang.prepare(
            channel.folder, channel.module, trees, root, where.launcher.env, owner
        )
    except OSError:
        return golang.Prepared()


def _reader(launcher: Launcher) -> tuple[int, int]:
    """The commands' user (uid, gid): who must be able to read a file fixbot reads of theirs."""
    who = launcher.identity
    return (who.uid, who.gid) if who is not None else (os.geteuid(), os.getegid())


def _run(
    where: CheckRun,
    log: Path,
    channel: Channel | None,
    npx: npxbin.Direct | None = None,
    go: golang.Prepared | None = None,
) -> tuple[CheckResult, dict[str, str] | None, str, jestloaded.Loaded]:
    """One run of the check with `channel` (None: unobserved), asking its runner for a report
    where it can write one, an observed `npx jest`/`npx vitest` check run as `npx` (the
    runner's local bin, `fixbot.run.npxbin.direct`; None: as written), the go observer's
    variables `go.env` added (`fixbot.observe.golang`; each variable the observed run adds put
    back as the check's own for go's test binaries, `fixbot.observe.goexec`): (the result, the
    per-test outcomes or None, why jest ran without fixbot's test environment: "" where it ran
    with it or the check is not jest's, `fixbot.run.jestenv.prepare`, the files jest's
    configuration loaded, `_environment`)."""
    s = where.settings
    launcher = where.launcher
    fds: tuple[int, ...] = ()
    check = s.check
    if channel is not None:
        fds = channel.fds
        launcher = dataclasses.replace(
            launcher, env={**launcher.env, **_added(launcher, channel, go)}
        )
        check = observed(s.check, channel.folder, channel.module)
        launcher, where, check = _through(launcher, where, check, npx)
    report = report_for(shellwords.words(s.check))
    if report is None:
        plain = launcher.run(check, where.workdir, log, s.timeout, where.stdin_path, fds)
        return shown(plain, check, s.check), None, "", jestloaded.Loaded([], False)
    launcher, environment, unused, configured = _environment(where, launcher, report, channel)
    with tempfile.TemporaryDirectory(prefix="fixbot-report-") as folder:
        path = Path(folder) / (report.file_name or "output")
        check = _asking(where.settings.check, check, report, str(path), channel)
        command = report.command(check, str(path), _reporter(channel), environment)
        if command is None:  # the runner can be asked only where this check cannot
            plain = launcher.run(check, where.workdir, log, s.timeout, where.stdin_path, fds)
            return shown(plain, check, s.check), None, "", jestloaded.Loaded([], False)
        if launcher.identity is not None:  # the check's user writes it, nobody else
            os.chown(folder, launcher.identity.uid, launcher.identity.gid)
        asked = dataclasses.replace(
            launcher, env={**launcher.env, **report.ask(str(path), launcher.env)}
        )
        result = shown(
            asked.run(command, where.workdir, log, s.timeout, where.stdin_path, fds), check, s.check
        )
        if report.plain is not None:
            result, tests = from_output(report, result, asked.max_log_bytes)
        else:
            who = launcher.identity
            reader = (who.uid, who.gid) if who is not None else (os.geteuid(), os.getegid())
            tests = read_report(report, path, reader)
        # the check ran in the commands' workspace (`Launcher.pair`): ids name its paths
        within = launcher.pair.workspace if launcher.pair is not None else where.repo
        return result, relative(relative(tests, where.repo), within), unused, configured


def _added(launcher: Launcher, channel: Channel, go: golang.Prepared | None) -> dict[str, str]:
    """The variables an observed run adds to `launcher`'s environment: the channel's and the go
    observer's; go's `-exec` program (`fixbot.observe.goexec`) written to put each back as the
    check had it for go's test binaries. Raises OSError."""
    added = {**channel.env(launcher.env), **(go.env if go is not None else {})}
    if go is not None and go.program is not None:
        goexec.write(go.program, added, launcher.env)
    return added


def _through(
    launcher: Launcher, where: CheckRun, check: str, npx: npxbin.Direct | None
) -> tuple[Launcher, CheckRun, str]:
    """`launcher`, `where` and `check` made to run the runner's bin where `npx` names one
    (`_pathed`, `_directly`), else unchanged."""
    if npx is None or not npx.bins:
        return launcher, where, check
    return _pathed(launcher, npx), _directly(where, npx), npx.check


def _directly(where: CheckRun, npx: npxbin.Direct) -> CheckRun:
    """`where` with the runner's bin (`npx.check`) as the command that runs and its launcher's
    PATH led by `npx.bins`: `jest --showConfig` runs so too (`_environment`), its jest then
    inheriting the preload's descriptor."""
    settings = where.settings.model_copy(update={"check": npx.check})
    return dataclasses.replace(where, settings=settings, launcher=_pathed(where.launcher, npx))


def _pathed(launcher: Launcher, npx: npxbin.Direct) -> Launcher:
    """`launcher` with `npx.bins` first on its PATH, as npx puts them."""
    path = npx.path(launcher.env.get("PATH", os.defpath))
    return dataclasses.replace(launcher, env={**launcher.env, "PATH": path})


def _workdir(where: CheckRun) -> Path:
    """The folder the check runs in as it sees it (the commands' workspace's, `Launcher.pair`)."""
    pair = where.launcher.pair
    return pair.in_workspace(where.workdir) if pair is not None else where.workdir


def _environment(
    where: CheckRun, launcher: Launcher, report: Report, channel: Channel | None
) -> tuple[Launcher, str | None, str, jestloaded.Loaded]:
    """For an observed jest check, `launcher` naming the project's test environment, the path
    of fixbot's, why none is named (`fixbot.run.jestenv.prepare`: `jest --showConfig` run
    through the check's own launcher, without the channel) and the work tree's files jest's
    configuration loaded then, whether ES modules went unseen and whether a thread ran without
    the preload (`jestloaded.loading`, `jestloaded.Loaded`); else `launcher`, None, "" and none
    loaded."""
    if channel is None or report is not jest.DIALECT.report:
        return launcher, None, "", jestloaded.Loaded([], False)
    s = where.settings
    found: list[str] = []
    output = jestloaded.loading(_passing(where.launcher), channel.folder, found)
    named, environment, why = jestenv.prepare(
        output, s.check, where.workdir, s.timeout, channel.folder
    )
    pair = where.launcher.pair
    root = pair.workspace if pair is not None else where.repo
    launcher = dataclasses.replace(launcher, env={**launcher.env, **named})
    return (
        launcher,
        environment,
        why,
        jestloaded.observed(found, root, jestloaded.tracked(where.repo)),
    )


def _passing(launcher: Launcher) -> jestloaded.Passing:
    """`launcher.output` with variables added to its environment (`NODE_OPTIONS` after its
    own) and descriptors handed to the program (`jestloaded.loading`)."""

    def run(
        argv: list[str], cwd: Path, timeout: float, added: dict[str, str], fds: tuple[int, ...]
    ) -> tuple[int | None, str]:
        env = {**launcher.env, **added}
        if "NODE_OPTIONS" in added and launcher.env.get("NODE_OPTIONS"):
            env["NODE_OPTIONS"] = f"{launcher.env['NODE_OPTIONS']} {added['NODE_OPTIONS']}"
        return dataclasses.replace(launcher, env=env).output(argv, cwd, timeout, fds)

    return run


def observed(
    check: str, folder: Path | None, module: str | None, options: Sequence[str] = ()
) -> str:
    """`check` with the observer's `folder` put first in each PYTHONPATH value it assigns
    itself (`PYTHONPATH=src python -m unittest` -> `PYTHONPATH='<folder>':src ...`, also after
    `export` and `env`) and `-p <module>` and then `options` (the words of the JUnit report
    fixbot asks pytest for) added to each PYTEST_ADDOPTS value it assigns
    (`PYTEST_ADDOPTS="-x"' -p <module>'`), which would otherwise replace the ones `Channel.env`
    and the report's `ask` export and leave the check unobserved and its report unwritten.
    `folder` and `module` None: the check is not observed, `options` alone are added. Quotes of
    a value are kept: the added text is a quoted word of its own joined to the value. `check`
    unchanged where it assigns neither, or where an assigning word is quoted before its `=`
    (`export "PYTHONPATH=src"`, no offset to insert at outside the quotes: that check's Python
    runs unobserved unless started by name, through fixbot's shims, `fixbot.observe.channel`)."""
    inserts: list[tuple[int, str]] = []
    paths = assignments.assignment_values(check, "PYTHONPATH")
    values = assignments.assignment_values(check, "PYTEST_ADDOPTS")
    if paths is None or values is None:
        return check
    if folder is not None:
        first = shlex.quote(str(folder))
        for start, end in paths:  # an empty value gets the folder alone (`:` would add the cwd)
            inserts.append((start, first + (os.pathsep if end > start else "")))
    words = [*(["-p", module] if module is not None else []), *options]
    if words:
        added = shlex.quote(" " + shlex.join(words))
        inserts += [(end, added) for _, end in values]
    out, last = [], 0
    for at, text in sorted(inserts):
        out += [check[last:at], text]
        last = at
    return "".join([*out, check[last:]])


def _asking(check: str, ran: str, report: Report, path: str, channel: Channel | None) -> str:
    """The command `ran` for the project's `check` with the options that ask for `report` at
    `path` through PYTEST_ADDOPTS added to each value the check assigns itself (`observed`),
    which would otherwise replace them: `ran` where the report is asked otherwise."""
    options = shlex.split(report.ask(path, {}).get("PYTEST_ADDOPTS", ""))
    if not options:
        return ran
    at, module = (channel.folder, channel.module) if channel is not None else (None, None)
    return observed(check, at, module, options)


def shown(result: CheckResult, ran: str, check: str) -> CheckResult:
    """`result` naming the project's own `check` where the command that ran was `ran`, its
    observed form (`observed`): the log and the report show the project's words."""
    if result.command != ran or ran == check:
        return result
    return result.model_copy(update={"command": check})


def _reporter(channel: Channel | None) -> str | None:
    """The path of fixbot's reporter for jest and vitest in the observer's folder, None without
    a channel."""
    reporter = channel.reporter if channel is not None else None
    return str(reporter) if reporter else None


def unloaded(module: str, seen: Observation, result: CheckResult) -> bool:
    """Whether a pytest of the check failed to import the observer's plugin `module` (its name
    in the log, pytest's `Error importing plugin`), or jest or vitest failed to load fixbot's
    reporter (its file, `<module>_reporter.cjs`, named in the log: jest's `Could not resolve a
    module for a custom reporter`), or a go package failed to build with the go observer's file
    (`<module>_test.go` named in the log: a check that asks `go test -vet=...` itself, whose vet
    cannot read the overlay's file, `fixbot.observe.golang`; or the copy the overlay maps it to,
    `<module>_go_<package>.go`, `<module>_main_<digest>.go`, which go names when the observer's
    file does not compile: a module's older go language), and none streamed: the check's
    environment did not let the observer's folder through, and the observer broke a check it
    should watch."""
    if seen.sessions or result.passed:
        return False
    try:
        text = result.log_path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    named = (f"No module named '{module}'", f"{module}_{REPORTER.name}", f"{module}_test.go")
    copies = (f"{module}_go_", f"{module}_main_")  # the observer's copies, as go names them
    return any(name in text for name in named + copies)


def read_report(
    report: Report, path: Path, reader: tuple[int, int] | None = None
) -> dict[str, str] | None:
    """The per-test outcomes in the report file at `path`, None when there is none, it is not a
    regular file reached without a link (a link to `/proc/kmsg` would block, one to a root-only
    XML would be read as verdicts), the commands' user `reader` (uid, gid) could not read it,
    it grows past `MAX_REPORT_BYTES` while read, or it is not a report of its kind."""
    try:
        data = read_file(path, MAX_REPORT_BYTES, reader)
        return report.read(data.decode("utf-8", errors="replace"))
    except (OSError, ValueError):
        return None


def from_output(
    report: Report, result: CheckResult, max_log_bytes: int
) -> tuple[CheckResult, dict[str, str] | None]:
    """The per-test outcomes a runner wrote into its own output (`go test -json`), read from the
    check's log, and the result with the log and tail turned back into the runner's plain text
    (`report.plain`), which the dialects read. None when the output was longer than the log
    keeps (`max_log_bytes`: the verdicts in the dropped middle are unknown) or holds no report."""
    if report.plain is None:
        return result, None
    try:
        # the bounded log passes bytes that are not UTF-8 through unchanged: so does this
        text = result.log_path.read_text(encoding="utf-8", errors="surrogateescape")
    except OSError:
        return result, None
    try:
        tests = None if result.cut(max_log_bytes) else report.read(text)
    except ValueError:
        tests = None
    plain = report.plain(text)
    try:
        result.log_path.write_bytes(plain.encode("utf-8", errors="surrogateescape"))
    except UnicodeEncodeError:  # a decoded JSON string may hold a surrogate no byte stands for
        result.log_path.write_bytes(plain.encode("utf-8", errors="replace"))
    return result.model_copy(update={"tail": report.plain(result.tail)}), tests


def relative(tests: dict[str, str] | None, root: Path) -> dict[str, str] | None:
    """`tests` with the work tree's absolute path taken off the ids that start with it (jest and
    vitest name a test's file by its absolute path), so ids compare across work trees."""
    if tests is None:
        return None
    prefix = f"{root}/"
    return {test.removeprefix(prefix): outcome for test, outcome in tests.items()}
