"""fixbot/core."""
