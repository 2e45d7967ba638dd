"""fixbot/github/publish."""
