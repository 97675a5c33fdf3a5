#!/usr/bin/env bash
# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# The GPU bundle as a GPU node would get it, checked on this machine: made from the build once
# (gpu_bundle_make.sh: ci/gpu-bundle.sh --skip-build), unpacked into a fresh folder, then
#   1. every library any of its programs resolves lies in the bundle, or is glibc / libstdc++,
#      or CUDA (the node's own);
#   2. from a scrubbed environment (env -i, env.sh only), the CPU parts run: devices, models,
#      plan, step --backend cpu, one optimizer-step row on one rank (Open MPI as a singleton),
#      validate; and the dynamic loader's own record (LD_DEBUG) shows that no process of them
#      loaded a library from outside the bundle other than glibc / libstdc++ / CUDA;
#   3. first-contact.sh runs end to end within its budget, passes the loader and the CPU path,
#      and marks every GPU phase n/a with the reason when there is no GPU;
#   4. SIGTERM to first-contact.sh during a phase ends that phase's processes, exit 143, and
#      the report says the run was stopped.
# Usage: gpu_bundle_test.sh ARCHIVE.tar.xz (made by gpu_bundle_make.sh)
set -euo pipefail
[ "$#" -eq 1 ] && [ -f "$1" ] ||
  { echo "usage: gpu_bundle_test.sh ARCHIVE.tar.xz (made by gpu_bundle_make.sh)" >&2; exit 2; }
archive="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# Allowed from outside the bundle: the C and C++ runtimes, and CUDA (the node's).
allowed='/(ld-linux-x86-64|libc|libm|libdl|libpthread|librt|libutil|libresolv|libgcc_s|libstdc\+\+|libcuda|libcudart|libcublas|libcublasLt|libcusolver|libcusparse|libnvJitLink|libnccl)\.so[.0-9]*$'

mkdir "${work}/node"
tar -C "${work}/node" -xJf "${archive}"
b="${work}/node/canzona-gpu-bundle"
for f in env.sh first-contact.sh gpu-step-compare.sh npy_tool.py MANIFEST bin/canzona-bench \
         bin/canzona_bench_optimizer_step lib/libmpi.so.40; do
  [ -e "${b}/${f}" ] || fail "the bundle has no ${f}"
done
grep -q "^needs glibc: GLIBC_2\." "${b}/MANIFEST" || fail "MANIFEST does not record the glibc it needs"

# 1. Static closure.
while read -r file; do
  LD_LIBRARY_PATH="${b}/lib" ldd "${file}" 2>&1 | while read -r name arrow path _; do
    [ "${arrow}" = "=>" ] || continue
    if [ "${path}" = "not" ]; then
      [[ "/${name}" =~ ${allowed} ]] || fail "${file#"${b}"/}: ${name} not found"
    elif [[ "${path}" != "${b}/"* ]] && ! [[ "${path}" =~ ${allowed} ]]; then
      fail "${file#"${b}"/} resolves ${name} outside the bundle: ${path}"
    fi
  done
done < <(find "${b}/bin" "${b}/lib" "${b}/libexec" -type f 2>/dev/null | while read -r f; do
           head -c 4 "${f}" | grep -q ELF && echo "${f}"; done)

# 2. The CPU parts from a scrubbed environment, the loader recording what each process loads.
/usr/bin/python3 "${root}/ci/npy_tool.py" make "${work}/p.npy" 24 16 1 0.02
/usr/bin/python3 "${root}/ci/npy_tool.py" make "${work}/g.npy" 24 16 2 1.0
mkdir "${work}/lddebug"
env -i HOME="${work}" PATH=/usr/bin:/bin LD_DEBUG=libs LD_DEBUG_OUTPUT="${work}/lddebug/trace" \
  bash -c '
    set -euo pipefail
    source "$1/env.sh"
    cd "$2"
    canzona-bench devices
    canzona-bench models >/dev/null
    canzona-bench plan --model qwen3-8b --dp 8 --tp 8 --strategy canzona >/dev/null
    canzona-bench step --optimizer muon --param p.npy --grad g.npy --backend cpu --out q.npy
    canzona-bench run --preset smoke --backend cpu --ranks 1 --launcher env \
      --filter "OptimizerStep/muon/canzona/.*gpus:1/" --repetitions 1 --out row.json
    canzona-bench validate row.json' _ "${b}" "${work}" >"${work}/cpu.log" 2>&1 ||
  fail "the CPU parts from the bundle: $(tail -n 20 "${work}/cpu.log")"
[ -s "${work}/q.npy" ] && [ -s "${work}/row.json" ] || fail "no step or run output"
# One trace file per process, one segment per program the process ran (each exec starts with
# the loader's own init); the segments of the bundle's programs (the shell and its tools are the
# machine's own) must load nothing from outside it but the allowed runtimes, dlopen'ed Open MPI
# components included.
segments="$(awk '
  FNR == 1 { seg++ }
  /calling init: / { if ($NF ~ /ld-linux/) seg++; libs[seg] = libs[seg] " " $NF }
  /transferring control: / { prog[seg] = $NF }
  END { for (s in prog) if (prog[s] ~ /(^|\/)canzona(-bench|_bench_[a-z_0-9]+)$/) print prog[s] ":" libs[s] }
' "${work}"/lddebug/trace.*)"
processes="$(grep -c . <<<"${segments}" || true)"
[ "${processes}" -ge 7 ] || fail "expected a loader trace per bundle program run (7 or more), got ${processes}"
outside="$(cut -d: -f2- <<<"${segments}" | tr ' ' '\n' | sed '/^$/d' | sort -u | grep -v "^${b}/" |
           grep -vE "${allowed}" || true)"
[ -z "${outside}" ] || fail "loaded from outside the bundle: ${outside}"

# 3. first-contact.sh end to end.
t0=${SECONDS}
rc=0
env -i HOME="${work}" PATH=/usr/bin:/bin bash "${b}/first-contact.sh" --budget 120 \
  --out "${work}/report" >"${work}/first-contact.log" 2>&1 || rc=$?
wall=$((SECONDS - t0))
summary="${work}/report/summary.md"
[ -f "${summary}" ] || fail "first-contact.sh wrote no summary: $(tail -n 20 "${work}/first-contact.log")"
[ -f "${work}/report/logs.tar.gz" ] && [ -f "${work}/report/devices.json" ] || fail "no logs or devices.json"
[ "${wall}" -le 125 ] || fail "first-contact.sh took ${wall} s of a 120 s budget"
grep -q '^| pass | loader |' "${summary}" || fail "loader not passed: $(cat "${summary}")"
grep -q '^| pass | CPU path from the bundle' "${summary}" || fail "CPU path not passed: $(cat "${summary}")"
if ! env -i PATH=/usr/bin:/bin bash -c 'source "$1/env.sh"; canzona-bench devices --require' _ "${b}" \
     >/dev/null 2>&1; then
  [ "${rc}" -eq 0 ] || fail "first-contact.sh exited ${rc} on a machine without a GPU: $(cat "${summary}")"
  for phase in canzona_test_backend_cuda_gpu "compute-sanitizer memcheck" \
               "canzona-bench step, cpu vs cuda" "timed rows"; do
    grep -qE "^\| n/a \| ${phase} \| .+ \|$" "${summary}" ||
      fail "phase '${phase}' not marked n/a with a reason: $(cat "${summary}")"
  done
  grep -q "No usable GPU (" "${summary}" || fail "the summary does not say why there is no GPU"
  rc=0
  env -i PATH=/usr/bin:/bin bash "${b}/first-contact.sh" --budget 60 --require-gpu \
    --out "${work}/report2" >/dev/null 2>&1 || rc=$?
  [ "${rc}" -eq 1 ] || fail "--require-gpu without a GPU exited ${rc}, not 1"
fi
rc=0
bash "${b}/first-contact.sh" --budget 5 >/dev/null 2>&1 || rc=$?
[ "${rc}" -eq 2 ] || fail "a budget under 60 s exited ${rc}, not 2"

# 4. SIGTERM while a phase runs (the CPU path's optimizer-step run): the phase's processes end,
# the report says so, exit 143.
env -i HOME="${work}" PATH=/usr/bin:/bin setsid bash "${b}/first-contact.sh" --budget 120 \
  --out "${work}/report3" >"${work}/first-contact3.log" 2>&1 &
fc=$!
# The CPU path starts right after the devices row; its optimizer-step run takes seconds.
for _ in $(seq 1200); do
  grep -q "canzona-bench devices" "${work}/first-contact3.log" && break
  sleep 0.1
done
grep -q "canzona-bench devices" "${work}/first-contact3.log" || fail "first-contact.sh never got past its probe"
sleep 0.5
kill -TERM "${fc}"
rc=0
wait "${fc}" || rc=$?
[ "${rc}" -eq 143 ] || fail "first-contact.sh ended with ${rc} after SIGTERM, not 143"
sleep 1
! pgrep -f "${b}/bin/canzona" >/dev/null || fail "processes of the stopped phase are left: $(pgrep -af "${b}/bin/canzona")"
grep -q '^| FAIL | first contact | terminated by a signal' "${work}/report3/summary.md" ||
  fail "the report does not say the run was stopped: $(cat "${work}/report3/summary.md")"
echo "PASS: bundle $(du -h "${archive}" | cut -f1), ${processes} processes traced, first contact ${wall} s"
