"""Keeping secrets in: redact what is sent or written, scan what is pushed (pure)."""
