"""What to publish for a result, as a plan: where it goes and every markdown body (pure)."""
