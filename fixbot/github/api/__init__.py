"""fixbot/github/api."""
