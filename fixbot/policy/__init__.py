"""The run's policy: what to do next over the run's state (the step, the circuit breaker,
recovery plans, when the set-up is due), pure; `fixbot.run` carries it out."""
