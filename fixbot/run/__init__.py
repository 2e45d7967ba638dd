"""One run from start to end: the loop's decisions wired to checker, fixers, state, outcome."""
