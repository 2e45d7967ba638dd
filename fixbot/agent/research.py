"""Research for the fix attempts from 2 on: the installed source and metadata of a dependency
(`read_dependency`, no network) and, when the user configured a search provider, the web
(`search_web`, through litellm's search API, https://docs.litellm.ai/docs/search).

Python packages are found in the site-packages of the check's own interpreter: the first
`python3` (or `python`) on the check environment's PATH, which is not fixbot's. It runs with
`-I -S` (the virtual environment's prefix is read from `pyvenv.cfg` as `site` would, without
`site.venv()`, which runs `.pth` files), so no `.pth` file, `sitecustomize` or package code of
the project runs; metadata is read with
`importlib.metadata` (https://docs.python.org/3/library/importlib.metadata.html) over those folders.
JavaScript packages are read from `node_modules/<name>/` in the repository. Results are bounded;
a `path` must stay inside the package's folder.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fixbot.ecosystems import node
from fixbot.process.launcher import Launcher

MAX_CHARS = 16_000
MAX_FILES = 150
LOCATE_TIMEOUT_S = 20.0
NAME = re.compile(r"^(?:@[A-Za-z0-9][\w.-]*/)?[A-Za-z0-9][\w.-]*$")
# Runs in the project's interpreter under -I -S: stdlib only, no site-packages code executed.
LOCATE = r"""
import importlib.metadata as md, importlib.machinery as mc, json, os, site, sys
name, candidates = sys.argv[1], site.getsitepackages([sys.prefix])
here = os.path.dirname(os.path.abspath(sys.executable))
for cfg in (os.path.join(here, "pyvenv.cfg"), os.path.join(os.path.dirname(here), "pyvenv.cfg")):
    if os.path.isfile(cfg):
        lines = [l.partition("=") for l in open(cfg, encoding="utf-8")]
        keys = {k.strip().lower(): v.strip().lower() for k, _, v in lines}
        shared = keys.get("include-system-site-packages") == "true"
        venv, version = os.path.dirname(cfg), "python%d.%d" % sys.version_info[:2]
        # A venv's own folder, named as venv makes it: Debian's site.getsitepackages names
        # dist-packages folders unless it believes it runs in a venv, which -S hides from it.
        own = [os.path.join(venv, "lib", version, "site-packages"),
               os.path.join(venv, "Lib", "site-packages"), *site.getsitepackages([venv])]
        candidates = own + (candidates if shared else [])
        break
folders = list(dict.fromkeys(p for p in candidates if os.path.isdir(p)))
out = {"python": sys.executable, "folders": folders}
for dist in md.distributions(path=folders):
    meta = dist.metadata
    if (meta["Name"] or "").lower().replace("_", "-") == name.lower().replace("_", "-"):
        out.update(name=meta["Name"], version=meta["Version"], summary=meta["Summary"] or "",
                   requires=list(dist.requires or []), files=[str(f) for f in dist.files or []],
                   root=str(dist.locate_file("")))
        break
spec = mc.PathFinder.find_spec(name.replace("-", "_"), folders)
if spec is not None:
    out["module"] = spec.origin
    out["module_dirs"] = list(spec.submodule_search_locations or [])
print(json.dumps(out))
"""

READ_DEPENDENCY_SCHEMA: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "read_dependency",
        "description": "Read an installed dependency named in the failure (no network): without "
        "`path` its version, summary, requirements and files; with `path` (one of those files) "
        "its text. Python packages from the check's interpreter, JavaScript from node_modules.",
        "parameters": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "path": {"type": "string"}},
            "required": ["name"],
        },
    },
}
SEARCH_WEB_SCHEMA: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "search_web",
        "description": "Search the web (titles, URLs, snippets), e.g. for an error message.",
        "parameters": {
            "type": "object",
            "properties": {"query": {"type": "string"}},
            "required": ["query"],
        },
    },
}


class ResearchError(Exception):
    """A research request that cannot be answered; the message is for the model."""


@dataclass
class Package:
    """An installed package: `root` is the folder its `files` are relative to."""

    name: str
    version: str
    kind: str  # "python" or "javascript"
    root: Path
    files: list[str]
    summary: str = ""
    requires: list[str] = field(default_factory=list)


def interpreter(search_path: str) -> str | None:
    """The check's Python: the first `python3` or `python` on `search_path` (a PATH value)."""
    return shutil.which("python3", path=search_path) or shutil.which("python", path=search_path)


def find_python(name: str, search_path: str, launcher: Launcher) -> Package | None:
    """The Python distribution (or top-level module) `name` in the check interpreter's
    site-packages, or None. Raises ResearchError when no interpreter is on `search_path`.

    The interpreter is the check's (the project's code, from a folder the commands may write),
    so it runs behind their boundary: through `launcher`, the run's (never as root fixbot)."""
    python = interpreter(search_path)
    if python is None:
        raise ResearchError("no python3 or python on the check's PATH")
    try:
        _, out = launcher.output(
            [python, "-I", "-S", "-c", LOCATE, name], Path("/"), LOCATE_TIMEOUT_S
        )
        lines = [line for line in out.splitlines() if line.startswith("{")]
        found = json.loads(lines[-1] if lines else "{}")
    except (OSError, json.JSONDecodeError) as exc:
        raise ResearchError(f"could not ask {python} about {name}: {exc}") from exc
    if "root" in found:
        return _distribution(found)
    return _module(name, found) if found.get("module") else None


def _distribution(found: dict[str, Any]) -> Package:
    """The installed distribution `LOCATE` described (its files inside its root, no caches)."""
    files = [f for f in found["files"] if not f.startswith("../") and "__pycache__" not in f]
    return Package(
        name=found["name"],
        version=found["version"],
        kind="python",
        root=Path(found["root"]),
        files=files,
        summary=found["summary"],
        requires=found["requires"],
    )


def _module(name: str, found: dict[str, Any]) -> Package:
    """A top-level module or package `LOCATE` found without a distribution: its files."""
    module = Path(found["module"])
    top = Path(found["module_dirs"][0]) if found.get("module_dirs") else module
    root = top.parent
    files = [p.relative_to(root).as_posix() for p in _walk(top)]
    return Package(name=name, version="unknown", kind="python", root=root, files=files)


def _walk(top: Path) -> list[Path]:
    if top.is_file():
        return [top]
    return sorted(p for p in top.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def find_javascript(name: str, repo: Path) -> Package | None:
    """The package `name` in the repository's `node_modules` (the node ecosystem's
    `Dependencies.installed`), or None."""
    folder = repo / node.INSTALLED / name
    manifest = folder / "package.json"
    if not manifest.is_file():
        return None
    try:
        meta = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ResearchError(f"{manifest} is not readable JSON: {exc}") from exc
    files = [
        p.relative_to(folder).as_posix()
        for p in _walk(folder)
        if node.INSTALLED not in p.relative_to(folder).parts
    ]
    requires = [f"{k} {v}" for k, v in (meta.get("dependencies") or {}).items()]
    return Package(
        name=str(meta.get("name", name)),
        version=str(meta.get("version", "unknown")),
        kind="javascript",
        root=folder,
        files=files,
        summary=str(meta.get("description", "")),
        requires=requires,
    )


def describe(package: Package) -> str:
    """The package's metadata and file list, bounded, for the model."""
    shown = package.files[:MAX_FILES]
    more = len(package.files) - len(shown)
    lines = [
        f"{package.kind} package {package.name} {package.version} (installed in {package.root})",
        f"summary: {package.summary or '-'}",
        f"requires: {', '.join(package.requires) or '-'}",
        f"files ({len(package.files)}):",
        *(f"  {f}" for f in shown),
    ]
    if more:
        lines.append(f"  ... {more} more")
    lines.append(f'Read one with read_dependency(name="{package.name}", path="<file>").')
    return _bounded("\n".join(lines))


def read_file(package: Package, path: str) -> str:
    """The text of `path`, one of the package's files, bounded; ResearchError when it is not."""
    root = package.root.resolve()
    target = (root / path).resolve()
    if path not in package.files or not target.is_relative_to(root) or not target.is_file():
        raise ResearchError(f"{path} is not a file of {package.name}: pick one of its files")
    try:
        text = target.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ResearchError(f"{path}: {exc}") from exc
    numbered = "\n".join(f"{n:>5}| {line}" for n, line in enumerate(text.splitlines(), 1))
    return _bounded(f"--- {package.name} {package.version}: {path}\n{numbered}")


def _bounded(text: str) -> str:
    if len(text) <= MAX_CHARS:
        return text
    return text[:MAX_CHARS] + f"\n[... {len(text) - MAX_CHARS} characters cut]"


def read_dependency(
    repo: Path,
    search_path: str,
    launcher: Launcher,
    name: str,
    path: str | None = None,
) -> tuple[str, str | None]:
    """Answer `read_dependency(name, path?)`: (text for the model, the source used or None).

    Looks in `node_modules` of `repo` first, then in the check's Python (the first on
    `search_path`, run through the run's `launcher`: see `find_python`). Never raises:
    problems are answered as `Error: ...` text.
    """
    if not NAME.match(name):
        return f"Error: {name!r} is not a package name", None
    try:
        package = find_javascript(name, repo) or find_python(name, search_path, launcher)
        if package is None:
            return f"Error: no installed package {name} (python or node_modules)", None
        source = f"{package.kind} package {package.name} {package.version}"
        if path:
            return read_file(package, path), f"{source}: {path}"
        return describe(package), source
    except ResearchError as exc:
        return f"Error: {exc}", None


def search_web(provider: str, query: str, max_results: int = 5) -> tuple[str, list[str]]:
    """Search the web through litellm's search API (`litellm.search`, the provider's key from
    its environment variable, e.g. TAVILY_API_KEY): (text for the model, the URLs found)."""
    import litellm

    try:
        found = litellm.search(query=query, search_provider=provider, max_results=max_results)
    except Exception as exc:  # litellm raises provider-specific types; the model reads why
        return f"Error: the web search failed ({type(exc).__name__}: {exc})", []
    results = list(getattr(found, "results", []) or [])[:max_results]
    lines = [f"- {r.title}\n  {r.url}\n  {(r.snippet or '')[:500]}" for r in results]
    return _bounded("\n".join(lines) or "no results"), [str(r.url) for r in results]


@dataclass
class Research:
    """The research tools of one attempt; `sources` records what was read or found.

    `search_path` is the check environment's PATH (to find its Python); `launcher` the run's,
    which runs the check's Python (see `find_python`); `provider` the litellm search provider
    (None: no web search).
    """

    repo: Path
    search_path: str
    launcher: Launcher
    provider: str | None = None
    sources: list[str] = field(default_factory=list)

    def schemas(self) -> list[dict[str, Any]]:
        """The tool schemas to offer the model."""
        return [READ_DEPENDENCY_SCHEMA, *([SEARCH_WEB_SCHEMA] if self.provider else [])]

    def call(self, name: str, args: dict[str, Any]) -> str | None:
        """Run research tool `name`; None when `name` is not one of them."""
        if name not in ("read_dependency", "search_web"):
            return None
        if not isinstance(args, dict) or not all(isinstance(v, str) for v in args.values()):
            return f"Error: bad arguments for {name}: give strings (see the tool's parameters)"
        if name == "read_dependency":
            text, source = read_dependency(
                self.repo,
                self.search_path,
                self.launcher,
                args.get("name", ""),
                args.get("path") or None,
            )
            self.sources.extend([source] if source else [])
            return text
        if not self.provider:
            return "Error: web search is not configured (search-provider)"
        text, urls = search_web(self.provider, args.get("query", ""))
        self.sources.extend(urls)
        return text
