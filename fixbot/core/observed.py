"""What fixbot's observer inside the test runner saw during one check run, as data
(`fixbot.observe.channel` reads it from the stream; `fixbot.observe.judge` compares two)."""

from __future__ import annotations

from pydantic import BaseModel, Field

MAX_REACHED = 200  # `Reach` records an observation keeps at most (the stream's first ones)
MAX_COMPARED = 5000  # comparisons of the watched bodies an observation keeps at most
MAX_STREAM_BYTES = 64 * 1024 * 1024  # a stream longer than this is cut (`Observation.overflow`)


class Comparison(BaseModel):
    """A comparison dunder a watched test ran: the test, the type (`module.Qualname`), the
    dunder, where its code is (`file` as the code object names it, relative to the rootdir;
    `built` when no such file exists: code compiled at run time), and whether it held against
    an object nothing can know (`always`: `__eq__` true, `__ne__` false; None: not asked, as
    for `__bool__`); `aliased` names what stands as the dunder that no profile function sees
    run as it: a method implemented in C under another name (`int.__le__` as `__eq__`), a
    `functools.partial`, a `staticmethod`;
    `via` is the file (relative to the rootdir) of the project's code that handed a value of
    the type back to the test's body, where the type is defined outside the project
    (`unittest.mock.ANY` returned by the code under test, or by a library's method called on
    an instance a project module holds: a `MagicMock` standing as the function); `tolerant`
    says such a handed-back value's `__eq__` was equal to the int or float the test compared
    it with and to a neighbour its type tells apart from it (`pytest.approx(4, abs=1)`); `fn`
    and `obj` are the identities (in the observed process) of the function and the instance
    probed (0: not sent); `again` what the dunder answered, asked after the call, the question
    the test asked it (the same other operand; None: not a bool, or not asked); `made` a class
    of the project's found among the classes it made, not among the values the test compared
    or was handed (counted for the fix's files alone)."""

    test: str
    type: str
    dunder: str
    file: str
    line: int = 0
    always: bool | None = None
    built: bool = False
    aliased: str | None = None
    via: str | None = None
    tolerant: bool = False
    fn: int = 0
    obj: int = 0
    again: bool | None = None
    made: bool = False


class Sighting(BaseModel, frozen=True):
    """A comparison dunder of a Python type a watched test's call ran, streamed by the
    observer's profile function the moment it ran (`fixbot.observe.watch`): the test, where
    the dunder's code is (`file` relative to the rootdir, or `<string>`, and its first
    `line`), the dunder, the type's qualified name, and the identities of the function and the
    instance (in the observed process). Each is judged when the call ends (a `Comparison` of
    the same test, file, line, dunder, function and instance); one never judged was taken out
    of what the observer judges, or swapped for another before it was."""

    test: str
    file: str
    line: int = 0
    dunder: str = ""
    type: str = ""
    fn: int = 0
    obj: int = 0


class Operand(BaseModel, frozen=True):
    """One operand's type as a comparison of a test's body saw it (`fixbot.observe.operands`):
    its `type` as the class names itself (`module.Qualname`, claimed), `c` when the comparison
    is decided in C by a type's own code (no heap type, or a heap type whose comparison
    dunders are each a slot wrapper of the class holding it), else `owner`, the class and
    dunder that decide it (`Qualname.__eq__`), and `code`, a digest of that dunder's code
    where it is a Python function ("-" otherwise)."""

    type: str
    c: bool = True
    owner: str = ""
    code: str = ""


class Compared(BaseModel, frozen=True):
    """A comparison a test's body made: the test, the line of the body it was at, its operator
    (`==`, `<`..., `in`, `not in`; "bool" for a truth test, `assert r`,
    `fixbot.observe.truth`) and the two operands (a containment's item, then its container; a
    truth test's one). `nested` where it was made in a frame of other code of the test
    module's (a generator expression, a helper) while the body ran: `line` is then the body's
    line that ran it, not the comparison's own."""

    test: str
    line: int
    op: str
    operands: tuple[Operand, ...] = ()
    nested: bool = False


class Reach(BaseModel, frozen=True):
    """An audit event (PEP 578) through which code reaches objects it holds no name for
    (`gc.get_objects`, `sys.setprofile`, `ctypes`, ...: `fixbot.observe.reach.EVENTS`), raised
    under the project's code: `file` is the innermost project file on the stack (relative to
    the work tree's root, or pytest's rootdir where fixbot named none; empty where no project
    code is on the stack: a thread's, a callback's), `by` the file of the code that raised it
    (a library's, or an installed copy of the project's, where not `file`)."""

    event: str
    file: str
    by: str = ""


class Observation(BaseModel):
    """One check run as the observer streamed it (`fixbot.observe.pytest_plugin`).

    `sessions` pytest sessions began and `ended` of them sent their end record; `tests` is
    `{node id: "passed" | "failed" | "skipped"}` (the worst outcome of a test's phases);
    `bodies` says for each watched test whether its body was entered; `comparisons` the
    comparison dunders the watched tests ran, as judged when each call ended, and `saw` those
    the profile function streamed as each ran (20 per test at most); `machinery` the runner's
    objects that were no longer those the observer captured at load; `hooks` the `hook plugin`
    pairs implementing the hooks a verdict is shaped through; `statuses` each session's exit
    status; `forged` counts lines on the channel without the run's nonce; `overflow` is True
    when the stream was longer than fixbot reads (the rest is unknown); `distributed` when a
    session ran its tests in xdist workers (their bodies are not observed). `watching` are the
    tests the observer said it watched as each session began; `called` are the tests with a
    report of their call phase (a test whose call never reported did not pass, whatever its
    setup said); `tampered` says, per watched test, what changed around it after collection (its
    function, the globals it reads, the observer's profile function); `known` are the
    known-answer test's outcomes as pytest's machinery reported them, `at: outcome` ("end:
    failed" is the only right answer; "unavailable" where it could not be asked); `reached` the
    audit events the project's code raised to reach what it holds no name for. `exits` says, per
    watched test, how its body left each call reported passed, as the observer streamed it when
    the call ended ("returned", "raised", "unseen", "unentered", "native": no Python function;
    "missing": no record of it came before the report); `doubled` the watched tests with an exit
    record no call of theirs took (more than one before a call's report, or one after the last);
    `plugins` each plugin pytest held, by its stable name, with the work tree's file it comes
    from ("" for an installed one). `digests` holds, per test that failed or was watched, the
    digests of the body's code its calls began with (`bodies._code_digest`; 16 hex
    digits, distinct values), `sources` the files that code names, relative to pytest's
    rootdir ("/" outside it), `classes` the files a unittest test's classes were made in
    (its type's MRO below `TestCase`, relative to the work tree's root, "?" unknown: its
    observer's, `unittest_asserts._class_files`; `alike.rebased`; those of a failing test that
    hold test support are the tests', `fixbot.run.phases.judging.helpers`), `failers` per
    unittest test, the files each of its failures' tracebacks went through into unittest's
    failing machinery, innermost first (`unittest_failers._chain`; read by
    `fixbot.observe.failchains.supports`), `traced` the tests
    whose call had a trace function set as it began, `traced_after` those with one set as it
    ended.
    `loaded` holds, per observed process, the fingerprint of each piece of the runner's
    machinery streamed at load (and the observer's own, `observer: itself`, at registration);
    `checked` the fingerprints the same process streamed at its later checks, distinct values
    by name ("missing": a check that left the name out). `failed_at` holds the comparisons at
    which a test's body failed (its rewritten assertion's, streamed by pytest's
    `pytest_assertrepr_compare`: every test's),
    `compared` the comparisons each watched test's body made, seen by the observer's trace
    function (`MAX_COMPARED` at most); `follows` the offsets of each watched test's body's
    comparisons whose instruction the observer follows (streamed as each call began), and
    `unfollowed` the `(offset, line)` of each of its comparisons streamed at one of them, read
    as built-ins' own, whose follow's record never came (`fixbot.observe.comparisons`).
    `runners` are the node runners whose reporter (`fixbot/observe/node/reporter.cjs`) began a
    session (`jest`, `vitest`; empty for pytest): their tests are ids of the runner's own JSON
    report (`<file>::<describe> > <title>`), outcomes only (no body, comparison or machinery
    record); `reported` of the `ended` sessions were theirs (no known answer is asked in
    them); `tries` the tests the runner ran more than once (`jest.retryTimes`, vitest's
    `retry`), the most tries streamed of each. `runners` holds `unittest` where fixbot's
    observer inside unittest (`fixbot/observe/unittest_observer.py`) began a session: its tests
    are unittest's ids (`module.Class.test`), outcomes and the machinery's fingerprints, and
    `ran` the tests its sessions saw `TestCase.run` start (`testsRun`), summed over those that
    ended, and `said_ran` what unittest's own summary lines in the check's log (`Ran N tests`)
    count, summed (None: no such line), set by fixbot from the log
    (`fixbot.observe.reporter.summarized`) and compared with `ran`. `functions` jest-circus's
    verdict on each run of a test's function ("failed", "passed", in order), streamed by fixbot's
    jest test environment as it was dispatched (`fixbot/observe/node/environment.cjs`; in band
    only), `environed` the test files that environment was built for, `jested` the test files
    jest's reporter saw jest start to run (in its main process, signed with the nonce: each
    one's environment streams its file record there, in band or from a worker), and
    `environment` why a jest
    run had no such environment ("": it had, or the check is not jest's; set by fixbot,
    `fixbot.run.jestenv.prepare`); `configured` the work tree's files (relative to its root;
    under node_modules only those the repository tracks, `jestloaded.tracked`) node's module
    cache held as `jest --showConfig` exited, run before the check with fixbot's preload
    (`fixbot/observe/node/loaded.cjs`, `jestloaded.loaded`): jest.config.js and the files it
    required, by any path, and the ES modules node's loader loaded (jest.config.mjs and what it
    imports, by any specifier: the preload's module hooks), and the programs its printed
    configuration names (`jestloaded.programs`: `globalSetup`, ...);
    `unhooked` that a node process of that run had no module hooks (`module.register`, node
    before 20.6 / 18.19): its ES modules are not in `configured`; `unthreaded` that a node
    process of that run started a worker thread without fixbot's preload (round 33: a Worker
    of node's own constructor given `env: {}`): what it read is not in `configured`, and a fix
    of that start is not verified (`fixbot.observe.judge`'s `observer-missing`); `cut` that
    what that run handed over was cut at a bound (`jestloaded.CUT`, `MAX_LOADED`: round 34, a
    configuration reading 250 packages' package.json before its base): the files past it are
    not in `configured`, and a fix of that start is not verified the same way; `unreached`
    why the check's runner ran where fixbot's reporter could not reach the channel ("": it
    could; set by fixbot: an `npx jest` check, or one of another launcher's, `npm exec`, yarn,
    pnpm, bunx, with no local bin for fixbot to run, `fixbot.run.npxbin.direct`; a go check
    whose GOFLAGS name an `-overlay` of their own, `fixbot.observe.golang`). `runners` holds
    `go` where fixbot's observer inside a go test binary (`fixbot/observe/go/observer.go`)
    began a session: one a test binary, its tests `<package>::<Test>` as go test -json names
    them (top-level tests alone), outcomes only; `own_main` the work tree's folders whose own
    `TestMain` could not be folded into the observer's (its file a link, too large, or under a
    build constraint), which the observer is not added to: their tests run unobserved (set by
    fixbot). `imported` the work tree's files (relative to its root) the processes of fixbot's
    observers inside pytest and unittest imported, as each run ended (`modulecode.imported`);
    None where no such record came (another runner's check). `ran_bytes` each of those files'
    SHA-256 (hex) as its module code ran, read from disk at the import system's `exec`
    (`modulecode.ran_digest`; "-" unread, or two processes' differing); None where no record
    carried them."""

    sessions: int = 0
    ended: int = 0
    tests: dict[str, str] = Field(default_factory=dict)
    bodies: dict[str, bool] = Field(default_factory=dict)
    comparisons: list[Comparison] = Field(default_factory=list)
    saw: list[Sighting] = Field(default_factory=list)
    full: list[str] = Field(default_factory=list)
    answers: dict[str, bool] = Field(default_factory=dict)
    machinery: list[str] = Field(default_factory=list)
    hooks: list[str] = Field(default_factory=list)
    statuses: list[int] = Field(default_factory=list)
    forged: int = 0
    overflow: bool = False
    distributed: bool = False
    watching: list[str] = Field(default_factory=list)
    called: list[str] = Field(default_factory=list)
    tampered: dict[str, list[str]] = Field(default_factory=dict)
    known: list[str] = Field(default_factory=list)
    reached: list[Reach] = Field(default_factory=list)
    exits: dict[str, list[str]] = Field(default_factory=dict)
    doubled: list[str] = Field(default_factory=list)
    plugins: dict[str, str] = Field(default_factory=dict)
    digests: dict[str, list[str]] = Field(default_factory=dict)
    sources: dict[str, list[str]] = Field(default_factory=dict)
    classes: dict[str, list[str]] = Field(default_factory=dict)
    failers: dict[str, list[list[str]]] = Field(default_factory=dict)
    traced: list[str] = Field(default_factory=list)
    traced_after: list[str] = Field(default_factory=list)
    loaded: dict[str, dict[str, str]] = Field(default_factory=dict)
    checked: dict[str, dict[str, list[str]]] = Field(default_factory=dict)
    failed_at: list[Compared] = Field(default_factory=list)
    compared: list[Compared] = Field(default_factory=list)
    follows: dict[str, list[int]] = Field(default_factory=dict)
    unfollowed: dict[str, list[tuple[int, int]]] = Field(default_factory=dict)
    runners: list[str] = Field(default_factory=list)
    reported: int = 0
    tries: dict[str, int] = Field(default_factory=dict)
    ran: int = 0
    said_ran: int | None = None
    functions: dict[str, list[str]] = Field(default_factory=dict)
    environed: list[str] = Field(default_factory=list)
    jested: list[str] = Field(default_factory=list)
    environment: str = ""
    unreached: str = ""
    own_main: list[str] = Field(default_factory=list)
    configured: list[str] = Field(default_factory=list)
    unhooked: bool = False
    unthreaded: bool = False
    cut: bool = False
    imported: list[str] | None = None
    ran_bytes: dict[str, str] | None = None

    def failed(self) -> list[str]:
        """The node ids the observer saw fail."""
        return sorted(t for t, o in self.tests.items() if o == "failed")
