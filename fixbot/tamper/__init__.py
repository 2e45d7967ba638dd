"""The tampering rules: one table of facts, read at edit time (`fixbot.agent.guard`) and on the
final diff (`fixbot.run.integrity`)."""
