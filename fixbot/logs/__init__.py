"""Reading a check's output: condense, find the failing tests, sign and classify (pure)."""
