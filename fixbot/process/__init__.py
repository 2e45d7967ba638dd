"""fixbot/process."""
