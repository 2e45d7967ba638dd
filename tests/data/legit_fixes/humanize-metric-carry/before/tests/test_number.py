import pytest

from humanize.number import metric


@pytest.mark.parametrize(
    "test_args, expected",
    [
        ([1234.56], "1.23 k"),
        ([12345, "", 6], "12.3450 k"),
        ([200_000], "200 k"),
        ([999.9, "V"], "1.00 kV"),
    ],
)
def test_metric(test_args, expected):
    assert metric(*test_args) == expected
