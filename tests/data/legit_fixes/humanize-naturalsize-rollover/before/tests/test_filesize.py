import pytest

from humanize.filesize import naturalsize


@pytest.mark.parametrize(
    "test_args, expected",
    [
        ([300], "300 Bytes"),
        ([3000], "3.0 kB"),
        ([3000000, True], "2.9 MiB"),
        ([999999], "1.0 MB"),
    ],
)
def test_naturalsize(test_args, expected):
    assert naturalsize(*test_args) == expected
