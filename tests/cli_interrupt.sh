#!/usr/bin/env bash
# SIGINT and SIGTERM through the real binary (docs/design.md, "Outputs"):
# run, compare, sweep and figures stop at the end of the current step,
# run.json says "interrupted" with the steps done (every one of them a row
# of stats.csv), the output so far is kept, and the exit code is 130
# (SIGINT) or 143 (SIGTERM); a second signal stops the process at once,
# unless it comes within 0.1 s of the first (the same request twice).
# usage: cli_interrupt.sh FLUIDLAB SCRATCH_DIR
set -u
source "$(dirname "$0")/cli_common.sh"

# wait_for FILE MIN_LINES PID: until FILE has MIN_LINES lines (60 s at most,
# and not after PID ended)
wait_for() {
  for _ in $(seq 600); do
    [ -f "$1" ] && [ "$(wc -l < "$1")" -ge "$2" ] && return 0
    kill -0 "$3" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# interrupt SIG FILE ROWS COMMAND...: COMMAND in the background, signal SIG
# once FILE has ROWS lines; sets started (0 when FILE got there) and rc
# (COMMAND's exit status)
interrupt() {
  local sig=$1 file=$2 rows=$3
  shift 3
  "$@" &
  local pid=$!
  wait_for "$file" "$rows" $pid
  started=$?
  kill -"$sig" $pid
  wait $pid
  rc=$?
}

json() { # file, key: the value of "key" in run.json's result
  grep -E "\"$2\":" "$1" | tail -1 | sed -E 's/.*:[[:space:]]*"?([^",]*)"?,?$/\1/'
}

long_run=(dam_break --solver sph --frames 200 --set fluid.spacing=0.02 --quiet)

# run, SIGINT then SIGTERM
for sig in INT TERM; do
  code=$([ $sig = INT ] && echo 130 || echo 143)
  out="$dir/run_$sig"
  # an earlier run's finished-looking files in the folder: a command's
  # marker, the summary, a frame; the new run removes them as it starts
  mkdir -p "$out/frames" && echo stable > "$out/run.complete" && : > "$out/summary.png" && : > "$out/frames/0003.bin" &&
    : > "$out/tool.csv"
  interrupt $sig "$out/stats.csv" 20 "$bin" run "${long_run[@]}" --out "$out" 2> "$out.err"
  check "run ($sig): steps under way" $started
  [ ! -e "$out/run.complete" ] && [ ! -e "$out/summary.png" ] && [ ! -e "$out/frames" ] && [ ! -e "$out/tool.csv" ]
  check "run ($sig): no earlier run's marker, summary, frame or tool.csv left beside it" $?
  [ $rc -eq $code ]; check "run: SIG$sig exits $code (got $rc)" $?
  [ "$(json "$out/run.json" status)" = interrupted ]; check "run ($sig): run.json says interrupted" $?
  steps=$(json "$out/run.json" steps)
  rows=$(($(wc -l < "$out/stats.csv") - 1))
  [ "$steps" -eq "$rows" ] && [ "$rows" -ge 19 ]; check "run ($sig): run.json's $steps steps are the $rows rows of stats.csv" $?
  planned=$(grep -E '"steps_planned":' "$out/run.json" | grep -Eo '[0-9]+')
  [ "$steps" -lt "$planned" ]; check "run ($sig): stopped early ($steps of $planned steps)" $?
  grep -q "SIG$sig" "$out/run.json"; check "run ($sig): the reason names the signal" $?
  [ "$(wc -l < "$out.err")" -eq 1 ] && grep -q "interrupted" "$out.err"; check "run ($sig): one line on stderr" $?
  [ ! -e "$out/summary.png" ]; check "run ($sig): no summary drawn" $?
done

# long_steps NAME FRAMES: FRAMES FLIP steps of a whole second each (each
# takes seconds) in the background into $dir/NAME; sets out and pid once
# the first step is under way
long_steps() {
  out="$dir/$1"
  "$bin" run dam_break --solver flip --dt 1 --frames "$2" --set time.fps=1 --set fluid.spacing=0.005 --quiet \
    --out "$out" 2> "$out.err" &
  pid=$!
  wait_for "$out/run.json" 1 $pid; check "$1: the step is under way" $?
  sleep 0.3
}

# a second signal stops at once: the first SIGINT waits for the step's
# end, the second does not
long_steps twice 1
kill -INT $pid
sleep 0.3
kill -0 $pid 2>/dev/null; check "twice: the first SIGINT lets the step finish" $?
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ]; check "twice: killed by SIGINT (status $rc)" $?
[ "$(json "$out/run.json" status)" = running ]; check "twice: run.json still says running (not complete)" $?
! grep -q interrupted "$out.err"; check "twice: it did not wait to write its interrupted line" $?

# the same request delivered twice (timeout -s INT signals the process and
# then its group): two SIGINTs at once are one, the first of two steps
# finishes and run.json says interrupted
long_steps double 2
kill -INT $pid; kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] && [ "$(json "$out/run.json" status)" = interrupted ] && grep -q interrupted "$out.err"
check "double: two SIGINTs at once stop it as one (status $rc, run.json interrupted)" $?

# render: stops between pictures, says so, exit 130 (it died at the signal)
out="$dir/render_run"
"$bin" run dam_break_2d --solver sph --frames 40 --save bin --quiet --no-plot --out "$out" 2>/dev/null
"$bin" render "$out" --size 2400x1800 2> "$out.err" &
pid=$!
for _ in $(seq 600); do [ -s "$out/render/0000.png" ] && break; sleep 0.05; done
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] && grep -q "render: interrupted by SIGINT after [0-9]* of 41 pictures" "$out.err"
check "render: interrupted between pictures, said so (status $rc)" $?

# bench: the benchmark under way ends its timings, its row is not logged,
# and the command stops there (the second size not run)
out="$dir/bench"
"$bin" bench --tool --sizes 2000,3000 --steps 100000 --warmup 0 --log "$out" > "$out.txt" 2> "$out.err" &
pid=$!
sleep 1
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] && grep -q "bench: interrupted by SIGINT; tool_pbf_cpu not logged" "$out.err" &&
  [ ! -e "$out/tool_pbf_cpu.csv" ] && ! grep -q "| 3000 \|| pbf | cpu | 3[0-9][0-9][0-9] " "$out.txt"
check "bench: interrupted, said so, its row not logged, the next size not run (status $rc)" $?

# compare: the solver under way is interrupted, the others not run
out="$dir/compare"
interrupt INT "$out/sph/stats.csv" 20 "$bin" compare dam_break --solvers sph,wcsph --frames 200 \
  --set fluid.spacing=0.02 --quiet --out "$out" 2>/dev/null
check "compare: the first solver under way" $started
[ $rc -eq 130 ]; check "compare: exits 130 (got $rc)" $?
grep -q '^sph,cpu,interrupted,' "$out/compare.csv"; check "compare.csv: sph interrupted" $?
grep -q '^wcsph,cpu,not run,' "$out/compare.csv"; check "compare.csv: wcsph not run" $?
[ ! -e "$out/wcsph" ]; check "compare: wcsph never started" $?
[ "$(json "$out/sph/run.json" status)" = interrupted ]; check "compare: sph/run.json says interrupted" $?

# sweep: the same with its cases
out="$dir/sweep"
interrupt TERM "$out/case_01/stats.csv" 20 "$bin" sweep dam_break --solver sph --dt 0.0002,0.0001 --frames 200 \
  --set fluid.spacing=0.02 --quiet --out "$out" 2>/dev/null
check "sweep: case 1 under way" $started
[ $rc -eq 143 ]; check "sweep: exits 143 (got $rc)" $?
grep -q '^1,.*,interrupted,' "$out/sweep.csv"; check "sweep.csv: case 1 interrupted" $?
grep -q '^2,.*,not run,' "$out/sweep.csv"; check "sweep.csv: case 2 not run" $?

# figures: no figure and no report.md from part of the runs; the runs stay
# (--quick: its first run, the drop under SPH, lasts long enough to be caught)
out="$dir/figures"
mkdir -p "$out" && echo "# an earlier command's report" > "$out/report.md"
"$bin" figures --quick --only 1 --quiet --out "$out" 2> "$out.err" &
pid=$!
first=
for _ in $(seq 600); do
  first=$(ls "$out"/runs/fig1/*/stats.csv 2>/dev/null | head -1)
  [ -n "$first" ] && [ "$(wc -l < "$first")" -ge 5 ] && break
  sleep 0.1
done
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ]; check "figures: exits 130 (got $rc)" $?
[ ! -e "$out/report.md" ] && [ ! -e "$out/report.md.part" ]
check "figures: no report.md (an earlier command's removed too)" $?
ls "$out"/fig*.csv >/dev/null 2>&1
[ $? -ne 0 ]; check "figures: no figure data" $?
grep -q "interrupted by SIGINT after 1 of" "$out.err"; check "figures: says it was interrupted, after its first run" $?
[ -n "$first" ] && grep -q '"interrupted"' "$(dirname "$first")/run.json"
check "figures: the run under way says interrupted" $?
[ "$(ls -d "$out"/runs/fig1/*/ | wc -l)" -eq 1 ]; check "figures: no run started after it" $?

report
