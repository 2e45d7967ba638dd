import pytest

from calc import describe, mean


def test_mean():
    assert mean([1.0, 2.0, 3.0]) == 2.0


def test_mean_of_nothing():
    with pytest.raises(ValueError):
        mean([])


def test_describe():
    assert describe([1.0, 3.0]) == "2 values, mean 2.00"
