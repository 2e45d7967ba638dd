"""Verify an attempt: run the check (transient failures re-run after backoff), digest the
failure, and record the result in the attempt.

The logs go to `<state dir>/attempts/NNN/check.log` (`check-retryN.log` for re-runs), bounded and
redacted as they are written (`fixbot.process.launcher.Launcher`); the digested `Failure` of each
attempt is kept in memory and re-digested from its log after a resume.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tenacity import RetryCallState, Retrying, retry_if_result, stop_after_attempt, stop_any
from tenacity.stop import stop_base

from fixbot.core.failure import CheckResult, Classification, ErrorClass, Failure
from fixbot.core.models import Attempt
from fixbot.core.observed import Observation
from fixbot.core.settings import Settings
from fixbot.ecosystems import python
from fixbot.logs.condense import explaining_lines
from fixbot.logs.dialects import Report, go, report_for
from fixbot.logs.digest import digest, of_failed_check, passed_counts
from fixbot.logs.joblog import FirstFailure
from fixbot.logs.signature import parse_counts, said_failed
from fixbot.observe.channel import Channel
from fixbot.policy import breaker
from fixbot.policy.recovery import check_program_missing
from fixbot.process import shellwords
from fixbot.process.launcher import Launcher
from fixbot.process.nofollow import read_file
from fixbot.run.eventlog import EventLog
from fixbot.security.redact import Redactor
from fixbot.ui.progress import Progress

EXCERPT_LINES = 25
MAX_REPORT_BYTES = 50_000_000  # a per-test report larger than this is not read (bytes)


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
    try:
        module = go.module_path((workdir / "go.mod").read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return failure
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


def is_transient(failure: Failure | None) -> bool:
    """True for a failure the loop re-runs after backoff instead of fixing."""
    return failure is not None and failure.classification.error_class is ErrorClass.TRANSIENT


@dataclass
class Checker:
    """Runs the check for attempts of one run: `repo` is the work tree's root (logs and paths are
    relative to it), `workdir` the folder the check runs in, `env` the check's environment,
    `launcher` the run's (`fixbot.process.launcher.launcher_for`: the one way a project command
    runs, its deadline the run's budget)."""

    settings: Settings
    repo: Path
    workdir: Path
    state_dir: Path
    redactor: Redactor
    progress: Progress
    env: Mapping[str, str]
    events: EventLog  # the run's event log (`fixbot.run.reflect.event_log`)
    launcher: Launcher
    sleep: Callable[[float], None] = time.sleep
    failures: dict[int, Failure] = field(default_factory=dict)
    stdin_path: Path | None = None  # fed to the check's standard input (`inputs-file`)
    # the node ids of the tests that failed at the start, whose bodies and comparisons the
    # observer watches in a verifying run (`fixbot.observe.pytest_plugin`)
    watch: list[str] = field(default_factory=list)

    def run_command(
        self, log: Path
    ) -> tuple[CheckResult, dict[str, str] | None, Observation | None]:
        """Run the check through the launcher (the one way a project command runs), with the
        per-test outcomes of the runner's own report (None: it can write none, or wrote none)
        and what fixbot's observer inside pytest streamed (`fixbot.observe.channel`: every
        pytest the check starts loads it from fixbot's installation; None when the channel
        could not be made, or the check's pytest could not import the plugin: a check that
        sets its own PYTHONPATH, or a tox that passes PYTEST_ADDOPTS alone, is run again without
        it, and a fix's run judged unobserved where the start's was observed is not verified).

        Where the check's runner can write a structured report (`report_for` its shell words),
        it is asked for one (through its environment, or flags added to a check that is the
        runner's own one simple command: `Report.command`) in a folder made for this run alone,
        and read as soon as the check has ended, when no process of the check is left to
        rewrite it (`Launcher.run`); a report that is the runner's standard output is read
        from the log, which then gets the runner's plain text back (`from_output`)."""
        # the fix's files are named relative to the work tree's root, as the check sees it
        root = self.launcher.pair.workspace if self.launcher.pair is not None else self.repo
        try:
            channel = Channel.open(self.watch, str(root))
        except OSError:
            channel = None
        try:
            result, tests = self._run(log, channel)
        finally:
            seen = channel.close() if channel is not None else None
        if channel is not None and seen is not None and unloaded(channel.module, seen, result):
            result, tests = self._run(log, None)
            seen = None
        return result, tests, seen

    def _run(self, log: Path, channel: Channel | None) -> tuple[CheckResult, dict[str, str] | None]:
        s = self.settings
        launcher = self.launcher
        fds: tuple[int, ...] = ()
        if channel is not None:
            fds = channel.fds
            launcher = dataclasses.replace(
                launcher, env={**launcher.env, **channel.env(launcher.env)}
            )
        report = report_for(shellwords.words(s.check))
        if report is None:
            return launcher.run(s.check, self.workdir, log, s.timeout, self.stdin_path, fds), None
        with tempfile.TemporaryDirectory(prefix="fixbot-report-") as folder:
            path = Path(folder) / (report.file_name or "output")
            command = report.command(s.check, str(path))
            if command is None:  # the runner can be asked only where this check cannot
                plain = launcher.run(s.check, self.workdir, log, s.timeout, self.stdin_path, fds)
                return plain, None
            if launcher.identity is not None:  # the check's user writes it, nobody else
                os.chown(folder, launcher.identity.uid, launcher.identity.gid)
            asked = dataclasses.replace(
                launcher, env={**launcher.env, **report.ask(str(path), launcher.env)}
            )
            result = asked.run(command, self.workdir, log, s.timeout, self.stdin_path, fds)
            if report.plain is not None:
                result, tests = from_output(report, result, asked.max_log_bytes)
            else:
                who = launcher.identity
                reader = (who.uid, who.gid) if who is not None else (os.geteuid(), os.getegid())
                tests = read_report(report, path, reader)
            # the check ran in the commands' workspace (`Launcher.pair`): ids name its paths
            where = launcher.pair.workspace if launcher.pair is not None else self.repo
            return result, relative(relative(tests, self.repo), where)

    def check(self, attempt: Attempt) -> Failure | None:
        """Run the check up to 1 + max_transient_retries times while it fails transiently;
        record the last run in `attempt` and return its Failure (None when green)."""
        tries = itertools.count()
        retrying = Retrying(
            stop=stop_any(
                stop_after_attempt(self.settings.max_transient_retries + 1), _Deadline(self)
            ),
            wait=breaker.backoff_wait(self.settings.backoff),
            retry=retry_if_result(is_transient),
            sleep=self.sleep,
            retry_error_callback=lambda state: state.outcome.result() if state.outcome else None,
        )
        failure: Failure | None = retrying(lambda: self.run_once(attempt, next(tries)))
        self.report(attempt, failure)
        return failure

    def out_of_time(self) -> bool:
        """True once the run's `max-duration` is spent (the launcher's deadline): no re-run."""
        return self.launcher.deadline.spent()

    def run_once(self, attempt: Attempt, retry_index: int) -> Failure | None:
        """Run the check once, store the result in `attempt`, return the Failure (None if green)."""
        name = "check.log" if retry_index == 0 else f"check-retry{retry_index}.log"
        log = self.state_dir / "attempts" / f"{attempt.number:03d}" / name
        result, attempt.tests, attempt.seen = self.run_command(log)
        attempt.observed = []
        attempt.exit_code, attempt.timed_out = result.exit_code, result.timed_out
        attempt.passed = result.passed
        attempt.check_duration_s += result.duration_s
        attempt.transient_retries = retry_index
        attempt.log_path = str(log.relative_to(self.repo))
        self.emit("check", attempt, result, retry_index)
        if result.passed:
            attempt.signature = attempt.error_class = attempt.category = None
            # how many tests the green run ran: fewer than the first failing run is a suspected
            # cheat (`fixbot.tamper.cheats.fewer_tests`); counted over the whole log, as the
            # failing run's are
            attempt.counts = passed_counts(result)
            # the runner's own last words beat the exit code (`said_failed`)
            attempt.observed = said_failed(result.tail)
            self.failures.pop(attempt.number, None)
            return None
        return self.record(attempt, result)

    def run_original(
        self, attempt: Attempt
    ) -> tuple[CheckResult, dict[str, str] | None, Observation | None]:
        """Run the check once more for `attempt`, on whatever tree the caller has set (the start
        commit's tests: `fixbot.run.phases.fixing`), its log `check-original.log`; the attempt's
        own result is left as it is."""
        log = self.state_dir / "attempts" / f"{attempt.number:03d}" / "check-original.log"
        return self.run_command(log)

    def seed(self, attempt: Attempt, first: FirstFailure) -> Failure:
        """Record `first` (a failure log from elsewhere) as `attempt`'s failed check: its text
        becomes the attempt's `check.log` (redacted) and is digested; nothing is run."""
        log = self.state_dir / "attempts" / f"{attempt.number:03d}" / "check.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text(self.redactor.redact(first.text) + "\n", encoding="utf-8")
        code = first.exit_code or 1  # a log given as failed is failed, whatever it says
        attempt.exit_code, attempt.timed_out, attempt.passed = code, False, False
        attempt.log_path = str(log.relative_to(self.repo))
        size = log.stat().st_size
        result = CheckResult(
            command=self.settings.check,
            exit_code=code,
            duration_s=0.0,
            log_path=log,
            output_bytes=size,
        )
        failure = self.record(attempt, result)
        self.report(attempt, failure)
        return failure

    def record(self, attempt: Attempt, result: CheckResult) -> Failure:
        """Digest the failed `result` and record its signature, class and excerpt in `attempt`."""
        failure = self.digest(result)
        self.failures[attempt.number] = failure
        self.emit("classification", attempt, failure)
        attempt.signature = failure.signature
        attempt.error_class = failure.classification.error_class
        attempt.category = failure.classification.category
        attempt.counts = failure.counts
        excerpt = explaining_lines(failure.condensed, EXCERPT_LINES)
        attempt.excerpt = self.redactor.redact(excerpt)
        if failure.classification.error_class is ErrorClass.TRANSIENT:
            category = failure.classification.category
            self.progress.line(f"  transient failure ({category}), will re-run")
        return failure

    def emit(
        self, event: str, attempt: Attempt, what: CheckResult | Failure, retry: int = 0
    ) -> None:
        """Log a check run or a failure's classification in the run's event log."""
        if isinstance(what, CheckResult):
            self.events.emit(
                event,
                attempt.number,
                exit_code=what.exit_code,
                timed_out=what.timed_out,
                duration_ms=round(what.duration_s * 1000),
                output_bytes=what.output_bytes,
                retry=retry,
                log=attempt.log_path,
            )
            return
        c = what.classification
        self.events.emit(
            event,
            attempt.number,
            error_class=c.error_class.value,
            category=c.category,
            rule=c.rule,
            signature=what.signature,
            problems=what.counts.problems,
        )

    def carry_over(self, attempt: Attempt, previous: Attempt) -> None:
        """Nothing changed (or the fixer failed): `previous`'s check result stands, no re-run."""
        attempt.carry_check(previous)
        if previous.number in self.failures:
            self.failures[attempt.number] = self.failures[previous.number]
        self.progress.line("  nothing changed: the previous check result stands (not re-run)")

    def digest(self, result: CheckResult) -> Failure:
        """Digest a failed check; locations become relative to the repository root, the counts
        come from the whole output's tail when the condensed log lost the summary line, a
        missing check program is permanent (`program_missing`), and a missing Python package
        the check's interpreter has after all is the code's problem (`installed_after_all`).
        Locations are looked for in fixbot's clone: its files are written first."""
        if self.launcher.pair is not None:
            self.launcher.pair.write_files()
        failure = program_missing(self.settings, digest(result, self.workdir))
        failure = in_go_packages(failure, self.workdir)
        failure = installed_after_all(failure, self.env.get("PATH", ""), self.launcher)
        if failure.counts.problems is None and result.tail:
            counts = of_failed_check(parse_counts(result.tail))
            failure = failure.model_copy(update={"counts": counts})
        workspace = self.launcher.pair.workspace if self.launcher.pair is not None else None
        if self.workdir == self.repo:
            return in_repository(failure, workspace)
        prefix = self.workdir.relative_to(self.repo)
        moved = [
            loc.model_copy(update={"path": (prefix / loc.path).as_posix()})
            if not Path(loc.path).is_absolute() and (self.workdir / loc.path).exists()
            else loc
            for loc in failure.locations
        ]
        return in_repository(failure.model_copy(update={"locations": moved}), workspace)

    def failure_of(self, attempt: Attempt) -> Failure | None:
        """The Failure of a finished attempt, re-digested from its log after a resume."""
        if attempt.passed or attempt.log_path is None:
            return None
        if attempt.number not in self.failures:
            log = self.repo / attempt.log_path
            result = CheckResult(
                command=self.settings.check,
                exit_code=attempt.exit_code,
                timed_out=attempt.timed_out,
                duration_s=attempt.check_duration_s,
                log_path=log,
                output_bytes=log.stat().st_size if log.exists() else 0,
            )
            self.failures[attempt.number] = self.digest(result)
        return self.failures[attempt.number]

    def report(self, attempt: Attempt, failure: Failure | None) -> None:
        """One progress line for a finished check."""
        if failure is None:
            self.progress.line(f"  check passed ({attempt.check_duration_s:.1f} s)")
            return
        counts = failure.counts.problems
        self.progress.line(
            f"  check failed: exit {attempt.exit_code}, {attempt.error_class}/{attempt.category}, "
            f"signature {(attempt.signature or '')[:12]}"
            + (f", {counts} failing" if counts is not None else "")
        )


def unloaded(module: str, seen: Observation, result: CheckResult) -> bool:
    """Whether a pytest of the check failed to import the observer's plugin `module` (its name
    in the log, pytest's `Error importing plugin`) and none streamed: the check's environment
    did not let the plugin's folder through, and the plugin broke a check it should watch."""
    if seen.sessions or result.passed:
        return False
    try:
        text = result.log_path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return f"No module named '{module}'" in text


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
        tests = None if result.output_bytes > max_log_bytes else report.read(text)
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


class _Deadline(stop_base):
    """Tenacity stop: no transient re-run once the run's `max-duration` is spent."""

    def __init__(self, checker: Checker) -> None:
        self.checker = checker

    def __call__(self, retry_state: RetryCallState) -> bool:
        return self.checker.out_of_time()
