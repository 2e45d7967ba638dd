"""The deterministic tier: the project's fix commands, run before any model."""
