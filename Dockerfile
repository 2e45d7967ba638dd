# fixbot as a Docker container action. GitHub runs container actions as root (the workspace is
# mounted at /github/workspace); see
# https://docs.github.com/en/actions/sharing-automations/creating-actions/dockerfile-support-for-github-actions
#
# What the check finds here: Python 3.11 with pip, uv (any other Python version through
# `uv python install` / `uv venv --python 3.12`), git, and nothing of the project: `setup-command`
# installs the rest (`pip install -e '.[test]'`, `uv pip install --system -r requirements.txt`,
# `apt-get update && apt-get install -y nodejs npm && npm ci`). Size: see README, "Installation".
FROM python:3.11-slim-bookworm

# uv from PyPI (a wheel that carries the binary): the fast installer for set-up commands.
ARG UV_VERSION=0.13.9

# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install --yes --no-install-recommends git ca-certificates tini \
    && rm -rf /var/lib/apt/lists/*

# An unprivileged user for the repository's commands (the check, the set-up, the fix commands);
# uid 1001 is the GitHub-hosted runner's user, who owns the mounted workspace.
# uv installs other Python versions into /opt/uv/python, usable by root and by that user.
RUN useradd --create-home --uid 1001 --shell /bin/bash fixbot \
    && install --directory --owner fixbot /opt/uv /opt/uv/python

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore \
    UV_PYTHON_INSTALL_DIR=/opt/uv/python \
    LITELLM_LOCAL_MODEL_COST_MAP=True \
    FIXBOT_RUNTIME=container

WORKDIR /opt/fixbot
COPY constraints.txt pyproject.toml README.md ./
COPY fixbot ./fixbot
RUN pip install --constraint constraints.txt . "uv==${UV_VERSION}" \
    && fixbot --version \
    && uv --version \
    && git --version

# tini runs as PID 1 and reaps orphaned grandchildren of the check, which fixbot (not PID 1)
# kills but cannot reap.
ENTRYPOINT ["/usr/bin/tini", "--", "fixbot", "action"]
