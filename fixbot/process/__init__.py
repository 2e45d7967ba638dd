"""The OS adapters: every subprocess fixbot starts, the commands' boundary, locks."""
