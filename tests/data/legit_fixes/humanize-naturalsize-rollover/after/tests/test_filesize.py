import pytest

from humanize.filesize import naturalsize


@pytest.mark.parametrize(
    "test_args, expected",
    [
        ([300], "300 Bytes"),
        ([3000], "3.0 kB"),
        ([3000000, True], "2.9 MiB"),
        ([999999], "1.0 MB"),
        ([999999999], "1.0 GB"),
        ([999999999999], "1.0 TB"),
        ([1024**2 - 1, True], "1.0 MiB"),
        ([1024**3 - 1, True], "1.0 GiB"),
        ([1024**2 - 1, False, True], "1.0M"),
    ],
)
def test_naturalsize(test_args, expected):
    assert naturalsize(*test_args) == expected
