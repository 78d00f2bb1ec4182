#!/bin/bash
# Out-of-fold right-for-the-right-reason on the 21 selection KBs (tests/kgqa/data/kg_*): each KB read by `graphhop
# eval-qa` with the chain reranker fold model that never saw it, the confidence on (the default) and off.
#
#   bash benchmarks/kgqa_oof.sh FOLDS OUT [-o KEY=VALUE ...]     then: python benchmarks/kgqa_summary.py OUT
#
# FOLDS holds fold0, fold1, fold2: the fold models of benchmarks/kgqa_rerank_folds.py (its `--work W` writes
# W/fold<i>/epoch<e>; session 14's figures use epoch 3), fold i held out = the i-th, i+3-th, ... of the sorted KB
# names. The shipped weight w = 0.5 is passed, whatever the fold's config says. Run from the repository root with
# `graphhop` on the PATH; extra arguments go to every eval-qa call (e.g. -o rerank_beam=16).
set -euo pipefail
folds=$1; out=$2; shift 2
mkdir -p "$out"
mapfile -t kbs < <(ls -d tests/kgqa/data/kg_* | sort)
for i in "${!kbs[@]}"; do
  f=${kbs[$i]}; n=$(basename "$f"); fold=$folds/fold$((i % 3))
  nice -n 5 graphhop eval-qa "$f" --json --threads 1 -o rerank="$fold" -o rerank_w=0.5 "$@" \
    --details "$out/$n.on.details" > "$out/$n.on.json" 2> "$out/$n.on.err"
  nice -n 5 graphhop eval-qa "$f" --json --threads 1 -o abstain=false -o rerank="$fold" -o rerank_w=0.5 "$@" \
    --details "$out/$n.off.details" > "$out/$n.off.json" 2> "$out/$n.off.err"
  echo "done $n fold$((i % 3)) $(date +%T)"
done
