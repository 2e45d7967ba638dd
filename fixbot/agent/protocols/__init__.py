"""The edit protocols: how the model hands fixbot its edits (one module each, in `registry`)."""
