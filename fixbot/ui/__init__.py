"""fixbot/ui."""
