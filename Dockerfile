# fixbot as a Docker container action. GitHub runs container actions as root (the workspace is
# mounted at /github/workspace); see
# https://docs.github.com/en/actions/sharing-automations/creating-actions/dockerfile-support-for-github-actions
FROM python:3.11-slim-bookworm

# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install --yes --no-install-recommends git ca-certificates tini \
    && rm -rf /var/lib/apt/lists/*

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    LITELLM_LOCAL_MODEL_COST_MAP=True

WORKDIR /opt/fixbot
COPY constraints.txt pyproject.toml README.md ./
COPY fixbot ./fixbot
RUN pip install --constraint constraints.txt . \
    && fixbot --version

# tini runs as PID 1 and reaps orphaned grandchildren of the check, which fixbot (not PID 1)
# kills but cannot reap.
ENTRYPOINT ["/usr/bin/tini", "--", "fixbot", "action"]
