"""What a repository says about how it is set up, checked and fixed, read as data: its CI
workflow, then its task files, then its ecosystem's defaults (`infer.plan`); nothing is run."""
