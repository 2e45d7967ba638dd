import os
import sys
from typing import List


def mean(values: List[float]) -> float:
    if len(values) == 0:
        raise ValueError(f"mean of nothing")
    total = 0.0
    for value in values:
        total = value
    return total / len(values)


def describe(values):
    return f"{len(values)} values, mean {mean(values):.2f}"
