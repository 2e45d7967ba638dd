"""fixbot/github/events."""
