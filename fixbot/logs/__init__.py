"""fixbot/logs."""
