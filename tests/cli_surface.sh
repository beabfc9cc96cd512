#!/usr/bin/env bash
# The fluid's surface through the real binary: `run --save bin,obj` writes
# frames/NNNN.obj beside the .bin frames, each read back by the OBJ reader
# (test_blobby check-obj) with the counts its header states, closed, and
# enclosing between half and all of the particles' volume; `fluidlab
# surface` rebuilds the same OBJ, byte for byte, from the .bin frames
# alone (with 1 and 2 threads, and with run.json's --surface-spacing); bad
# input ends with one line on stderr, exit 1, and no OBJ for a frame that
# cannot be read; bench surface --frame refuses a scene whose domain or
# spacing is not the frame's run's.
# usage: cli_surface.sh FLUIDLAB SCRATCH_DIR TEST_BLOBBY
set -u
source "$(dirname "$0")/cli_common.sh"
test_blobby=$3
export OMP_WAIT_POLICY=passive

out="$dir/run"
"$bin" run dam_break --solver wcsph --frames 3 --set fluid.spacing=0.02 --save bin,obj --quiet --no-plot \
  --out "$out" 2>/dev/null
check "run with --save bin,obj" $?
for f in 0000 0001 0002 0003; do
  "$test_blobby" check-obj 0.02 "$out/frames/$f.bin" "$out/frames/$f.obj"
  check "frame $f: the OBJ reads back with its counts, closed, with the fluid's volume" $?
done
[ -z "$(ls "$out"/frames/*.tmp 2>/dev/null)" ]; check "no .tmp left" $?

again="$dir/again"
cp -r "$out" "$again" && rm "$again"/frames/*.obj
"$bin" surface "$again" --quiet 2>/dev/null
check "surface on the .bin frames" $?
same=0
for f in 0000 0001 0002 0003; do cmp -s "$out/frames/$f.obj" "$again/frames/$f.obj" || same=1; done
check "surface: the same OBJ as --save obj, byte for byte" $same
rm "$again"/frames/*.obj
"$bin" surface "$again" --threads 1 --quiet 2>/dev/null
same=$?
for f in 0000 0001 0002 0003; do cmp -s "$out/frames/$f.obj" "$again/frames/$f.obj" || same=1; done
check "surface --threads 1: the same OBJ" $same
"$bin" surface "$again" --spacing 0.015 --quiet 2>/dev/null && ! cmp -s "$out/frames/0003.obj" "$again/frames/0003.obj"
check "surface --spacing 0.015: another mesh" $?
"$test_blobby" check-obj 0.02 "$again/frames/0003.bin" "$again/frames/0003.obj"
check "surface --spacing 0.015: closed, with the fluid's volume" $?

coarse="$dir/coarse"
"$bin" run dam_break --solver wcsph --frames 1 --set fluid.spacing=0.02 --save bin,obj --surface-spacing 0.015 \
  --quiet --no-plot --out "$coarse" 2>/dev/null
check "run with --surface-spacing 0.015" $?
cp "$coarse/frames/0001.obj" "$dir/coarse.obj" && rm "$coarse"/frames/*.obj
"$bin" surface "$coarse" --quiet 2>/dev/null && cmp -s "$dir/coarse.obj" "$coarse/frames/0001.obj"
check "surface takes run.json's surface spacing: the same OBJ" $?

# bad input: one line on stderr, exit 1
one_line() { # expected exit status, then the command
  local want=$1
  shift
  "$@" >/dev/null 2>"$dir/err"
  local rc=$?
  [ "$rc" -eq "$want" ] && [ "$(wc -l <"$dir/err")" -eq 1 ]
}
one_line 1 "$bin" surface "$dir/missing"; check "surface: a missing folder" $?
mkdir -p "$dir/empty/frames" && cp "$out/run.json" "$dir/empty/"
one_line 1 "$bin" surface "$dir/empty"; check "surface: no frames" $?
grep -q "no particle frames" "$dir/err"; check "surface: no frames, said so" $?
bad="$dir/bad"
cp -r "$out" "$bad" && rm "$bad"/frames/*.obj
head -c 100 "$out/frames/0002.bin" >"$bad/frames/0002.bin"
one_line 1 "$bin" surface "$bad" --quiet; check "surface: a truncated frame" $?
grep -q "0002.bin" "$dir/err"; check "surface: the truncated frame named" $?
[ ! -e "$bad/frames/0002.obj" ] && [ -z "$(ls "$bad"/frames/*.tmp 2>/dev/null)" ]
check "surface: no OBJ and no .tmp for the truncated frame" $?
one_line 1 "$bin" surface "$again" --spacing -1; check "surface: a negative spacing" $?
one_line 1 "$bin" run dam_break --save objx --out "$dir/x"; check "run --save objx" $?
one_line 1 "$bin" run dam_break --save obj --surface-spacing 0 --out "$dir/x"; check "run --surface-spacing 0" $?
one_line 1 "$bin" run dam_break --surface-spacing 0.01 --out "$dir/x"; check "run --surface-spacing without --save obj" $?
[ ! -e "$dir/x" ]; check "bad options: nothing written" $?
"$bin" surface --help | grep -q "RUN_DIR"; check "surface --help" $?
"$bin" --help | grep -q "surface RUN_DIR"; check "fluidlab --help lists surface" $?
# the benchmarks on a saved frame and on the bunny, logging nowhere
"$bin" bench surface --scene dam_break --frame "$out/frames/0002.bin" --repeat 1 --warmup 0 --no-log \
  --set fluid.spacing=0.02 >"$dir/bench.txt" 2>&1 && grep -q "triangles" "$dir/bench.txt"
check "bench surface --frame: a saved frame rebuilt" $?
one_line 1 "$bin" bench surface --frame "$dir/none.bin" --no-log; check "bench surface --frame: a missing frame" $?
# the frame's run says which scene it is: another domain or spacing (here
# the default scene, flip_case1, or the run's scene at another spacing)
# would set the surface's grid wrong
for other in "" "--scene dam_break --set fluid.spacing=0.04"; do
  # shellcheck disable=SC2086
  one_line 1 "$bin" bench surface $other --frame "$out/frames/0002.bin" --repeat 1 --no-log &&
    grep -q "its run (.*run.json) has another domain or fluid.spacing than --scene's; give its scene (.*dam_break.json)" \
      "$dir/err"
  check "bench surface --frame with ${other:-the default scene}: refused, naming the run's scene" $?
done
# the run is found whatever the path's spelling: //, ./, from inside frames/, a link
ln -sfn "$out/frames" "$dir/frames_link"
for f in "$out/frames//0002.bin" "$out/frames/./0002.bin" "$dir/frames_link/0002.bin"; do
  one_line 1 "$bin" bench surface --frame "$f" --repeat 1 --no-log && grep -q "has another domain" "$dir/err"
  check "bench surface --frame $f: the run found, refused" $?
done
(cd "$out/frames" && one_line 1 "$bin" bench surface --frame ./0002.bin --repeat 1 --no-log) &&
  grep -q "has another domain" "$dir/err"
check "bench surface --frame ./0002.bin from inside frames/: the run found, refused" $?
one_line 1 "$bin" bench grid --frame "$out/frames/0002.bin" --no-log && grep -q "only with bench surface" "$dir/err"
check "bench grid --frame: refused (only bench surface takes a frame)" $?
"$bin" bench voxelize --scene pbf_bunny --set fluid.spacing=0.2 --repeat 1 --warmup 0 --no-log >"$dir/vox.txt" 2>&1 &&
  grep -q "inside" "$dir/vox.txt"
check "bench voxelize: the bunny" $?
one_line 1 "$bin" bench voxelize --scene dam_break --no-log; check "bench voxelize: a scene without meshes" $?

report
