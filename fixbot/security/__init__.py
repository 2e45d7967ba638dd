"""fixbot/security."""
