"""From a workflow event to one intent: event kinds, comment commands, gates (pure)."""
