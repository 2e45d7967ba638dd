"""`fixbot bench`: how often fixbot fixes real CI failures, rebuilt from the package registries.

`corpus` reads the cases (bench/corpus/), `prepare` rebuilds one on disk, `verify` checks the
corpus itself; `cli` holds the subcommand's options.
"""
