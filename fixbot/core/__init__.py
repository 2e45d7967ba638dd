"""The data every layer shares: settings, models, diagnoses, roles, secrets, errors; no I/O."""
