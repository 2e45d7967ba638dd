import pytest

from humanize.number import metric


@pytest.mark.parametrize(
    "test_args, expected",
    [
        ([100], "100"),
        ([0.1], "100 m"),
        ([1234.56], "1.23 k"),
        ([1.5123, "", 0], "2"),
    ],
)
def test_metric(test_args, expected):
    assert metric(*test_args) == expected
