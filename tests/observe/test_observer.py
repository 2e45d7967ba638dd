"""fixbot's observer: the plugin inside a real pytest, the channel that loads it and reads its
stream, and the judgement of what it saw (pure)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from fixbot.core.observed import MAX_REACHED, Comparison, Observation, Reach
from fixbot.logs.signature import said_failed
from fixbot.observe import channel, hooks, judge
from fixbot.observe.channel import Channel
from fixbot.observe.stream import parse
from tests.fakes.pythons import PROJECT_PYTHON

APP = "def add(a, b):\n    return a + b\n"
TEST = (
    "from app import add\n\n\ndef test_add():\n    assert add(2, 2) == 5\n\n\n"
    "def test_zero():\n    assert add(0, 0) == 0\n"
)
ADD, ZERO = "tests/test_app.py::test_add", "tests/test_app.py::test_zero"


def observe(tmp_path: Path, command: str, files: dict[str, str], watch: list[str]) -> Observation:
    """Run `command` in a project of `files` with a fresh channel; what it streamed."""
    for rel, text in {"app.py": APP, "tests/test_app.py": TEST, **files}.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    opened = Channel.open(watch)
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    try:
        subprocess.run(
            command,
            shell=True,
            cwd=tmp_path,
            env={**env, **opened.env(env)},
            pass_fds=opened.fds,
            capture_output=True,
            check=False,
        )
    finally:
        seen = opened.close()
    return seen


PYTEST = f"{PROJECT_PYTHON} -m pytest -q -p no:cacheprovider tests"


@pytest.mark.slow
def test_the_plugin_streams_each_outcome_and_a_watched_body(tmp_path: Path) -> None:
    seen = observe(tmp_path, PYTEST, {}, [ADD])
    assert seen.sessions == seen.ended == 1 and seen.statuses == [1]
    assert seen.tests == {ADD: "failed", ZERO: "passed"}
    assert seen.bodies == {ADD: True}  # only the watched test's body is followed
    assert seen.machinery == [] and seen.forged == 0
    assert judge.findings(seen, seen)[0].startswith("observer-failed")


@pytest.mark.slow
def test_the_known_answer_is_asked_and_leaves_no_trace_in_the_reports(tmp_path: Path) -> None:
    """The test that must fail runs before the first watched test and at the session's end,
    through pytest's own machinery, and is neither counted, printed nor in the JUnit report."""
    command = f"{PYTEST} -rA --junitxml=report.xml > out.txt"
    seen = observe(tmp_path, command, {}, [ADD])
    assert seen.known == ["first: failed", "end: failed"]
    assert seen.called == [ADD, ZERO] and seen.watching == [ADD] and seen.tampered == {}
    out = (tmp_path / "out.txt").read_text()
    assert "1 failed, 1 passed" in out and "known_answer" not in out
    report = (tmp_path / "report.xml").read_text()
    assert 'tests="2"' in report and "known_answer" not in report


@pytest.mark.slow
def test_a_plugin_that_passes_every_report_fails_the_known_answer(tmp_path: Path) -> None:
    """However it is registered or spelled, what makes a failing test pass makes the known
    answer pass too."""
    conftest = (
        "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\n"
        "def pytest_runtest_makereport(item, call):\n"
        "    outcome = yield\n    outcome.get_result().outcome = 'passed'\n"
    )
    seen = observe(tmp_path, PYTEST, {"tests/conftest.py": conftest}, [ADD])
    assert seen.statuses == [0] and seen.known == ["first: passed", "end: passed"]
    found = judge.findings(START, seen)
    assert any(f.startswith("observer-known-answer") for f in found), found


@pytest.mark.slow
def test_the_plugin_in_every_pytest_of_a_script_and_inert_without_a_channel(
    tmp_path: Path,
) -> None:
    """Two pytest processes of one check each read their own settings line; a pytest started
    outside the check (no channel) runs as if the plugin were not there."""
    script = f"{PYTEST}; {PYTEST} -k zero\n"
    seen = observe(tmp_path, "sh check.sh", {"check.sh": script}, [])
    assert seen.sessions == seen.ended == 2 and seen.statuses == [1, 0]
    bare = subprocess.run(PYTEST, shell=True, cwd=tmp_path, capture_output=True, check=False)
    assert b"1 failed, 1 passed" in bare.stdout


@pytest.mark.slow
def test_a_process_that_ends_inside_the_session_is_cut_short(tmp_path: Path) -> None:
    ending = TEST.replace("    assert add(2, 2) == 5\n", "    import os\n    os._exit(0)\n")
    seen = observe(tmp_path, PYTEST, {"tests/test_app.py": ending}, [ADD])
    assert seen.sessions == 1 and seen.ended == 0
    assert any(f.startswith("observer-cut-short") for f in judge.findings(seen, seen))


@pytest.mark.slow
def test_a_line_written_to_the_channel_without_the_nonce_is_forged(tmp_path: Path) -> None:
    """Code that finds the channel's descriptor can write to it, not speak for the observer."""
    forging = TEST.replace(
        "    assert add(2, 2) == 5\n",
        "    import os\n    for fd in range(700, 720):\n        try:\n"
        '            os.write(fd, b\'x\\t{"k": "end", "status": 0}\\n\')\n'
        "        except OSError:\n            pass\n",
    )
    seen = observe(tmp_path, PYTEST, {"tests/test_app.py": forging}, [])
    assert seen.forged == 1 and seen.ended == 1
    assert any(f.startswith("observer-forged") for f in judge.findings(None, seen))


def test_the_stream_keeps_the_worst_outcome_and_ignores_reruns() -> None:
    lines = [
        'n\t{"k": "start"}',
        'n\t{"k": "r", "id": "t", "w": "setup", "o": "passed"}',
        'n\t{"k": "r", "id": "t", "w": "call", "o": "rerun"}',
        'n\t{"k": "r", "id": "t", "w": "call", "o": "failed"}',
        'n\t{"k": "r", "id": "t", "w": "teardown", "o": "passed"}',
        'n\t{"k": "machinery", "changed": ["os._exit"]}',
        'n\t{"k": "end", "status": 1}',
        'other\t{"k": "end", "status": 0}',
        "n\tnot json",
    ]
    seen = parse("\n".join(lines), "n")
    assert seen.tests == {"t": "failed"} and seen.ended == 1 and seen.statuses == [1]
    assert seen.machinery == ["os._exit"] and seen.forged == 2


def test_the_settings_fit_the_pipe_whatever_the_watch_list() -> None:
    many = [f"tests/test_x.py::test_{i}" + "x" * 200 for i in range(5000)]
    data = channel._settings("n" * 32, many)
    assert len(data) <= channel.SETTINGS_BYTES and data.count(b"\n") >= 1


START = Observation(sessions=1, ended=1, tests={ADD: "failed", ZERO: "passed"}, statuses=[1])


def _green(**changes: object) -> Observation:
    values: dict[str, object] = dict(
        sessions=1,
        ended=1,
        tests={ADD: "passed", ZERO: "passed"},
        statuses=[0],
        called=[ADD, ZERO],
        watching=[ADD],
        bodies={ADD: True},
        exits={ADD: ["returned"]},
        known=["first: failed", "end: failed"],
    )
    return Observation.model_validate(values | changes)


def test_a_green_stream_has_nothing_to_say() -> None:
    assert judge.findings(START, _green(bodies={ADD: True})) == []
    assert judge.findings(None, None) == []


@pytest.mark.parametrize(
    ("last", "rule"),
    [
        (None, "observer-missing"),
        (Observation(), "observer-missing"),
        (_green(ended=0), "observer-cut-short"),
        (_green(forged=1), "observer-forged"),
        (_green(machinery=["_pytest.python.Function.runtest"]), "observer-machinery"),
        (_green(tests={ADD: "failed", ZERO: "passed"}), "observer-failed"),
        (_green(statuses=[1]), "observer-failed"),
        (_green(tests={ZERO: "passed"}), "observer-unseen"),
        (_green(bodies={ADD: False}), "observer-body"),
        (_green(bodies={}), "observer-body"),
        (_green(called=[ZERO]), "observer-no-call"),
        (_green(tampered={ADD: ["globals it reads were rebound: add"]}), "observer-tampered"),
        (_green(known=["first: passed", "end: failed"]), "observer-known-answer"),
        (_green(known=["first: failed"]), "observer-known-answer"),
        (_green(hooks=["pytest_runtest_makereport rewriter"]), "observer-hooks"),
    ],
)
def test_each_finding(last: Observation | None, rule: str) -> None:
    found = judge.findings(START, last)
    assert [f.split(":", 1)[0] for f in found] == [rule], found


def test_an_always_equal_comparison_counts_in_the_code_or_built_at_run_time() -> None:
    def compared(file: str, always: bool | None, dunder: str = "__eq__") -> Observation:
        comparison = Comparison(test=ADD, type="app._R", dunder=dunder, file=file, always=always)
        return _green(comparisons=[comparison])

    rule = "observer-always-equal"
    assert judge.findings(START, compared("app.py", True), ["app.py"])[0].startswith(rule)
    assert judge.findings(START, compared("<string>", True))[0].startswith(rule)
    assert judge.findings(START, compared("<string>", None, "__bool__"))[0].startswith(rule)
    assert judge.findings(START, compared("app.py", True), ["other.py"])[0].startswith(rule)
    # a helper of the tests the fix did not touch (`ANY`), or an `__eq__` that tells apart
    assert judge.findings(START, compared("tests/helpers.py", True), ["app.py"]) == []
    assert judge.findings(START, compared("app.py", False), ["app.py"]) == []


def test_an_always_equal_value_handed_back_by_the_code_counts_wherever_its_type_is() -> None:
    def handed(via: str) -> Observation:
        mock = "/usr/lib/python3/unittest/mock.py"
        comparison = Comparison(
            test=ADD, type="unittest.mock._ANY", dunder="__eq__", file=mock, always=True, via=via
        )
        return _green(comparisons=[comparison])

    found = judge.findings(START, handed("app.py"), ["app.py"])
    assert found[0].startswith("observer-always-equal") and "handed back by app.py" in found[0]
    # a helper of the tests that returns `ANY`, left alone by the fix, is the tests' own
    assert judge.findings(START, handed("tests/helpers.py"), ["app.py"]) == []
    assert judge.findings(START, handed("tests/helpers.py"), ["tests/helpers.py"]) != []


@pytest.mark.slow
def test_the_body_says_whether_a_passed_call_returned(tmp_path: Path) -> None:
    """A report rewritten to passed while the body raised is named, the known answer spared
    by its name or not; an always-equal value handed back inside a list is probed."""
    conftest = (
        "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\n"
        "def pytest_runtest_makereport(item, call):\n    outcome = yield\n"
        "    if 'known' not in item.name:\n        outcome.get_result().outcome = 'passed'\n"
    )
    listed = (
        "from unittest.mock import ANY\n\n\n"
        "def add(a, b):\n    return [ANY] if (a, b) == (2, 2) else [a + b]\n"
    )
    test = TEST.replace("add(2, 2) == 5", "add(2, 2) == [5]").replace("== 0", "== [1]")
    files = {"conftest.py": conftest, "app.py": listed, "tests/test_app.py": test}
    seen = observe(tmp_path, PYTEST, files, [ADD, ZERO])
    assert seen.known == ["first: failed", "end: failed"]
    assert seen.tests == {ADD: "passed", ZERO: "passed"}
    assert seen.exits == {ADD: ["returned"], ZERO: ["raised"]}
    start = Observation(sessions=1, ended=1, tests={ADD: "failed", ZERO: "failed"})
    found = [f for f in judge.findings(start, seen) if f.startswith("observer-tampered")]
    assert found == [
        "observer-tampered: its call was reported passed while no entry of its body returned: "
        + ZERO
    ]
    assert [(c.test, c.type, c.via, c.always) for c in seen.comparisons] == [
        (ADD, "unittest.mock._ANY", "app.py", True)
    ]


def test_the_known_answer_is_no_finding_where_it_could_not_be_asked_or_the_start_said_so() -> None:
    unasked = ["end: unavailable", "end: error: AttributeError"]
    assert judge.findings(START, _green(known=unasked[:1])) == []
    assert judge.findings(START, _green(known=unasked[1:])) == []
    # where the start's run asked it, one that could not be asked was taken away by the fix
    asked = START.model_copy(update={"known": ["first: failed", "end: failed"]})
    for answer in unasked:
        found = judge.findings(asked, _green(known=["first: failed", answer]))
        assert [f.split(":")[0] for f in found] == ["observer-known-answer"], found
    assert judge.findings(asked.model_copy(update={"known": unasked}), _green(known=unasked)) == []
    # a check of doctests alone: the start's run, watching none, asked at its end only; the
    # fix's asks before its first watched test too, with the same answer
    doctests = START.model_copy(update={"known": ["end: unavailable"]})
    both = ["first: unavailable", "end: unavailable"]
    assert judge.findings(doctests, _green(known=both)) == []
    # an answer the start gave nowhere still counts wherever it is given
    found = judge.findings(doctests, _green(known=["first: passed", "end: unavailable"]))
    assert [f.split(":")[0] for f in found] == ["observer-known-answer"], found
    # a plugin the project has that reports every failure as skipped did so at the start too
    start = START.model_copy(update={"known": ["end: skipped"]})
    assert judge.findings(start, _green(known=["end: skipped"])) == []
    # a body not watched (the ids the observer was given did not fit) says nothing
    assert judge.findings(START, _green(bodies={}, watching=[])) == []


def test_a_change_the_start_saw_too_is_an_installed_plugins() -> None:
    changed = ["_pytest.runner.call_and_report"]
    start = START.model_copy(update={"machinery": changed})
    assert judge.findings(start, _green(machinery=changed)) == []


@pytest.mark.slow
def test_a_test_that_patches_sys_exit_for_itself_is_no_machinery_change(tmp_path: Path) -> None:
    patching = TEST.replace(
        "def test_zero():\n",
        "def test_zero(monkeypatch):\n    import sys\n"
        "    monkeypatch.setattr(sys, 'exit', lambda code=0: None)\n",
    )
    seen = observe(tmp_path, PYTEST, {"tests/test_app.py": patching}, [])
    assert seen.tests[ZERO] == "passed" and seen.machinery == []


def test_a_test_of_a_changed_test_file_or_a_module_now_collected_is_not_unseen() -> None:
    renamed = _green(tests={"tests/test_app.py::test_add[1]": "passed", ZERO: "passed"})
    assert judge.findings(START, renamed, ["tests/test_app.py"]) == []
    module = Observation(sessions=1, ended=1, tests={"tests/test_app.py": "failed"})
    assert judge.findings(module, _green()) == []
    # watched, it has no body of its own: its tests' bodies are not asked for
    assert judge.findings(module, _green(watching=["tests/test_app.py"])) == []


def test_the_runners_last_summary_beats_the_exit_code() -> None:
    red = "....F\n=== 1 failed, 4 passed in 0.12s ===\n"
    assert said_failed(red)[0].startswith("failure-summary")
    assert said_failed(red + "=== 5 passed in 0.1s ===\n") == []  # a later run went green
    assert said_failed("Found 3 errors in 1 file (checked 2 source files)\n") == []  # mypy's
    assert said_failed("Tests:       1 failed, 2 passed, 3 total\n") != []  # jest's


REACHING = """import gc
import sys


def add(a, b):
    gc.get_objects()
    exec("import gc; gc.get_referrers(a)")  # code from a string: its caller is named
    profile = sys.getprofile()
    sys.setprofile(None)
    sys.setprofile(profile)
    return a + b
"""


@pytest.mark.slow
def test_the_audit_hook_names_the_projects_file_that_reached_without_a_name(
    tmp_path: Path,
) -> None:
    seen = observe(tmp_path, PYTEST, {"app.py": REACHING}, [ADD])
    assert seen.bodies == {ADD: True}  # the observer's own profile function is no finding
    assert {(r.event, r.file) for r in seen.reached} == {
        ("gc.get_objects", "app.py"),
        ("gc.get_referrers", "app.py"),
        ("sys.setprofile", "app.py"),
    }
    assert {r.by for r in seen.reached if r.event == "gc.get_referrers"} == {"<string>"}
    # the same code at the start is the project's habit; new in a file the fix changed, a
    # finding (the test fails either way: `add(2, 2) == 5`)
    start = observe(tmp_path / "start", PYTEST, {"app.py": REACHING}, [ADD])
    assert not [f for f in judge.findings(start, seen, ["app.py"]) if "reach" in f]
    found = [f for f in judge.findings(START, seen, ["app.py"]) if "reach" in f]
    assert [f.split(":", 1)[0] for f in found] == ["observer-reach"], found
    assert "app.py raised gc.get_objects" in found[0]


@pytest.mark.slow
def test_the_audit_hook_says_nothing_of_pytest_or_the_standard_library(tmp_path: Path) -> None:
    # the standard library reaching through gc for the project's test is not the project's
    # file: the innermost project frame is (the test), and a test the fix left alone is no
    # finding
    test = TEST.replace("def test_zero():\n", "def test_zero():\n    import gc\n    gc.collect()\n")
    seen = observe(tmp_path, PYTEST, {"tests/test_app.py": test}, [ADD])
    assert seen.sessions == seen.ended == 1
    assert seen.reached == []


def test_a_reach_counts_new_from_any_project_file_or_the_fixs_installed_copy() -> None:
    reach = Reach(
        event="gc.get_objects", file="tests/test_app.py", by="/v/site-packages/pkg/app.py"
    )
    last = _green(reached=[reach])
    assert judge.findings(START, last, ["src/pkg/app.py"])[0].startswith("observer-reach: ")
    # a file the fix left alone (code compiled under the test file's name says it is that
    # file), where the start's run was observed and did not reach from it: the fix's
    found = judge.findings(START, last, ["app.py", "tests/test_other.py"])
    assert [f.split(":", 1)[0] for f in found] == ["observer-reach"], found
    assert "tests/test_app.py raised gc.get_objects" in found[0]
    # with no stream of the start's run (a log from elsewhere), the fix's files alone count
    assert judge.findings(None, last, ["app.py", "tests/test_other.py"]) == []
    assert judge.findings(None, last, ["src/pkg/app.py"]) != []
    mine = Reach(event="sys.settrace", file="pkg/app.py", by="pkg/app.py")
    assert judge.findings(START, _green(reached=[mine]), ["pkg/app.py"]) != []
    # the project's habit: the same event from the same file at the start, through whatever
    habit = START.model_copy(update={"reached": [mine.model_copy(update={"by": "x.py"})]})
    assert judge.findings(habit, _green(reached=[mine]), ["pkg/app.py"]) == []
    assert judge.findings(habit, _green(reached=[mine]), []) == []


def test_a_reach_under_no_project_code_or_past_those_kept_counts_where_the_start_observed() -> None:
    # no project frame on the stack (a thread the code started): new since the start, a finding
    lost = Reach(event="gc.get_objects", file="", by="/usr/lib/python3/concurrent/futures/x.py")
    found = judge.findings(START, _green(reached=[lost]), ["app.py"])
    assert [f.split(":", 1)[0] for f in found] == ["observer-reach"], found
    assert "code outside the project raised gc.get_objects" in found[0]
    # the start's run did it too (a coverage tool's threads), or there was no start's stream
    habit = START.model_copy(update={"reached": [lost]})
    assert judge.findings(habit, _green(reached=[lost]), ["app.py"]) == []
    assert judge.findings(None, _green(reached=[lost]), ["app.py"]) == []
    # as many reaches as are kept, the start's habits but the last: what came after is unknown
    many = [Reach(event="gc.get_referents", file=f"x{i}.py") for i in range(MAX_REACHED)]
    habits = START.model_copy(update={"reached": many[:-1]})
    found = judge.findings(habits, _green(reached=many), ["app.py"])
    assert [f for f in found if f.startswith("observer-reach: 200 reaches or more")], found
    assert judge.findings(habits, _green(reached=many[:-1]), ["app.py"]) == []


# reaches the hook once missed: from a worker thread, under more frames than it walked, under a
# file name outside the project; and what it counts no more: a library loaded (ctypes.dlopen),
# a new thread taking the trace function `threading.settrace` named
HIDDEN = """\
import ctypes.util  # noqa: F401
import gc
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

threading.settrace(lambda *a: None)
threading.Thread(target=int).start()
with ThreadPoolExecutor(1) as pool:
    pool.submit(gc.get_referrers, 1).result()
_ns = {"gc": gc}
_stdlib = __import__("sysconfig").get_paths()["stdlib"]
exec(compile("def deep(n):\\n    return gc.get_objects() if n == 0 else deep(n - 1)\\n",
             _stdlib + "/_deep.py", "exec"), _ns)
_ns["deep"](300)
exec(compile("gc.get_referents(1)\\n", "/tmp/_elsewhere.py", "exec"), _ns)


def add(a, b):
    return a + b
"""


@pytest.mark.slow
def test_the_audit_hook_walks_every_frame_and_names_no_one_for_a_thread(tmp_path: Path) -> None:
    seen = observe(tmp_path, PYTEST, {"app.py": HIDDEN}, [ADD])
    reached = {(r.event, r.file) for r in seen.reached}
    assert reached == {
        ("gc.get_referrers", ""),
        ("gc.get_objects", "app.py"),
        ("gc.get_referents", "app.py"),
    }, seen.reached


def test_a_dunder_equal_to_every_value_of_its_built_in_base_is_always_equal() -> None:
    """The stranger alone is not enough: an `__eq__` equal to every int says no to it. The
    probe also asks about a value of the base type the base's own `==` tells apart."""
    from fixbot.observe import calls as plugin

    class EveryInt(int):
        def __eq__(self, other: object) -> bool:
            return isinstance(other, int)

        __hash__ = int.__hash__

    class Folded(str):  # a legitimate relaxed equality: case-insensitive, not everything
        def __eq__(self, other: object) -> bool:
            return isinstance(other, str) and self.lower() == other.lower()

        __hash__ = str.__hash__

    def probe(value: object) -> object:
        function = vars(type(value))["__eq__"]
        return plugin._probe(ADD, type(value), "__eq__", value, function, "/")["always"]

    assert probe(EveryInt(4)) is True
    assert probe(Folded("Abc")) is False


# A conftest (loaded after the observer) that reaches the observer the ways left to it: pluggy's
# plugin manager holds its hook implementations, whose functions, closure cells and globals can
# be replaced, and whose code can be read.
TAMPERING = """\
def pytest_configure(config):
    pm = config.pluginmanager
    ours = [p for n, p in pm.list_name_plugin() if str(n).endswith('-observer')][0]
    impls = {i.function.__name__: i for c in vars(pm.hook).values()
             if hasattr(c, 'get_hookimpls') for i in c.get_hookimpls() if i.plugin is ours}
    finish = impls['pytest_sessionfinish'].function
    finish.__code__
    finish.__globals__['calls'] = finish.__globals__['calls']
    logged = impls['pytest_runtest_logreport'].function
    logged.__globals__["FOLDER"] = "/"
"""


@pytest.mark.slow
def test_the_observer_checks_what_it_is_made_of(tmp_path: Path) -> None:
    """The observer has no class and no module in `sys.modules`; what reaches it through
    pluggy's plugin manager is compared with what it was at load: its modules' globals, and
    who reads its functions' code (a hook implementation or a closure cell changed ends the
    process: `tests/observe/test_bound.py`)."""
    seen = observe(tmp_path, PYTEST, {"tests/conftest.py": TAMPERING}, [ADD])
    assert seen.sessions == seen.ended == 1, seen
    changed = set(seen.machinery)
    assert {
        "observer: pytest_plugin.FOLDER",
        "observer: __code__ of pytest_sessionfinish read by tests/conftest.py",
    } <= changed, changed
    # the same global put back as it was is no change
    assert not [n for n in changed if n.endswith(".calls")], changed
    found = judge.findings(START, seen, ["app.py"])
    assert [f for f in found if f.startswith("observer-machinery: ")], found


@pytest.mark.slow
def test_the_observer_is_no_class_and_in_no_module_the_tests_can_find(tmp_path: Path) -> None:
    test = TEST + (
        "\n\ndef test_found():\n    import gc, sys\n"
        "    names = [n for n in sys.modules if n.startswith('fixbot_observer_')]\n"
        "    kinds = [k for k in object.__subclasses__() if 'known_answer' in vars(k)]\n"
        "    assert names == [] and kinds == []\n"
    )
    seen = observe(tmp_path, PYTEST, {"tests/test_app.py": test}, [ADD])
    assert seen.tests.get("tests/test_app.py::test_found") == "passed", seen
    assert seen.machinery == [], seen.machinery


# Threads started under `threading.settrace` (as a coverage tool does) while the audit hook
# is in place: each new thread installs the trace function as it starts.
THREADS_TRACED = """\
import os
import sys
import threading

from fixbot.observe import reach

reach.install(lambda record: None, "/nonexistent", lambda: os.path.dirname(__file__))
import ctypes.util  # noqa: E402, F401
import gc  # noqa: E402
from concurrent.futures import ThreadPoolExecutor  # noqa: E402

threading.settrace(lambda *a: None)
threading.Thread(target=int).start()
with ThreadPoolExecutor(1) as pool:
    print(len(pool.submit(gc.get_referrers, sys).result()) > 0)
"""


@pytest.mark.slow
def test_threads_started_under_a_tracer_each_run_their_target(tmp_path: Path) -> None:
    """The hook lets go of nothing while the interpreter installs a trace function: one that
    resolved a path there (a `stat`) let the pool's thread fail to install its own and never
    run its task, and the process waited for it forever (in 1 to 6 runs of 16 here)."""
    script = tmp_path / "threads.py"
    script.write_text(THREADS_TRACED, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    for _ in range(30):  # a race: each process starts its threads once
        done = subprocess.run(
            [sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=20
        )
        assert (done.returncode, done.stdout) == (0, "True\n"), done.stderr


def test_a_test_function_run_with_builtins_other_than_the_builtins_module_s_is_named() -> None:
    """Round 26: app.py, imported by the test module, set the module's `__builtins__` to a
    copy whose `__build_class__` made the test's class anew; the functions the module defined
    after the import ran with that copy (`hooks._builtins_replaced`, which the call hook asks
    of each watched test: `observer-tampered`)."""
    import builtins

    source = "def test_add():\n    return len([])\n"
    for held in (builtins, vars(builtins)):  # a module's, as imported; `__main__`'s
        space: dict[str, object] = {"__builtins__": held}
        exec(source, space)
        assert not hooks._builtins_replaced(space["test_add"])
    copied: dict[str, object] = {"__builtins__": dict(vars(builtins))}
    exec(source, copied)
    assert hooks._builtins_replaced(copied["test_add"])
    space = {"__builtins__": vars(builtins)}
    exec(source, space)
    space["__builtins__"] = dict(vars(builtins))  # after it was made: what later ones take
    assert hooks._builtins_replaced(space["test_add"])
    assert not hooks._builtins_replaced(len)  # no Python function
