#!/usr/bin/env bash
# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# Gathers the Debian 12 packages Canzona Bench needs (CANZONA_APT_PACKAGES in ci/common.sh and
# everything they depend on) into one tar file, for GPU nodes without network. Run it on a
# Debian 12 machine of the same architecture that reaches the Debian mirrors; carry the tar to
# the node and run ci/install-offline-bundle.sh there.
usage() {
  cat <<'USAGE'
usage: ci/offline-bundle.sh [--out FILE.tar] [--list]

Downloads (apt-get download, no installation) every package of CANZONA_APT_PACKAGES and
everything it depends on (Depends and Pre-Depends, no Recommends) into
FILE.tar, a flat apt repository (Packages index) with a MANIFEST (package and version per line)
and SHA256SUMS. The set is what apt
would install on an empty Debian 12 system, so it also suits a minimal node image.
The CUDA toolkit, cuBLAS, cuSOLVER, NCCL and the driver are NVIDIA's, not Debian's: a GPU node
has them installed already (found under /usr/local/cuda or via CUDACXX / NCCL_HOME).

options:
  --out FILE.tar   the bundle (default: .deps/canzona-deps-debian12-<arch>.tar)
  --list           print the packages that would be bundled and exit
  -h, --help       this text

On the node:  bash ci/install-offline-bundle.sh FILE.tar
USAGE
}
case "${1:-}" in -h|--help) usage; exit 0 ;; esac

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
arch="$(dpkg --print-architecture)"
out="${CANZONA_ROOT}/.deps/canzona-deps-debian12-${arch}.tar"
list_only=0
while [ "$#" -gt 0 ]; do
  case "$1" in
    --out) out="${2:?--out needs a file}"; shift 2 ;;
    --list) list_only=1; shift ;;
    *) echo "error: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

# The packages apt itself would install on a machine that has nothing yet: its resolver picks one
# alternative of every or-dependency (one OpenBLAS variant, not all three), with the versions of
# this machine's package lists. As name=version, what apt-get download takes.
closure() {
  local empty
  empty="$(mktemp -d)"
  mkdir -p "${empty}/archives/partial"
  touch "${empty}/status"
  apt-get install -y -qq --no-install-recommends --print-uris \
    -o Dir::State::status="${empty}/status" -o Dir::Cache::archives="${empty}/archives" \
    "${CANZONA_APT_PACKAGES[@]}" |
    sed -n "s/^'[^']*' \([^_ ]*\)_\([^_ ]*\)_[^ ]*\.deb .*/\1=\2/p" | sed 's/%3a/:/g' | sort
  rm -rf "${empty}"
}

packages="$(closure)"
[ -n "${packages}" ] || die "apt-cache found no packages: run 'apt-get update' first"
if [ "${list_only}" -eq 1 ]; then
  printf '%s\n' "${packages}"
  exit 0
fi

staging="$(mktemp -d)"
trap 'rm -rf "${staging}"' EXIT
chmod 755 "${staging}"  # apt-get download drops root privileges to the _apt user
log "downloading $(wc -l <<<"${packages}") packages into ${staging}"
# apt-get download writes into the current folder and needs no root.
(cd "${staging}" && xargs apt-get download -q <<<"${packages}")
# A flat apt repository: the node's apt resolves from it exactly as from a mirror.
(cd "${staging}" && for deb in *.deb; do
   dpkg-deb -W --showformat='${Package} ${Version}\n' "${deb}" >> MANIFEST
   dpkg-deb -f "${deb}"
   printf 'Filename: ./%s\nSize: %s\nSHA256: %s\n\n' "${deb}" "$(stat -c %s "${deb}")" \
     "$(sha256sum "${deb}" | cut -d' ' -f1)"
 done > Packages
 printf '%s\n' "${CANZONA_APT_PACKAGES[@]}" > PACKAGES_WANTED
 sha256sum ./*.deb MANIFEST Packages PACKAGES_WANTED > SHA256SUMS)
cp "${CANZONA_ROOT}/ci/install-offline-bundle.sh" "${staging}/"
mkdir -p "$(dirname "${out}")"
# Written beside the target and renamed: a reader never sees half a bundle.
tar -cf "${out}.partial" -C "${staging}" .
mv "${out}.partial" "${out}"
log "bundle: ${out} ($(du -h "${out}" | cut -f1), $(wc -l < "${staging}/MANIFEST") packages)"
log "on the node: bash ci/install-offline-bundle.sh ${out##*/}"
