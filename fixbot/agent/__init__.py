"""The model agent: fix, self-review and escalation analysis through litellm.

The agent itself is `fixbot.agent.agent` (`build_agent`, `Agent`, `NO_MODEL`), imported on
first use of those names (PEP 562's module `__getattr__`): a run that needs one module of the
package (`fixbot.agent.paths`, the protected paths) does not import the whole agent, its
templates and its tools. litellm is imported lazily too, on the first model call.
"""

from __future__ import annotations

from typing import Any

__all__ = ["NO_MODEL", "Agent", "build_agent"]


def __getattr__(name: str) -> Any:
    """`Agent`, `build_agent` and `NO_MODEL` from `fixbot.agent.agent`, imported on first use."""
    if name in __all__:
        from fixbot.agent import agent

        return getattr(agent, name)
    raise AttributeError(f"module 'fixbot.agent' has no attribute {name!r}")
