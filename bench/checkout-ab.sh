#!/usr/bin/env bash
# Interleaved A/B of two release builds on the checkout bench (SQLite): the machine's speed drifts
# from minute to minute, so builds compare only run against run, alternating.
#
#   OLD=/tmp/stoa-old NEW=/tmp/stoa-new N=6 bench/checkout-ab.sh
#
# Each of N pairs runs `BACKGROUND=0 DURATION=10 bench/checkout.sh sqlite` with OLD, then NEW, and
# prints one line per run: the pair, the build, bench/checkout.sh's row, the writer's held share and
# time per checkout, write transactions per checkout, server CPU per paid checkout. Then the mean
# paid/s of each build. The client's logs of each run go to bench/results/ab-<build>-<pair>.log.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${OLD:?OLD=path of the first stoa binary}" "${NEW:?NEW=path of the second}"
N=${N:-6}
mkdir -p bench/results
declare -A sum=([old]=0 [new]=0)
for i in $(seq 1 "$N"); do
  for b in old new; do
    bin=$OLD; [ "$b" = new ] && bin=$NEW
    log="bench/results/ab-$b-$i.log"
    row=$(STOA_BIN=$bin BACKGROUND=0 DURATION=${DURATION:-10} bench/checkout.sh sqlite 2>"$log" | grep '^| sqlite' || true)
    held=$(grep -o 'held [0-9]* % of the time ([0-9.]* ms per checkout' "$log" | head -1 || true)
    tx=$(grep -o '([0-9.]* per checkout) in' "$log" | head -1 || true)
    cpu=$(grep -o '[0-9.]* ms per paid checkout' "$log" | head -1 || true)
    echo "$i $b $row $held | $tx | $cpu"
    paid=$(echo "$row" | awk -F'|' '{gsub(/ /,"",$8); print $8}')
    sum[$b]=$(awk -v a="${sum[$b]}" -v p="${paid:-0}" 'BEGIN{print a+p}')
  done
done
awk -v o="${sum[old]}" -v n="${sum[new]}" -v k="$N" 'BEGIN{printf "mean paid/s: old %.1f, new %.1f (%+.1f %%)\n", o/k, n/k, (n-o)/o*100}'
