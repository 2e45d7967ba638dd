"""fixbot/loop."""
