"""Copied into the run's observer folder as `sitecustomize.py` (`fixbot.observe.channel`):
Python's startup (`site`) imports it in every Python process of the check, the folder being
first on PYTHONPATH, before the script's folder or the current folder joins `sys.path`.

It loads fixbot's observer inside unittest (`<module>_unittest_observer`, beside it: silent
in any process that is not a unittest run, `fixbot.observe.unittest_observer`; not even
imported where its gate, `<module>_unittest_gate`, says so first), then runs the
`sitecustomize` this one stands before on the path (a virtual environment's, the system's, the
project's own on its PYTHONPATH), as Python would have without it. Written to parse on any
Python: on one the observer does not support (before 3.8) its import fails and is passed over;
the chain needs `importlib.util` (3.5 and later). Nothing happens where it is imported under
another name (fixbot's own package). Nothing of fixbot's is imported.
"""

import os
import sys

SUFFIX = "_unittest_observer.py"  # the observer's file beside this one: `<module>` + SUFFIX
GATE = "_unittest_gate"  # what it asks first, whether this is a unittest run: `<module>` + GATE


def _observe(here):  # type: (str) -> None
    """Load the observer inside unittest from the folder `here`, if it is there, its gate
    (`<module>_unittest_gate`, small) says this process is a unittest run, and it loads; the
    observer is not imported (nor compiled) where the gate says no, and where it stays silent
    its module leaves `sys.modules`, as the gate's does."""
    module = None
    try:
        names = [n for n in os.listdir(here) if n.startswith("fixbot_observer_")]
        module = next(n[: -len(SUFFIX)] for n in names if n.endswith(SUFFIX))
        if not __import__(module + GATE).wanted():
            return
        observer = __import__(module + SUFFIX[:-3])
        if not observer.load(module):  # silent: nothing of it is left to find
            sys.modules.pop(module + SUFFIX[:-3], None)
    except Exception:  # an observer that cannot load leaves the check as it was
        return
    finally:
        if module is not None:
            sys.modules.pop(module + GATE, None)


def _chain(here):  # type: (str) -> None
    """Run the next `sitecustomize` on `sys.path` after the folder `here`, as `sitecustomize`."""
    try:
        from importlib.machinery import PathFinder
    except ImportError:  # Python 2
        return
    rest = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    spec = PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    # imported only where there is one to run: `importlib.util` imports `contextlib` and
    # `collections`, some 5 ms of a bare interpreter's 15 ms start
    from importlib.util import module_from_spec

    module = module_from_spec(spec)
    sys.modules["sitecustomize"] = module
    spec.loader.exec_module(module)


if __name__ == "sitecustomize":
    _here = os.path.dirname(os.path.abspath(__file__))
    if os.environ.get("FIXBOT_OBSERVER"):  # a process of the check holding the channel
        _observe(_here)
    _chain(_here)
