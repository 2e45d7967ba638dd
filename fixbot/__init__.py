"""fixbot: turns a red check green, and stops honestly when it can't."""

__version__ = "0.1.0"
