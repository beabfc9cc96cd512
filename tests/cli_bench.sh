#!/usr/bin/env bash
# `fluidlab bench flip --solves` through the real binary, on the dam break
# resampled at 8 000 particles: after one timed step, one more keeps the
# last pressure system, which is solved again 3 times with MIC(0) and 3
# times with the multigrid:
#   exit 0, the table's header names the system, its FLUID cells, the
#     run's tolerance (1e-6) and warm start;
#   both preconditioners reach the tolerance, and MIC(0) needs more
#     iterations than the multigrid (on this grid 14 against 5; a
#     preconditioner that did nothing would need as many as plain CG);
#   each preconditioner's set-up and applications take a positive time,
#     no more than its whole solves (medians: a part of every solve is no
#     more than the solve), and so do the step table's rows of the
#     linear solves' preconditioner;
#   the ratio line, and the log row in DIR/flip_solves.csv: the header's 18
#     columns, the row's 11 numbers after the quoted command, its
#     iterations those of the table.
# Bad input (--solves with another solver, --tool, a count that is not a
# whole number >= 1) is in cli_bad_input.sh.
set -u
. "$(dirname "$0")/cli_common.sh"

out="$dir/solves.txt"
"$bin" bench flip --particles 8000 --repeat 1 --steps 1 --warmup 1 --solves 3 --log "$dir/perf" >"$out" 2>&1
check "bench flip --solves 3: exit 0" $?
cat "$out"
grep -Eq "^flip's last pressure system \([0-9]+ FLUID cells, tolerance 1e-06, from the pressure the run started from\), solved 3 times" "$out"
check "the table's header" $?
mic=$(awk -F'|' '$2 ~ /^ MIC\(0\) $/ { print $3 + 0 }' "$out")
mg=$(awk -F'|' '$2 ~ /^ multigrid $/ { print $3 + 0 }' "$out")
! grep -q "short of the tolerance" "$out"; check "both reach the tolerance" $?
[ -n "$mic" ] && [ -n "$mg" ] && [ "$mg" -gt 0 ] && [ "$mic" -gt "$mg" ]
check "MIC(0) needs more iterations than the multigrid (${mic:-?} > ${mg:-?} > 0)" $?
parts_fit() { # a table row's median (field $1) and the set-up's and applications' (fields $2, $3)
  awk -F'|' -v m="$1" -v a="$2" -v b="$3" '{ exit !($a + 0 > 0 && $b + 0 > 0 && $a + 0 <= $m + 0 && $b + 0 <= $m + 0) }'
}
for k in "MIC(0)" multigrid; do
  grep -F "| $k | " "$out" | parts_fit 4 7 8; check "$k: set-up and applications within the solves" $?
done
solves=$(awk -F'|' '$2 ~ /^ \(pressure_solve.s linear solves\) $/ { print $3 + 0 }' "$out")
setup=$(awk -F'|' '$2 ~ /^ \(linear solves: preconditioner set-up\) $/ { print $3 + 0 }' "$out")
applied=$(awk -F'|' '$2 ~ /^ \(linear solves: preconditioner applied\) $/ { print $3 + 0 }' "$out")
echo "| $solves | $setup | $applied |" | parts_fit 2 3 4
check "the step table: preconditioner set-up ${setup:-?} and applied ${applied:-?} within the solves' ${solves:-?} ms" $?
grep -Eq '^MIC\(0\) / multigrid: [0-9.]+ by the medians, [0-9.]+ by the mins$' "$out"; check "the ratio line" $?
csv="$dir/perf/flip_solves.csv"
[ "$(head -1 "$csv" | tr ',' '\n' | wc -l)" -eq 18 ]; check "flip_solves.csv: 18 columns in the header" $?
tail_fields=$(tail -1 "$csv" | awk -F'"' '{ print $NF }')
[ "$(echo "$tail_fields" | awk -F, '{ print NF - 1 }')" -eq 11 ]; check "its row: 11 numbers after the command" $?
[ "$(echo "$tail_fields" | awk -F, '{ print $5 " " $8 }')" = "$mic $mg" ]; check "the row's iterations are the table's" $?
report
