"""The corpus loader: valid cases load; every problem of a bad corpus is reported at once."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixbot.bench.corpus import CORPUS, CorpusError, Ecosystem, Family, load_corpus

PATCH = """--- a/x.py
+++ b/x.py
@@ -1 +1 @@
-a = 1
+a = 2
"""


def case_text(case_id: str, family: str = "regression", **over: str) -> str:
    """A minimal valid case file, with top-level fields replaced by `over`."""
    fields = {
        "id": f'"{case_id}"',
        "family": f'"{family}"',
        "ecosystem": '"python"',
        "summary": '"x broke"',
        "source": '["https://example.org/changelog (released 2021-05-19)"]',
    }
    fields.update(over)
    head = "\n".join(f"{k} = {v}" for k, v in fields.items())
    return f"""{head}
[package]
name = "demo"
version = "1.0"
[check]
command = "python -m pytest -q"
expect = "1 failed"
[broken]
patch = '''{PATCH}'''
[fix]
patch = '''{PATCH}'''
[hidden]
patch = '''{PATCH}'''
command = "python -m pytest -q tests/test_hidden.py"
"""


def write(root: Path, family: str, name: str, text: str) -> None:
    (root / family).mkdir(parents=True, exist_ok=True)
    (root / family / f"{name}.toml").write_text(text, encoding="utf-8")


def test_a_valid_case_loads_with_its_defaults(tmp_path: Path) -> None:
    write(tmp_path, "regression", "demo-1-0", case_text("demo-1-0"))
    (case,) = load_corpus(tmp_path)
    assert case.family is Family.REGRESSION
    assert case.environment.python is None and case.environment.requirements == []
    assert case.hidden.command.endswith("test_hidden.py")


def test_every_problem_is_listed_at_once(tmp_path: Path) -> None:
    write(tmp_path, "regression", "wrong-name", case_text("demo-1-0"))
    write(tmp_path, "regression", "bad-family", case_text("bad-family", family="oops"))
    write(tmp_path, "world-moved", "no-source", case_text("no-source", "world-moved", source="[]"))
    write(tmp_path, "regression", "broken-toml", "id = ")
    bad_patch = case_text("bad-patch").replace(PATCH, "not a diff\n", 1)
    write(tmp_path, "regression", "bad-patch", bad_patch)
    with pytest.raises(CorpusError) as raised:
        load_corpus(tmp_path, only=["missing-id"])
    text = "\n".join(raised.value.problems)
    assert "differs from the file name 'wrong-name.toml'" in text
    assert "bad-family.toml: family:" in text
    assert "no-source.toml: source: List should have at least 1 item" in text
    assert "broken-toml.toml: cannot read as TOML" in text
    assert "[broken] patch is not a unified diff" in text
    assert "no case has the id 'missing-id'" in text
    assert len(raised.value.problems) == 6


def test_duplicate_ids_and_wrong_folders_are_problems(tmp_path: Path) -> None:
    write(tmp_path, "regression", "twice", case_text("twice"))
    write(tmp_path, "world-moved", "twice", case_text("twice"))
    with pytest.raises(CorpusError) as raised:
        load_corpus(tmp_path)
    text = "\n".join(raised.value.problems)
    assert "differs from its folder 'world-moved'" in text
    assert "id 'twice' is also used by" in text


def test_unknown_keys_are_refused(tmp_path: Path) -> None:
    write(tmp_path, "regression", "demo", case_text("demo", colour='"red"'))
    with pytest.raises(CorpusError, match="colour: Extra inputs are not permitted"):
        load_corpus(tmp_path)


POOL = "main/g/golang-demo/golang-demo_1.0.orig.tar.xz"
SHA = "ab" * 32


def with_package(case_id: str, package: str, ecosystem: str = "go", env: str = "") -> str:
    """A case whose [package] gets the extra lines `package` (and an [environment] `env`)."""
    text = case_text(case_id, ecosystem=f'"{ecosystem}"')
    text = text.replace('version = "1.0"\n', f'version = "1.0"\n{package}\n', 1)
    return text + (f"[environment]\n{env}\n" if env else "")


def test_a_debian_archive_file_is_pinned_and_a_go_case_installs_nothing(tmp_path: Path) -> None:
    """A Debian file comes over plain http: its sha256 is mandatory, its pool path and root
    cannot climb out; a go case's source is such a file and it installs nothing."""
    pinned = f'debian = "{POOL}"\nsha256 = "{SHA}"\nroot = "demo-1.0"'
    write(tmp_path, "regression", "good", with_package("good", pinned))
    (good,) = load_corpus(tmp_path)
    assert good.ecosystem is Ecosystem.GO and good.package.sha256 == SHA
    assert good.package.root == "demo-1.0"
    bad = {
        "no-sha": (f'debian = "{POOL}"\nroot = "."', "['sha256'] missing"),
        "short-sha": (pinned.replace(SHA, "abc"), "package.sha256: String should match"),
        "climbs": (pinned.replace("main/g/", "main/g/../../"), "package.debian: String should"),
        "no-archive": (pinned.replace(".orig.tar.xz", ".dsc"), "package.debian: String should"),
        "root-out": (pinned.replace("demo-1.0", "a/../.."), "no '.' or '..' part"),
        "root-abs": (pinned.replace("demo-1.0", "/etc"), "package.root: String should match"),
        "go-registry": ("", "names its source in Debian's archive"),
    }
    for name, (package, _) in bad.items():
        write(tmp_path, "regression", name, with_package(name, package))
    write(
        tmp_path,
        "regression",
        "go-installs",
        with_package("go-installs", pinned, env='requirements = ["x==1"]'),
    )
    with pytest.raises(CorpusError) as raised:
        load_corpus(tmp_path)
    problems = raised.value.problems
    for name, (_, message) in bad.items():
        assert any(f"{name}.toml" in p and message in p for p in problems), (name, problems)
    assert any("go-installs.toml" in p and "installs nothing" in p for p in problems)
    assert len(problems) == len(bad) + 1


def test_only_selects_cases(tmp_path: Path) -> None:
    write(tmp_path, "regression", "one", case_text("one"))
    write(tmp_path, "regression", "two", case_text("two"))
    assert [c.id for c in load_corpus(tmp_path, only=["two"])] == ["two"]


def test_family_selects_cases_and_an_unknown_family_is_a_problem(tmp_path: Path) -> None:
    write(tmp_path, "regression", "one", case_text("one"))
    write(tmp_path, "test-change", "two", case_text("two", "test-change"))
    write(tmp_path, "world-moved", "three", case_text("three", "world-moved"))
    assert [c.id for c in load_corpus(tmp_path, families=["test-change"])] == ["two"]
    both = load_corpus(tmp_path, only=["one"], families=["test-change"])
    assert [c.id for c in both] == ["one", "two"]
    with pytest.raises(CorpusError, match="no family 'tests'"):
        load_corpus(tmp_path, families=["tests"])


def test_the_shipped_corpus_is_valid_and_large_enough() -> None:
    """The corpus in bench/corpus/ loads, cites https sources, and holds the families the bench
    reports on."""
    cases = load_corpus(CORPUS)
    assert len(cases) >= 30
    assert {c.family for c in cases} == set(Family)
    assert sum(c.ecosystem is Ecosystem.NPM for c in cases) >= 5
    # real fixes that changed a test or the test configuration: the tampering rules' other side
    assert sum(c.family is Family.TEST_CHANGE for c in cases) >= 5


def test_the_wheel_ships_every_family_of_the_corpus() -> None:
    """`fixbot bench` from `pip install`: pyproject's force-include puts each family folder
    of bench/corpus/ where `fixbot.bench.corpus.SHIPPED` reads it, and a package without the
    repository around it reads the shipped one."""
    import tomllib

    from fixbot.bench import corpus

    root = corpus.ROOT
    pyproject = tomllib.loads((root / "pyproject.toml").read_text())
    included = pyproject["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"]
    shipped = corpus.SHIPPED.relative_to(root).as_posix()
    assert included == {
        f"bench/corpus/{family.value}": f"{shipped}/{family.value}" for family in corpus.Family
    }
    assert shipped == "fixbot/bench/corpus"


ROOT_README = """--- /dev/null
+++ b/README.md
@@ -0,0 +1 @@
+# a monorepo
"""


def test_a_release_unpacked_into_a_subfolder_needs_a_root_of_its_own(tmp_path: Path) -> None:
    """`[package] into` puts the release in a monorepo's subfolder: the folder cannot climb out
    or land in git's own, and the [broken] patch must make a file of the root besides it."""
    inside = PATCH.replace("a/x.py", "a/packages/demo/x.py").replace(
        "b/x.py", "b/packages/demo/x.py"
    )
    good = case_text("good").replace(PATCH, ROOT_README + inside, 1)
    write(
        tmp_path,
        "regression",
        "good",
        good.replace('version = "1.0"\n', 'version = "1.0"\ninto = "packages/demo"\n', 1),
    )
    (case,) = load_corpus(tmp_path)
    assert case.package.into == "packages/demo"
    bad = {
        "only-inside": (inside, "packages/demo", "no file of it is outside that folder"),
        "climbs": (ROOT_README, "packages/../..", "no '.' or '..' part"),
        "git": (ROOT_README, ".git/hooks", "into may not be under .git/"),
        "absolute": (ROOT_README, "/tmp/x", "package.into: String should match"),
    }
    for name, (patch, into, _) in bad.items():
        text = case_text(name).replace(PATCH, patch, 1)
        write(
            tmp_path,
            "regression",
            name,
            text.replace('version = "1.0"\n', f'version = "1.0"\ninto = "{into}"\n', 1),
        )
    with pytest.raises(CorpusError) as raised:
        load_corpus(tmp_path)
    problems = raised.value.problems
    for name, (_, _, message) in bad.items():
        assert any(f"{name}.toml" in p and message in p for p in problems), (name, problems)
