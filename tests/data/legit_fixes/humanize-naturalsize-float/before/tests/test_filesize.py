import pytest

from humanize.filesize import naturalsize


@pytest.mark.parametrize(
    "test_args, expected",
    [
        ([300], "300 Bytes"),
        ([3000], "3.0 kB"),
        ([3000000, True], "2.9 MiB"),
        ([1.123456789], "1 Bytes"),
    ],
)
def test_naturalsize(test_args, expected):
    assert naturalsize(*test_args) == expected
