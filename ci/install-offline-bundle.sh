#!/usr/bin/env bash
# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# Installs the Debian packages of a bundle made by ci/offline-bundle.sh, without network: checks
# every file against SHA256SUMS, then has apt install the project's packages from the bundle as
# from a mirror (it takes only what the node lacks). Needs root (or sudo).
set -euo pipefail
usage() {
  cat <<'USAGE'
usage: ci/install-offline-bundle.sh BUNDLE.tar|BUNDLE_DIR

Verifies the bundle (sha256sum -c SHA256SUMS) and installs the project's packages with apt from
the bundle alone (a local repository); nothing is fetched from the network. Afterwards
bash ci/test.sh finds every dependency present and installs nothing.
USAGE
}
case "${1:-}" in -h|--help|'') usage; [ -n "${1:-}" ]; exit $? ;; esac

bundle="$1"
if [ -d "${bundle}" ]; then
  dir="$(cd "${bundle}" && pwd)"
else
  [ -f "${bundle}" ] || { echo "error: no bundle at '${bundle}'" >&2; exit 2; }
  dir="$(mktemp -d)"
  trap 'rm -rf "${dir}"' EXIT
  tar -xf "${bundle}" -C "${dir}"
fi
[ -f "${dir}/SHA256SUMS" ] || { echo "error: ${bundle} has no SHA256SUMS: not a bundle of ci/offline-bundle.sh" >&2; exit 2; }
(cd "${dir}" && sha256sum --quiet -c SHA256SUMS) ||
  { echo "error: ${bundle} is damaged (checksums differ); copy it again" >&2; exit 2; }

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "error: not root and no sudo" >&2; exit 2; }
  sudo=(sudo)
fi
# The bundle is a flat apt repository; apt sees it alone (its own sources list and package lists,
# the system's are untouched) and installs the wanted packages with whatever they lack from it.
state="$(mktemp -d)"
mkdir -p "${state}/lists/partial" "${state}/parts"
chmod 755 "${dir}" "${state}"  # apt reads file: repositories as its unprivileged _apt user
echo "deb [trusted=yes] file:${dir} ./" > "${state}/sources.list"
apt_opts=(-o Dir::Etc::SourceList="${state}/sources.list" -o Dir::Etc::SourceParts="${state}/parts"
          -o Dir::State::Lists="${state}/lists")
mapfile -t wanted < "${dir}/PACKAGES_WANTED"
echo "[canzona] installing ${wanted[*]} from ${bundle} ($(wc -l < "${dir}/MANIFEST") packages)"
"${sudo[@]}" apt-get "${apt_opts[@]}" update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get "${apt_opts[@]}" install -y -q \
  --no-install-recommends "${wanted[@]}"
rm -rf "${state}"
echo "[canzona] done; bash ci/test.sh will find every dependency"
