#!/usr/bin/env bash
# Install what scripts/build-image.sh needs (buildah, debootstrap and Debian's archive keys), and
# sudo for the runner mode's uid split (tests/github/test_runner_split.py), and gcc for the
# LD_PRELOAD library of the GITHUB_ENV attacks (tests/fakes/preload.py), and go for the go test
# reports (tests/run/test_runner_reports.py; Debian's golang-go), when this machine
# can: running as root with apt-get. Elsewhere it says what is missing and returns
# 0: the image tests (tests/test_image_e2e.py) then skip with that reason, or fail under CI=true.
set -euo pipefail
missing=()
for tool in buildah debootstrap sudo gcc go; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
[ -e /usr/share/keyrings/debian-archive-keyring.gpg ] || missing+=(debian-archive-keyring)
[ "${#missing[@]}" -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "image-tools: ${missing[*]} missing (install them as root to run tests/test_image_e2e.py" \
    "and tests/github/test_runner_split.py)" >&2
  exit 0
fi
echo "image-tools: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get -o DPkg::Lock::Timeout=600 update -qq >&2
apt-get -o DPkg::Lock::Timeout=600 install -y -qq buildah debootstrap debian-archive-keyring sudo gcc libc6-dev golang-go >&2
