"""Throw-away Python environments with a tiny local package installed, without the network.

`make_venv(path)` runs `python -m venv`; `install_tiny_package(venv, src)` writes the package
`tinydep` with an in-tree PEP 517 backend (so neither setuptools nor wheel is needed) and installs
it with `pip install --no-index --no-build-isolation --no-deps`: a real install, with a
`.dist-info` folder and a RECORD, as pip makes it for any package.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.fakes.repo import write_files

BACKEND = '''\
"""A minimal in-tree PEP 517 backend: a wheel of tinydep/."""
import base64, hashlib, pathlib, zipfile

NAME, VERSION = "tinydep", "0.3.1"
META = (f"Metadata-Version: 2.1\\nName: {NAME}\\nVersion: {VERSION}\\n"
        "Summary: A tiny dependency\\nRequires-Dist: attrs>=20\\n")
WHEEL = "Wheel-Version: 1.0\\nGenerator: backend\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"


def _digest(data):
    raw = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + raw.decode()


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name = f"{NAME}-{VERSION}-py3-none-any.whl"
    info = f"{NAME}-{VERSION}.dist-info"
    files = {p.as_posix(): p.read_bytes() for p in pathlib.Path(NAME).rglob("*.py")}
    files[f"{info}/METADATA"] = META.encode()
    files[f"{info}/WHEEL"] = WHEEL.encode()
    record = "".join(f"{k},{_digest(v)},{len(v)}\\n" for k, v in files.items())
    files[f"{info}/RECORD"] = (record + f"{info}/RECORD,,\\n").encode()
    with zipfile.ZipFile(pathlib.Path(wheel_directory) / name, "w") as whl:
        for path, data in files.items():
            whl.writestr(path, data)
    return name
'''
PYPROJECT = """\
[build-system]
requires = []
build-backend = "backend"
backend-path = ["."]
"""
TINYDEP = '''\
def answer():
    """The answer, off by one."""
    return 41
'''


def make_venv(path: Path, python: str = sys.executable) -> Path:
    """A new virtual environment of `python` at `path` (with pip); returns its `bin` folder."""
    subprocess.run([python, "-m", "venv", str(path)], check=True, capture_output=True)
    return path / "bin"


def install_tiny_package(bin_dir: Path, src: Path) -> Path:
    """Write `tinydep` 0.3.1 to `src` and install it into the venv; returns its site-packages."""
    write_files(
        src, {"pyproject.toml": PYPROJECT, "backend.py": BACKEND, "tinydep/__init__.py": TINYDEP}
    )
    pip = [str(bin_dir / "python"), "-m", "pip", "install", "-q", "--no-index"]
    subprocess.run(
        [*pip, "--no-build-isolation", "--no-deps", "--disable-pip-version-check", str(src)],
        check=True,
        capture_output=True,
    )
    return next((bin_dir.parent / "lib").glob("python*/site-packages"))
