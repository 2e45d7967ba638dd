#!/usr/bin/env bash
# Build fixbot's container image on this machine, without Docker Hub or a Docker daemon.
#
#   bash scripts/build-image.sh            # prints the image's name (localhost/fixbot:<key>)
#
# buildah (rootful, vfs storage, chroot isolation) builds the project's unchanged Dockerfile on a
# stand-in for python:3.11-slim-bookworm made with debootstrap from Debian's mirror (see
# docs/image.md, "The stand-in base"). Both are cached in $FIXBOT_IMAGE_CACHE (default
# ~/.cache/fixbot/image, buildah's own storage under it) by the hash of what goes into them:
# the base by this script's base recipe, the image by the Dockerfile, .dockerignore,
# constraints.txt, pyproject.toml, README.md, scripts/image_trim.py and fixbot/ (what the
# Dockerfile copies). A second
# run with the same files builds nothing. Needs root, buildah and debootstrap (`apt-get install buildah
# debootstrap`; scripts/setup.sh installs them when it runs as root).
#
# The machine's CA bundle and pip configuration (index, certificate) are mounted into the build
# for its RUN steps, never copied into a layer, so pip reaches the package index here the way it
# does on this machine.
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE="${FIXBOT_IMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fixbot/image}"
SUITE=bookworm
MIRROR="${FIXBOT_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
BASE_PACKAGES=python3,python3-venv,python3-pip,ca-certificates
CA_BUNDLE="${FIXBOT_CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}"

# Debian's container images (debuerreotype's "slim" variant, which python:*-slim builds on) keep
# no documentation, manual pages or translations, and tell dpkg not to install them: the same here.
SLIM='path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/lintian/overrides/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/man/*'

# Debian's container images also tell apt to keep no package cache: no pkgcache.bin or
# srcpkgcache.bin (80 MB after an `apt-get update`), no downloaded .deb once installed. An image
# built on the stand-in without this carried 96 MB that the real base never has.
APT_CLEAN='Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };'

die() {
  echo "build-image.sh: $*" >&2
  exit 1
}
[ "$(id -u)" = 0 ] || die "run as root (buildah's vfs storage and debootstrap need it)"
command -v buildah >/dev/null || die "buildah is missing: apt-get install -y buildah debootstrap"
command -v debootstrap >/dev/null || die "debootstrap is missing: apt-get install -y debootstrap"
mkdir -p "$CACHE"
exec 9>"$CACHE/lock"
flock 9 # one build at a time: two test sessions share the cache

bh() { buildah --root "$CACHE/storage" --runroot "$CACHE/run" --storage-driver vfs "$@"; }
have() { bh inspect --type image "$1" >/dev/null 2>&1; }
# Keep the newest $KEEP tags of repository $1 and $2 (the one in use): with vfs every image is a
# full copy on disk, and a test session of another work tree may still run an older one.
KEEP="${FIXBOT_IMAGE_KEEP:-3}"
prune() {
  local old
  bh images --noheading --format '{{.CreatedAtRaw}}|{{.Name}}:{{.Tag}}' | sort -r | cut -d'|' -f2 \
    | awk -v repo="$1" -v keep="$2" -v n="$KEEP" \
      'index($0, repo ":") == 1 && $0 != keep { if (++seen >= n) print }' \
    | while read -r old; do bh rmi "$old" >/dev/null 2>&1 || true; done
}

# -- the stand-in base -------------------------------------------------------------------------
base_recipe() {
  printf '%s\n' "$SUITE" "$BASE_PACKAGES" "$MIRROR" minbase usr-local-python no-externally-managed no-bytecode
  printf '%s\n' "$SLIM" "$APT_CLEAN"
}
base_key=$(base_recipe | sha256sum | cut -c1-12)
BASE="localhost/fixbot-base:$base_key"
if ! have "$BASE"; then
  echo "build-image.sh: building the stand-in base $BASE (debootstrap $SUITE from $MIRROR)" >&2
  rootfs="$CACHE/rootfs-$base_key"
  rm -rf "$rootfs"
  debootstrap --variant=minbase --include="$BASE_PACKAGES" "$SUITE" "$rootfs" "$MIRROR" >&2
  # As in python:3.11-slim-bookworm: `python` in /usr/local/bin, pip may install there, the
  # Debian mirror (with updates and security) in the apt sources, no package lists kept.
  ln -sf /usr/bin/python3 "$rootfs/usr/local/bin/python"
  ln -sf /usr/bin/python3 "$rootfs/usr/local/bin/python3"
  rm -f "$rootfs"/usr/lib/python3*/EXTERNALLY-MANAGED
  # As in python:3.11-slim-bookworm, whose build deletes every .pyc of its Python (docker-library's
  # Dockerfile: `find /usr/local ... -name '*.pyc' ... -exec rm -rf`): Debian compiled its Python
  # files when it installed them (24 MB); the real base carries none.
  find "$rootfs/usr/lib" -depth -name __pycache__ -path '*/python3*' -exec rm -rf {} +
  rm -f "$rootfs/etc/apt/sources.list"
  cat >"$rootfs/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $MIRROR
Suites: $SUITE $SUITE-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: ${MIRROR%/debian}/debian-security
Suites: $SUITE-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/archives/*.deb
  printf '%s\n' "$SLIM" >"$rootfs/etc/dpkg/dpkg.cfg.d/docker-slim"
  printf '%s\n' "$APT_CLEAN" >"$rootfs/etc/apt/apt.conf.d/docker-clean"
  rm -f "$rootfs"/var/cache/apt/*.bin
  find "$rootfs/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
  find "$rootfs/usr/share/doc" -mindepth 1 -type d -empty -delete
  rm -rf "$rootfs"/usr/share/{groff,info,linda,man,locale}/* "$rootfs"/usr/share/lintian/overrides/*
  ctr=$(bh from --quiet scratch)
  trap 'bh rm "$ctr" >/dev/null 2>&1 || true' EXIT
  mnt=$(bh mount "$ctr")
  tar -C "$rootfs" -cf - . | tar -C "$mnt" -xf -
  bh umount "$ctr" >/dev/null
  bh config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --env LANG=C.UTF-8 --cmd python3 "$ctr"
  bh commit --quiet "$ctr" "$BASE" >/dev/null
  bh rm "$ctr" >/dev/null
  trap - EXIT
  rm -rf "$rootfs"
fi
prune localhost/fixbot-base "$BASE"


# -- the image -----------------------------------------------------------------------------------
image_key=$( (
  echo "$BASE"
  sha256sum Dockerfile .dockerignore constraints.txt pyproject.toml README.md scripts/image_trim.py
  find fixbot bench/corpus/regression bench/corpus/world-moved bench/corpus/tool-upgrade \
    bench/corpus/test-change -type f -not -path '*/__pycache__/*' -print0 | LC_ALL=C sort -z |
    xargs -0 sha256sum
) | sha256sum | cut -c1-12)
IMAGE="localhost/fixbot:$image_key"
if ! have "$IMAGE"; then
  echo "build-image.sh: building $IMAGE from the Dockerfile on $BASE" >&2
  [ -r "$CA_BUNDLE" ] || die "no CA bundle at $CA_BUNDLE (set FIXBOT_CA_BUNDLE)"
  conf="$CACHE/pip-build.conf"
  {
    echo "[global]"
    echo "cert = /etc/fixbot-build/ca.crt"
    # The machine's package index, when it names one over the network (a file:// index or
    # find-links folder is not mounted into the build).
    for key in index-url extra-index-url trusted-host; do
      value=$(python3 -m pip config get "global.$key" 2>/dev/null || true)
      value=$(printf '%s' "$value" | tr ' ' '\n' | grep -E '^(https?://|[a-z0-9.-]+$)' || true)
      [ -n "$value" ] && printf '%s = %s\n' "$key" "$(echo $value)"
    done
  } >"$conf"
  bh build --quiet --isolation chroot --network host --pull=never --from "$BASE" \
    --volume "$CA_BUNDLE:/etc/fixbot-build/ca.crt:ro" --volume "$conf:/etc/pip.conf:ro" \
    --tag "$IMAGE" --file Dockerfile . >&2
fi
prune localhost/fixbot "$IMAGE"
echo "$IMAGE"
