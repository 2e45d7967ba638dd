"""fixbot/run/phases: the code of each stage of a run, as functions over the run's parts
(`base.RunParts`); `fixbot.run.executor.Run.execute` calls them. `checks` sets up and checks,
`fixing` fixes, verifies (a green fix judged and committed by
`judging`), diagnoses and reviews, `ending` escalates and records the outcome."""
