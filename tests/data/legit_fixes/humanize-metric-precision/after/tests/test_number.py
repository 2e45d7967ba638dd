import pytest

from humanize.number import metric


@pytest.mark.parametrize(
    "test_args, expected",
    [
        ([100], "100"),
        ([0.1], "100 m"),
        ([1234.56], "1.23 k"),
        ([1.5123, "", 0], "2"),
        ([10.5123, "", 0], "11"),
        ([10.5123, "", 1], "11"),
        ([10.5123, "", 3], "10.5"),
        ([1, "", 0], "1"),
        ([1000, "", 2], "1.0 k"),
        ([1, "", 3], "1.00"),
        ([1000, "", 3], "1.00 k"),
    ],
)
def test_metric(test_args, expected):
    assert metric(*test_args) == expected
