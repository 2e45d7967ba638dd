"""What people see: terminal progress, GitHub's workflow commands, outputs, step summary."""
