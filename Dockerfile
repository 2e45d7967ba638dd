# fixbot as a Docker container action. GitHub runs container actions as root (the workspace is
# mounted at /github/workspace); see
# https://docs.github.com/en/actions/sharing-automations/creating-actions/dockerfile-support-for-github-actions
#
# What the check finds here: Python 3.11 with pip in an empty virtual environment of its own
# (/opt/venv, first on the commands' PATH), uv (any other Python version through `uv venv --python 3.12`), git,
# and nothing of the project: `setup-command` installs the rest (`pip install -e '.[test]'`,
# `uv pip install -r requirements-dev.txt`, `npm ci` after `system-packages: nodejs npm`, which
# fixbot installs as root before any of the pull request's code runs). fixbot itself lives in
# /usr/local, apart: what the set-up installs never replaces fixbot's own dependencies. Size: see
# README, "Installation".
FROM python:3.11-slim-bookworm

# uv from PyPI (a wheel that carries the binary): the fast installer for set-up commands.
ARG UV_VERSION=0.13.9

# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install --yes --no-install-recommends git ca-certificates tini busybox-static \
    && apt-get clean \
    && rm -rf /var/lib/apt/lists/*

# An unprivileged user for the repository's commands (the check, the set-up, the fix commands);
# uid 1001 is the GitHub-hosted runner's user, who owns the mounted workspace.
# The project's virtual environment, and uv's other Python versions (/opt/uv/python), are
# writable by root and by that user.
# Its bytecode only for what `pip install` imports (5 of the 11 MB `venv` compiles).
RUN useradd --create-home --uid 1001 --shell /bin/bash fixbot \
    && install --directory --owner fixbot /opt/uv /opt/uv/python \
    && python -m venv /opt/venv \
    && find /opt/venv -depth -name __pycache__ -exec rm -rf {} + \
    && env -u PYTHONDONTWRITEBYTECODE /opt/venv/bin/python -c "import pip._internal.cli.main, pip._internal.commands.install" \
    && chown -R fixbot /opt/venv

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore \
    UV_PYTHON_INSTALL_DIR=/opt/uv/python \
    VIRTUAL_ENV=/opt/venv \
    LITELLM_LOCAL_MODEL_COST_MAP=True

# Where fixbot runs is a fact of the installation, never an environment variable (an earlier
# step can write any variable into GITHUB_ENV): fixbot trusts this file only while it and every
# folder above it are root's and writable by root alone (fixbot/process/installation.py).
RUN install --directory --owner root --group root --mode 0755 /etc/fixbot \
    && printf 'container\n' > /etc/fixbot/runtime \
    && chown root:root /etc/fixbot/runtime \
    && chmod 0644 /etc/fixbot/runtime

WORKDIR /opt/fixbot
COPY constraints.txt pyproject.toml README.md ./
COPY scripts/image_trim.py ./scripts/
COPY fixbot ./fixbot
# The bench's cases ship inside the package (pyproject.toml's force-include), as in a wheel.
COPY bench/corpus ./bench/corpus
# Into /usr/local (not the project's /opt/venv, which is first on the PATH of the project's
# commands only: fixbot puts $VIRTUAL_ENV/bin there, never on root's PATH).
# Size (docs/image.md, "Size and cold start"): pip compiles no bytecode, then
# scripts/image_trim.py leaves out what a run never uses (litellm's proxy UI and API docs, its
# optional Rust extension, hf-xet, the models of AWS services litellm does not call, symbol
# tables) and compiles the modules every run imports. binutils (strip) is installed and removed
# in this same layer.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install --yes --no-install-recommends binutils \
    && /usr/local/bin/python -m pip install --no-compile --constraint constraints.txt . "uv==${UV_VERSION}" \
    && /usr/local/bin/python scripts/image_trim.py \
    && apt-get purge --yes --auto-remove binutils \
    && apt-get clean \
    && rm -rf /var/lib/apt/lists/* \
    && /usr/local/bin/fixbot --version \
    && test ! -e /opt/venv/bin/fixbot \
    && uv --version \
    && git --version

# tini runs as PID 1 and reaps orphaned grandchildren of the check, which fixbot (not PID 1)
# kills but cannot reap. tini-static and busybox's `env` are statically linked: no dynamic
# loader runs before `env -u` has removed the loader's variables (`LD_PRELOAD` from GITHUB_ENV
# naming a library an earlier step left in HOME or the workspace; glibc's own list, in
# fixbot/process/installation.py LOADER_VARIABLES, which tests/test_image.py holds equal to
# this line). fixbot then starts by absolute path in Python's isolated mode (`-I`: no current
# folder on sys.path, no user site under HOME, which is /github/home and the commands' to
# write, no PYTHON* variable from GITHUB_ENV), and leaves the workspace for `/` at once.
WORKDIR /
ENTRYPOINT ["/usr/bin/tini-static", "--", "/bin/busybox", "env", "-u", "GCONV_PATH", "-u", "GETCONF_DIR", "-u", "GLIBC_TUNABLES", "-u", "HOSTALIASES", "-u", "LD_AUDIT", "-u", "LD_DEBUG", "-u", "LD_DEBUG_OUTPUT", "-u", "LD_DYNAMIC_WEAK", "-u", "LD_HWCAP_MASK", "-u", "LD_LIBRARY_PATH", "-u", "LD_ORIGIN_PATH", "-u", "LD_PRELOAD", "-u", "LD_PROFILE", "-u", "LD_SHOW_AUXV", "-u", "LOCALDOMAIN", "-u", "LOCPATH", "-u", "MALLOC_TRACE", "-u", "NIS_PATH", "-u", "NLSPATH", "-u", "RESOLV_HOST_CONF", "-u", "RES_OPTIONS", "-u", "TMPDIR", "-u", "TZDIR", "/usr/local/bin/python", "-I", "-m", "fixbot", "action"]
