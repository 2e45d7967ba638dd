"""fixbot/run."""
