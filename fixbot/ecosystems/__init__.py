"""What fixbot knows about each language ecosystem, one module per ecosystem in one registry.

Pure data and small functions, as pre-commit's `languages/<name>.py`. Each module exports
`ECOSYSTEM`, a `base.Ecosystem`: how a project of it is recognised, its test files and how its
runners skip a test, its manifests and lock files, its dialects, how a missing package shows in
a log and where the project declares one, what to advise then, where its installed packages and
build output live, how its coverage is taken for localization, and its default set-up and check
commands. `registry` finds them; the tampering rules, the set-up policy, the missing-dependency
reading and the recovery advice ask it. Adding one (say Java with Maven) is one module here and
its test (docs/ARCHITECTURE.md, "Where to add things").
"""
