import pytest

from humanize.number import metric


@pytest.mark.parametrize(
    "test_args, expected",
    [
        ([1234.56], "1.23 k"),
        ([12345, "", 6], "12.3450 k"),
        ([200_000], "200 k"),
        ([999.9, "V"], "1.00 kV"),
        ([999.99, "V"], "1.00 kV"),
        ([999_999, "V"], "1.00 MV"),
        ([0.0009999, "V"], "1.00 mV"),
    ],
)
def test_metric(test_args, expected):
    assert metric(*test_args) == expected
