#!/usr/bin/env bash
# A run's particle frames through the real binary: --save bin,vtu,vtk
# writes frames/NNNN.bin, .vtu and .vtk and frames.pvd listing the .vtu
# series; our reader (test_io check-run) and, where python3-vtk9 is
# installed, VTK's own (check_vtu.py --run) read the series back and find
# the .bin frames' positions and times, bit for bit. An interrupted run
# leaves a .pvd listing exactly the frames it wrote; a fixed step that does
# not divide the frame saves every few steps, and the .pvd lists them all;
# a rigid tool's surfaces go to tool.pvd, one .vtp a frame, and VTK reads
# in each the mesh of the OBJ beside it.
# usage: cli_frames.sh FLUIDLAB SCRATCH_DIR TEST_IO PYTHON3|none CHECK_VTU_PY
set -u
source "$(dirname "$0")/cli_common.sh"
test_io=$3
python=$4
check_vtu=$5

out="$dir/run"
"$bin" run dam_break --solver wcsph --frames 3 --set fluid.spacing=0.04 --save bin,vtu,vtk --quiet --no-plot \
  --out "$out" 2>/dev/null
check "run with --save bin,vtu,vtk" $?
for f in 0000 0001 0002 0003; do
  [ -s "$out/frames/$f.bin" ] && [ -s "$out/frames/$f.vtu" ] && [ -s "$out/frames/$f.vtk" ]
  check "frame $f in the three formats" $?
done
[ "$(grep -c '<DataSet ' "$out/frames.pvd")" -eq 4 ]; check "frames.pvd lists the 4 frames" $?
"$test_io" check-run "$out"; check "our reader: the .pvd series equals the .bin frames" $?
if [ "$python" != none ] && "$python" -c 'import vtk' 2>/dev/null; then
  "$python" "$check_vtu" --run "$out"; check "VTK's reader: the .pvd series equals the .bin frames" $?
else
  echo "note: no python3 with vtk (apt-get install python3-vtk9): VTK's reader left out"
fi

# a rigid tool: its surface beside every frame as .vtp too, listed in tool.pvd
tool="$dir/tool"
"$bin" run tool_cup --solver pcisph --frames 2 --set fluid.spacing=0.02 --save bin,vtu --quiet --no-plot \
  --out "$tool" 2>/dev/null &&
  [ "$(grep -c '<DataSet ' "$tool/tool.pvd")" -eq 3 ] && [ -s "$tool/frames/0002_tool.vtp" ]
check "a tool run with --save vtu: tool.pvd lists its 3 surfaces" $?
if [ "$python" != none ] && "$python" -c 'import vtk' 2>/dev/null; then
  "$python" "$check_vtu" --run "$tool"; check "VTK's reader: tool.pvd's surfaces are the OBJ's" $?
fi

# interrupted after a few frames: the .pvd lists what was written, all of it readable
out="$dir/interrupted"
"$bin" run dam_break --solver sph --frames 400 --set fluid.spacing=0.04 --save bin,vtu --quiet --no-plot \
  --out "$out" 2>/dev/null &
pid=$!
for _ in $(seq 600); do
  [ -s "$out/frames/0003.vtu" ] && break
  sleep 0.1
done
kill -INT $pid
wait $pid
[ $? -eq 130 ]; check "interrupted: exit 130" $?
listed=$(grep -c '<DataSet ' "$out/frames.pvd")
written=$(ls "$out"/frames/*.vtu | wc -l)
[ "$listed" -eq "$written" ] && [ "$listed" -ge 4 ]; check "interrupted: frames.pvd lists the $written frames written ($listed)" $?
grep -Eq "\"frames_saved\":[[:space:]]*$written," "$out/run.json"; check "interrupted: run.json counts them" $?
"$test_io" check-run "$out"; check "interrupted: our reader reads the series" $?

# a fixed step that does not divide the frame (1/48 s at 20 fps): a frame
# every 2 steps, 12 of them in 0.5 s where 10 frame times fit; frames.pvd
# has room for them all (it used to stop the run after the 12th planned)
out="$dir/uneven"
"$bin" run dam_break_2d --solver pbf --dt 0.0208333333 --set time.fps=20 --set time.duration=0.5 \
  --set fluid.spacing=0.04 --save vtu --quiet --no-plot --out "$out" 2>"$dir/uneven.txt"
check "a step that does not divide the frame: exit 0 ($(head -n 1 "$dir/uneven.txt"))" $?
listed=$(grep -c '<DataSet ' "$out/frames.pvd")
written=$(ls "$out"/frames/*.vtu | wc -l)
[ "$listed" -eq "$written" ] && [ "$written" -eq 13 ]; check "uneven: frames.pvd lists all 13 frames ($listed of $written)" $?

report
