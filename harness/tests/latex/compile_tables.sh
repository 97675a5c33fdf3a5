#!/usr/bin/env bash
# SPDX-FileCopyrightText: Canzona Bench contributors
# SPDX-License-Identifier: Apache-2.0
#
# Every LaTeX table of the stored runs, compiled by pdflatex as a paper would include it: the
# `table --format latex` output of each run in results/runs/ and results/accepted/ (with every
# strategy, and with `--baseline layerwise` where the run has it) and the stored .tex tables.
# Fails on any LaTeX error, on an overfull box over 1 pt and on a float too large for the page.
#
# usage: compile_tables.sh CANZONA_BENCH REPO_ROOT WORK_DIR
# Without pdflatex it skips (exit 77) unless CANZONA_REQUIRE_PDFLATEX=1 (ci/test.sh sets it).
set -euo pipefail

bench="$1"
root="$2"
work="$3"

if ! command -v pdflatex >/dev/null 2>&1; then
  if [ "${CANZONA_REQUIRE_PDFLATEX:-0}" = 1 ]; then
    echo "pdflatex is missing: install texlive-latex-base and texlive-latex-recommended" >&2
    exit 1
  fi
  echo "pdflatex not found: skipped"
  exit 77
fi

rm -rf "${work}"
mkdir -p "${work}"

tables=()
# One table file per way it is made; `--baseline layerwise` only where the run has layer-wise rows.
for run in "${root}"/results/runs/*.json "${root}"/results/accepted/*/*.json; do
  [ -e "${run}" ] || continue
  name="$(basename "$(dirname "${run}")")-$(basename "${run}" .json)"
  ( cd "${root}" && "${bench}" table "${run#"${root}"/}" --format latex ) >"${work}/${name}.tex" 2>"${work}/${name}.err" || {
    # A run without strategies in its names (Kernels) has optimizers side by side instead.
    ( cd "${root}" && "${bench}" table "${run#"${root}"/}" --format latex --compare-optimizers ) \
      >"${work}/${name}.tex" 2>"${work}/${name}.err" || { cat "${work}/${name}.err" >&2; exit 1; }
  }
  tables+=("${name}")
  if grep -q '/layerwise/' "${run}"; then
    ( cd "${root}" && "${bench}" table "${run#"${root}"/}" --format latex --baseline layerwise ) \
      >"${work}/${name}-layerwise.tex"
    tables+=("${name}-layerwise")
  fi
done
for stored in "${root}"/results/tables/*.tex; do
  [ -e "${stored}" ] || continue
  name="stored-$(basename "${stored}" .tex)"
  cp "${stored}" "${work}/${name}.tex"
  tables+=("${name}")
done
[ "${#tables[@]}" -gt 0 ] || { echo "no LaTeX tables found under ${root}/results" >&2; exit 1; }

failed=0
for name in "${tables[@]}"; do
  # The preamble the first comment of every table names.
  cat >"${work}/doc-${name}.tex" <<DOC
\\documentclass{article}
\\usepackage{booktabs}
\\usepackage{graphicx}
\\begin{document}
\\input{${name}.tex}
\\end{document}
DOC
  if ! (cd "${work}" && pdflatex -interaction=nonstopmode -halt-on-error "doc-${name}.tex" >/dev/null 2>&1); then
    echo "FAIL ${name}: pdflatex stopped:" >&2
    grep -A3 '^!' "${work}/doc-${name}.log" | head -20 >&2 || true
    failed=1
    continue
  fi
  log="${work}/doc-${name}.log"
  # "Overfull \hbox (12.3pt too wide)": boxes over 1 pt fail; so do overfull \vbox and floats
  # too large for the page.
  bad="$(grep -E 'Overfull \\[hv]box \([0-9.]+pt' "${log}" |
    awk '{ size = $0; sub(/^[^(]*\(/, "", size); sub(/pt.*$/, "", size); if (size + 0 > 1.0) print }' ||
    true)"
  too_large="$(grep -E 'Float too large' "${log}" || true)"
  if [ -n "${bad}${too_large}" ]; then
    echo "FAIL ${name}:" >&2
    printf '%s\n%s\n' "${bad}" "${too_large}" | sed '/^$/d' >&2
    failed=1
    continue
  fi
  pages="$(grep -oE 'Output written on .* \([0-9]+ pages?' "${log}" | grep -oE '[0-9]+ pages?' || true)"
  echo "ok ${name} (${pages})"
done
exit "${failed}"
