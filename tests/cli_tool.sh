#!/usr/bin/env bash
# `fluidlab tool` (the streamed tool loop), `bench --tool` and
# `figures --only tool` through the real binary, on the small tank of
# tests/fixtures/tool_small.json (about 2 000 particles, a sphere dipped in
# its surface):
#   the stream: 5 ticks in, 5 lines "t fx fy fz" out with the input's
#     times, tool.csv with a row per step (a tick of 2.5 steps is 3 of
#     them, the last one landing on the tick; one of 1.01 steps is two
#     even ones, no sliver), run.json stable; a tick under dt/2 after the
#     simulated time takes no step and answers the force as it stands;
#   --measure-every N: the same forces, N in run.json, a crushed loop still
#     stopped by the compression criterion; bad values refused;
#   a mesh tool (tool_bunny) streamed and run;
#   bad input: a line that is not four numbers, times out of order, a
#     tick of more than 1e5 steps, a target outside the domain: exit 1, one line naming the input and the
#     line, run.json incomplete; a scene without a tool: exit 1, one line,
#     nothing written;
#   a closed stdout: exit 2, run.json incomplete (closed from the start:
#     exit 2, nothing written); SIGINT while it waits for
#     a tick: exit 130, run.json interrupted;
#   the stream on the device emulator (--device emu): the same steps, and
#     each tick's force within 1 % of the CPU's;
#   bench --tool: a row in tool_pbf_cpu.csv, and with --device emu in
#     tool_pbf_emu.csv; figures --only tool --smoke: figures 7 and 8 (their
#     CSV; PNG and SVG with gnuplot), report.md.
# usage: cli_tool.sh FLUIDLAB SCRATCH_DIR
set -u
source "$(dirname "$0")/cli_common.sh"
scene=$(cd "$(dirname "$0")" && pwd)/fixtures/tool_small.json
tool() { "$bin" tool "$scene" --solver pbf "$@"; }
status() { grep -E '"status":' "$1/run.json" | sed -E 's/.*"status":[[:space:]]*"([^"]*)".*/\1/'; }
one_line() { [ "$(wc -l < "$1")" -eq 1 ]; }

# the stream
printf '0.001 0.1 0.109 0.1\n# a comment\n\n0.002 0.1 0.108 0.1\n0.0045 0.1 0.105 0.1\n0.005 0.1 0.104 0.1\n0.006 0.1 0.103 0.1\n' \
  > "$dir/ticks.txt"
tool --out "$dir/s" < "$dir/ticks.txt" > "$dir/s.out" 2> "$dir/s.err"
check "stream: exit 0" $?
[ "$(wc -l < "$dir/s.out")" -eq 5 ]; check "stream: 5 lines out for 5 ticks" $?
awk 'NF != 4 { bad = 1 } { for (i = 1; i <= NF; i++) if ($i !~ /^-?[0-9.]+(e[-+]?[0-9]+)?$/) bad = 1 } END { exit bad }' \
  "$dir/s.out"
check "stream: each line four numbers" $?
[ "$(cut -d' ' -f1 "$dir/s.out" | tr '\n' ' ')" = "0.001 0.002 0.0045 0.005 0.006 " ]
check "stream: the output's times are the input's" $?
head -1 "$dir/s/tool.csv" | grep -q '^step,time,x,y,z,vx,vy,vz,fx,fy,fz,.*,contacts,step_ms$'
check "stream: tool.csv has fl_run's header" $?
[ "$(tail -n +2 "$dir/s/tool.csv" | wc -l)" -eq 7 ]; check "stream: tool.csv has a row per step (7)" $?
[ "$(tail -1 "$dir/s/tool.csv" | cut -d, -f2)" = 0.006 ]; check "stream: the last step lands on the last tick" $?
[ "$(sed -n '4,5p' "$dir/s/tool.csv" | cut -d, -f3,4 | tr '\n' ' ')" = "0.1,0.108 0.1,0.1068 " ]
check "stream: a tick starts at the last one's target and moves on the line to its own" $?
[ "$(tail -1 "$dir/s.out" | cut -d' ' -f2-)" = "$(tail -1 "$dir/s/tool.csv" | cut -d, -f9-11 | tr , ' ')" ]
check "stream: the output is the last step's force" $?
[ "$(status "$dir/s")" = stable ] && grep -q '"ticks":[[:space:]]*5' "$dir/s/run.json"
check "stream: run.json stable, 5 ticks" $?
tool --out "$dir/f" --input "$dir/ticks.txt" > "$dir/f.out" 2> /dev/null && cmp -s "$dir/s.out" "$dir/f.out" &&
  diff <(cut -d, -f1-24 "$dir/s/tool.csv") <(cut -d, -f1-24 "$dir/f/tool.csv") > /dev/null
check "--input FILE: the same output and steps (step_ms aside) as stdin" $?
# a tick of 1.01 steps: two even steps, not a full one and a sliver of 1 %
# (PBF's velocity is its correction over the step: a sliver made it unstable)
printf '0.00101 0.1 0.109 0.1\n' | tool --out "$dir/sl" > /dev/null 2>&1 &&
  [ "$(tail -n +2 "$dir/sl/tool.csv" | cut -d, -f2 | tr '\n' ' ')" = "0.000505 0.00101 " ]
check "stream: a tick that would leave a sliver lands in two even steps" $?

# a tick less than dt/2 after the simulated time takes no step (FLIP's
# force went as 1 / step: 3e13 N for a tick 1e-12 s after the last): it is
# answered with the force as it stands, and run.json counts it
printf '0.001 0.1 0.109 0.1\n0.001000000000001 0.1 0.109 0.1\n0.0014 0.1 0.109 0.1\n0.002 0.1 0.108 0.1\n' |
  "$bin" tool "$scene" --solver flip --out "$dir/short" > "$dir/short.out" 2> /dev/null &&
  [ "$(tail -n +2 "$dir/short/tool.csv" | cut -d, -f2 | tr '\n' ' ')" = "0.001 0.002 " ] &&
  [ "$(sed -n 1p "$dir/short.out" | cut -d' ' -f2-)" = "$(sed -n 2p "$dir/short.out" | cut -d' ' -f2-)" ] &&
  [ "$(sed -n 3p "$dir/short.out" | cut -d' ' -f2-)" = "$(sed -n 1p "$dir/short.out" | cut -d' ' -f2-)" ] &&
  grep -Eq '"ticks_without_a_step":[[:space:]]*2' "$dir/short/run.json"
check "ticks under dt/2 after the simulated time: no step, the force as it stands" $?

# --measure-every: the density (the metrics) only on steps 1, 1 + N, ...;
# the physics is untouched, and the compression criterion still stops a
# loop that is crushed (gravity 2000 m/s^2, one PBF iteration: above 20 %
# from about step 4), at most N - 1 steps after the step it stops at when
# measuring every step
tool --measure-every 3 --out "$dir/m3" < "$dir/ticks.txt" > "$dir/m3.out" 2> /dev/null &&
  cmp -s "$dir/s.out" "$dir/m3.out" && grep -Eq '"measure_every":[[:space:]]*3' "$dir/m3/run.json"
check "--measure-every 3: the same forces, run.json says 3" $?
awk 'BEGIN { for (k = 1; k <= 100; k++) printf "%.3f 0.1 0.109 0.1\n", k * 0.001 }' > "$dir/crush.txt"
crushed() { # N: the step at which the crushed loop stops
  tool --measure-every "$1" --set 'gravity=[0,-2000,0]' --set solvers.pbf.solver_iterations=1 --out "$dir/crush$1" \
    --input "$dir/crush.txt" > /dev/null 2> "$dir/crush$1.err"
  [ $? -eq 3 ] && grep -q 'compression error above 20 %' "$dir/crush$1.err" &&
    sed -E 's/.*unstable at step ([0-9]+) .*/\1/' "$dir/crush$1.err"
}
s1=$(crushed 1) && s4=$(crushed 4) && [ "$s4" -ge "$s1" ] && [ "$s4" -le $((s1 + 3)) ]
check "--measure-every 4: a crushed loop still stops on compression (step ${s4:-none}; every step: ${s1:-none})" $?
for v in 0 1.5 abc 1000001; do
  echo '0.001 0.1 0.109 0.1' | tool --measure-every "$v" --out "$dir/mbad" > /dev/null 2> "$dir/mbad.err"
  [ $? -eq 1 ] && one_line "$dir/mbad.err" && grep -q -- "--measure-every $v: expected a whole number" "$dir/mbad.err" &&
    [ ! -e "$dir/mbad" ]
  check "--measure-every $v: exit 1, one line, nothing written" $?
done

# the stream on the device emulator: the same steps; the forces are the
# CPU's up to float sums in another order (1e-6 relative a step, grown over
# 7 steps of PBF to about 1e-3 of the force at most)
tool --device emu --out "$dir/e" < "$dir/ticks.txt" > "$dir/e.out" 2> /dev/null
check "stream --device emu: exit 0" $?
grep -Eq '"device":[[:space:]]*"emu"' "$dir/e/run.json" && [ "$(tail -n +2 "$dir/e/tool.csv" | wc -l)" -eq 7 ] &&
  [ "$(cut -d' ' -f1 "$dir/e.out" | tr '\n' ' ')" = "0.001 0.002 0.0045 0.005 0.006 " ]
check "stream --device emu: run.json names the device, a row per step, the input's times" $?
paste -d' ' "$dir/s.out" "$dir/e.out" | awk '
  { f = sqrt($2 * $2 + $3 * $3 + $4 * $4); if (f > top) top = f
    d = sqrt(($2 - $6) ^ 2 + ($3 - $7) ^ 2 + ($4 - $8) ^ 2); if (d > miss) miss = d }
  END { printf "  stream: largest force %.4g N, largest miss cpu - emu %.3g N\n", top, miss; exit !(top > 0.1 && miss <= 0.01 * top) }'
check "stream --device emu: each tick's force within 1 % of the CPU's" $?

# bad lines: exit 1, one line naming the input and the line
bad() { # name, expected text, input lines...
  local name=$1 want=$2
  shift 2
  printf '%s\n' "$@" | tool --out "$dir/$name" > /dev/null 2> "$dir/$name.err"
  local rc=$?
  [ $rc -eq 1 ] && one_line "$dir/$name.err" && grep -q -- "$want" "$dir/$name.err"
  check "$name: exit 1, one line: $want" $?
  [ "$(status "$dir/$name")" = incomplete ]; check "$name: run.json says incomplete" $?
}
bad three "stdin:2: expected four numbers 't x y z', got '0.01 1 2'" '0.001 0.1 0.11 0.1' '0.01 1 2'
bad words "stdin:1: expected four numbers 't x y z', got '0.01 a b c'" '0.01 a b c'
bad order "stdin:3: time t = 0.001 s is not after the previous tick's 0.002 s" \
  '0.001 0.1 0.11 0.1' '0.002 0.1 0.11 0.1' '0.001 0.1 0.11 0.1'
# a NUL byte ended the line for the parser: the rest was skipped as blank
printf '\0junk\n' | tool --out "$dir/nul" > /dev/null 2> "$dir/nul.err"
[ $? -eq 1 ] && one_line "$dir/nul.err" && grep -q 'stdin:1: .*a NUL byte' "$dir/nul.err"
check "a line with a NUL byte: exit 1, one line naming it" $?
bad cr "stdin:1: expected one tick a line, ended by LF or CR LF, got a CR inside the line" \
  "$(printf '0.001 0.1 0.11 0.1\r0.002 0.1 0.11 0.1\r')"
printf '0.001 0.1 0.109 0.1\r\n0.002 0.1 0.108 0.1\r\n' | tool --out "$dir/crlf" > "$dir/crlf.out" 2> /dev/null &&
  [ "$(wc -l < "$dir/crlf.out")" -eq 2 ]
check "CR LF line ends: two ticks" $?
bad far "stdin:1: time t = 1000 s is 1000000 steps of 0.001 s after the loop.s start, 0 s, expected at most 100000" '1000 0.1 0.11 0.1'
bad outside "stdin:2: the target (0.1, 0.19, 0.1) puts the tool outside the domain" \
  '0.001 0.1 0.11 0.1' '0.002 0.1 0.19 0.1'
printf '# ticks\n0.001 0.1 0.11 0.1\nnan 0.1 0.11 0.1\n' > "$dir/nan.txt"
tool --out "$dir/nan" --input "$dir/nan.txt" > /dev/null 2> "$dir/nan.err"
[ $? -eq 1 ] && one_line "$dir/nan.err" && grep -q -- "$dir/nan.txt:3: expected four numbers" "$dir/nan.err"
check "--input FILE: a bad line is named FILE:LINE" $?
tool --out "$dir/dirin" --input "$dir" > /dev/null 2> "$dir/dirin.err"
[ $? -eq 1 ] && one_line "$dir/dirin.err" && grep -q "Is a directory" "$dir/dirin.err" && [ ! -e "$dir/dirin" ]
check "--input a folder: exit 1, one line, nothing written" $?
tool --out "$dir/dirin2" < "$dir" > /dev/null 2> "$dir/dirin2.err"
[ $? -eq 1 ] && one_line "$dir/dirin2.err" && grep -q "stdin: cannot read: Is a directory" "$dir/dirin2.err" &&
  [ ! -e "$dir/dirin2" ]
check "stdin a folder: exit 1, one line, nothing written" $?
printf '# a comment\rwith a CR\n0.001 0.1 0.109 0.1\n' | tool --out "$dir/crc" > "$dir/crc.out" 2> /dev/null &&
  [ "$(wc -l < "$dir/crc.out")" -eq 1 ]
check "a comment holding a CR: skipped" $?

# a start pose outside the domain is named by the scene's key: the path's
# first key when the scene gives a path (the stream starts from it), not a
# tool.position the scene does not have
echo '0.001 0.1 0.11 0.1' | "$bin" tool "$scene" --solver pbf --set 'tool={"shape": "sphere", "radius": 0.5, "path": [{"t": 0, "position": [0.1, 0.11, 0.1]}]}' \
  --out "$dir/pathstart" > /dev/null 2> "$dir/pathstart.err"
[ $? -eq 1 ] && one_line "$dir/pathstart.err" && grep -q 'tool.path\[0\]: at t = 0 s its surface reaches' "$dir/pathstart.err"
check "a path's start outside the domain: named tool.path[0] ($(head -c 120 "$dir/pathstart.err"))" $?

# a mesh tool (the shipped tool_bunny): streamed, and run for 20 steps
printf '0.001 0.15 0.299 0.15\n0.002 0.15 0.298 0.15\n' |
  "$bin" tool tool_bunny --solver pbf --out "$dir/bunny" > "$dir/bunny.out" 2> /dev/null &&
  [ "$(wc -l < "$dir/bunny.out")" -eq 2 ] && [ "$(status "$dir/bunny")" = stable ]
check "stream a mesh tool (tool_bunny): two answers, run.json stable" $?
"$bin" run tool_bunny --solver pbf --set time.duration=0.02 --quiet --out "$dir/bunnyrun" 2> /dev/null &&
  [ "$(tail -n +2 "$dir/bunnyrun/tool.csv" | wc -l)" -eq 20 ] && [ "$(status "$dir/bunnyrun")" = stable ]
check "run tool_bunny for 20 steps: tool.csv has 20 rows, run.json stable" $?

# a scene without a tool: nothing written
echo '0.001 0.1 0.1 0.1' | "$bin" tool hydrostatic --solver pbf --out "$dir/notool" > /dev/null 2> "$dir/notool.err"
[ $? -eq 1 ] && one_line "$dir/notool.err" && grep -q 'the scene has no tool' "$dir/notool.err"
check "a scene without a tool: exit 1, one line" $?
[ ! -e "$dir/notool" ]; check "a scene without a tool: nothing written" $?

# a reader that goes away: a failed write, not a crash
awk 'BEGIN { for (i = 1; i <= 200; i++) printf "%g 0.1 0.11 0.1\n", i * 0.001 }' |
  tool --out "$dir/pipe" 2> "$dir/pipe.err" | head -1 > /dev/null
rc=${PIPESTATUS[1]}
[ "$rc" -eq 2 ] && grep -q 'standard output: write failed' "$dir/pipe.err"; check "a closed stdout: exit 2 ($rc)" $?
[ "$(status "$dir/pipe")" = incomplete ]; check "a closed stdout: run.json says incomplete" $?
# stdout closed from the start: tool.csv took its descriptor and the
# answers went into it, with exit 0
echo '0.001 0.1 0.11 0.1' | tool --out "$dir/noout" 2> "$dir/noout.err" >&-
rc=$?
[ "$rc" -eq 2 ] && one_line "$dir/noout.err" && grep -q 'standard output is closed' "$dir/noout.err" &&
  [ ! -e "$dir/noout" ]
check "stdout closed at the start: exit 2 ($rc), one line, nothing written" $?
echo '0.001 0.1 0.11 0.1' | "$bin" tool "$scene" --solver nosuch --out "$dir/noout2" 2> /dev/null >&-
rc=$?
[ "$rc" -eq 1 ] && [ ! -e "$dir/noout2" ]; check "stdout closed, and a bad option: the option's exit 1 ($rc)" $?

# SIGINT while waiting for the next tick: the input a FIFO held open
mkfifo "$dir/ticks.fifo"
"$bin" tool "$scene" --solver pbf --out "$dir/int" < "$dir/ticks.fifo" > "$dir/int.out" 2> /dev/null &
pid=$!
exec 3> "$dir/ticks.fifo"
echo '0.001 0.1 0.11 0.1' >&3
for _ in $(seq 300); do [ -s "$dir/int.out" ] && break; sleep 0.1; done
kill -INT $pid
wait $pid
rc=$?
exec 3>&-
[ "$rc" -eq 130 ] && [ "$(status "$dir/int")" = interrupted ] && [ "$(wc -l < "$dir/int.out")" -eq 1 ]
check "SIGINT while waiting for a tick: exit 130, run.json interrupted ($rc)" $?

"$bin" tool --help | grep -q 't x y z'; check "tool --help" $?

# bench --tool: a row in the log
"$bin" bench --tool --sizes 500 --steps 3 --warmup 1 --log "$dir/perf" > "$dir/bench.out"
check "bench --tool: exit 0" $?
[ "$(wc -l < "$dir/perf/tool_pbf_cpu.csv")" -eq 2 ] && grep -q ',rate_hz_mean,' "$dir/perf/tool_pbf_cpu.csv"
check "bench --tool: tool_pbf_cpu.csv has its header and a row" $?
"$bin" bench --tool --device emu --sizes 500 --steps 3 --warmup 1 --log "$dir/perf" > "$dir/bench_emu.out"
check "bench --tool --device emu: exit 0" $?
[ "$(wc -l < "$dir/perf/tool_pbf_emu.csv")" -eq 2 ] && grep -q '^| pbf | emu | ' "$dir/bench_emu.out"
check "bench --tool --device emu: its row in tool_pbf_emu.csv" $?

# figures 7 and 8
out=$dir/figures
"$bin" figures --smoke --only tool --quiet --out "$out" 2> "$dir/figures.err"
check "figures --only tool --smoke: exit 0" $?
for f in fig7_tool_force fig7_tool_phases fig8_tool_rate; do
  [ -s "$out/$f.csv" ]; check "$f.csv is written" $?
done
if command -v gnuplot > /dev/null; then
  for f in fig7_tool_force fig8_tool_rate; do
    [ "$(head -c 8 "$out/$f.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; check "$f.png is a PNG" $?
    grep -q '<svg' "$out/$f.svg"; check "$f.svg is an SVG" $?
  done
fi
[ "$(grep -c '^## Figure [78]\. ' "$out/report.md")" -eq 2 ]; check "report.md has figures 7 and 8" $?
grep -q 'The GPU points are absent: \|(cuda) (dt' "$out/report.md"; check "report.md says where the GPU points are" $?
report
