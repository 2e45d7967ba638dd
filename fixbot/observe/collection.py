"""The observer's hooks of a session's start, its collection and its plugins: the session's
start (`start`), the verdict's hooks and who implements them (`hooks`), each watched test's
function, code and the globals it reads as collected, compared once collection and its plugins
are done (`pytest_runtestloop`: `tampered`), a collection that failed (`r`), and each plugin
pytest holds with the work tree's file it comes from (`plugin`).

Copied beside the plugin as `<module>_collection` and loaded with it, inside the project's own
Python (3.8 or later). It imports the standard library and pytest alone; the observer's other
parts it uses are given to it (`collection_hooks`' `parts`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest


def collection_hooks(
    send: Callable[[dict[str, Any]], None],
    watched: frozenset[str],
    collected: dict[str, Any],
    state: dict[str, Any],
    plugin: Any,
    root: Callable[[], str],
    parts: Any,
) -> list[Callable[..., Any]]:
    """The hooks of a session's start and its collection, and `pytest_plugin_registered`:
    `collected` is filled with each watched test as collection found it (the identities of its
    function, of its code and of the module globals its code reads), `state["anchor"]` with
    the first test module's node (the known-answer test is made under it); `plugin` is the
    observer's own (left out of the verdict's hooks), `root` the work tree's root as this
    process sees it. `parts` holds the observer's modules these use (`calls`, `integrity`)."""
    return [
        *_collection_hooks(send, watched, collected, state, plugin, parts),
        _plugin_hook(send, root, parts),
    ]


def _collection_hooks(
    send: Callable[[dict[str, Any]], None],
    watched: frozenset[str],
    collected: dict[str, Any],
    state: dict[str, Any],
    plugin: Any,
    parts: Any,
) -> list[Callable[..., Any]]:
    """The hooks of a session's start and its collection."""
    calls, integrity = parts.calls, parts.integrity

    def pytest_sessionstart(session: Any) -> None:
        # under xdist the tests run in workers, which the channel does not reach: the
        # controller streams their reports, not what their bodies did
        distributed = session.config.pluginmanager.has_plugin("dsession")
        send({"k": "start", "dist": distributed, "watch": sorted(watched)})

    def pytest_collection_finish(session: Any) -> None:
        found = []
        for hook in integrity.VERDICT_HOOKS:
            caller = getattr(session.config.hook, hook, None)
            for impl in caller.get_hookimpls() if caller is not None else ():
                if impl.plugin is not plugin:
                    found.append([hook, integrity._plugin_name(impl.plugin)])
        send({"k": "hooks", "hooks": found})

    def pytest_itemcollected(item: Any) -> None:
        if state["anchor"] is None and isinstance(item, pytest.Function):
            state["anchor"] = item.getparent(pytest.Module)
        if item.nodeid in watched:
            function = getattr(item, "obj", None)
            read = calls._globals_read(calls._innermost(function))
            collected[item.nodeid] = (*calls._identity(function), read)

    def pytest_collectreport(report: Any) -> None:
        if report.failed:
            send({"k": "r", "id": report.nodeid or "::", "w": "collect", "o": "failed"})

    return [
        pytest_sessionstart,
        pytest_collection_finish,
        pytest_itemcollected,
        _loop_hook(send, collected, parts),
        pytest_collectreport,
    ]


def _plugin_hook(
    send: Callable[[dict[str, Any]], None], root: Callable[[], str], parts: Any
) -> Any:
    """`pytest_plugin_registered`: each plugin pytest holds (those registered before the
    observer too: the hook is historic), streamed once by its stable name with the file it
    comes from relative to the work tree (empty outside it: an installed plugin's), so that
    fixbot can tell a plugin the project's own code registered at run time (found through the
    frames pytest keeps, `config.pluginmanager.register`) that the start's run did not have."""
    named: set[str] = set()
    integrity = parts.integrity

    def pytest_plugin_registered(plugin: Any) -> None:
        name = integrity._plugin_name(plugin)
        if name in named or len(named) >= MAX_PLUGINS:
            return
        named.add(name)
        owner = getattr(type(plugin), "__module__", "")
        module = plugin if isinstance(plugin, ModuleType) else sys.modules.get(owner)
        path = os.path.realpath(str(getattr(module, "__file__", None) or "/"))
        top = os.path.join(root(), "")
        send(
            {"k": "plugin", "n": name[:200], "f": path[len(top) :] if path.startswith(top) else ""}
        )

    return pytest_plugin_registered


MAX_PLUGINS = 200  # plugins streamed at most, per process


def _loop_hook(
    send: Callable[[dict[str, Any]], None], collected: dict[str, Any], parts: Any
) -> Callable[..., Any]:
    """The hook that compares each watched test with what collection found, once collection
    and its plugins are done (`pytest_runtestloop`)."""
    calls, integrity = parts.calls, parts.integrity
    tampered = integrity._tampered(send)

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtestloop(session: Any) -> Any:
        """Before the first test's setup: a watched test whose function, or a global its code
        reads, is no longer what collection found was changed by a plugin in between."""
        for item in getattr(session, "items", ()):
            if item.nodeid in collected:
                ident, code, names = collected[item.nodeid]
                function = calls._outer(getattr(item, "obj", None))
                if calls._identity(function) != (ident, code):
                    tampered(item.nodeid, "the test function pytest collected was replaced")
                now = calls._globals_read(calls._innermost(function))
                rebound = sorted(n for n, i in names.items() if now.get(n) != i)
                if rebound and id(function) == ident:
                    what = "globals it reads were rebound: " + ", ".join(rebound[:5])
                    tampered(item.nodeid, what)
        yield

    return pytest_runtestloop
