"""fixbot/fixers."""
