"""The loop's decisions over the run's state: next step, circuit breaker, recovery (pure)."""
