#!/usr/bin/env bash
# Pictures of a run through the real binary: `fluidlab render` draws each
# saved particle frame (--save bin) to render/NNNN.png (a PNG of the size
# asked for, different from frame to frame as the water falls) and, with
# --gif and gnuplot, render.gif with one image a frame; --frame N draws one;
# the scene's solid meshes are drawn (flip_case3's bunny), and a rigid
# tool where the run saved it beside each frame (tool_cup: frames/NNNN_tool.obj,
# an OBJ whose vertices lie at the sphere's radius about tool.csv's centre);
# render's pictures leave `run --save png`'s frames/NNNN.png as they were,
# and a new run into the folder removes them;
# a folder without frames, a missing frame and a bad --size are refused
# with one line and exit 1, writing nothing.
# usage: cli_render.sh FLUIDLAB SCRATCH_DIR
set -u
source "$(dirname "$0")/cli_common.sh"

out="$dir/run"
"$bin" run dam_break --solver wcsph --frames 2 --set fluid.spacing=0.04 --save bin --quiet --no-plot \
  --out "$out" 2>/dev/null
check "run with --save bin" $?
"$bin" render "$out" --size 320x240 --quiet
check "render: exit 0" $?
for f in 0000 0001 0002; do
  # the signature, then IHDR's width and height (big-endian) at bytes 16-23
  [ "$(head -c 8 "$out/render/$f.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] &&
    [ "$(head -c 24 "$out/render/$f.png" | tail -c 8 | od -An -tx1 | tr -d ' \n')" = 00000140000000f0 ]
  check "render/$f.png: a PNG of 320 x 240" $?
done
! cmp -s "$out/render/0000.png" "$out/render/0002.png"
check "the pictures of frames 0 and 2 differ" $?
[ -z "$(ls "$out/frames" | grep png)" ]
check "nothing drawn into frames/" $?
rm "$out"/render/*.png
"$bin" render "$out" --frame 1 --quiet && [ -s "$out/render/0001.png" ] && [ ! -e "$out/render/0000.png" ]
check "--frame 1 draws frame 1 alone" $?
if command -v gnuplot >/dev/null; then
  "$bin" render "$out" --gif --size 160x120 --quiet && [ "$(head -c 6 "$out/render.gif")" = GIF89a ] &&
    [ ! -e "$out/run.gif" ] && [ ! -e "$out/render.gif.tmp" ]
  check "--gif: render.gif" $?
  # run --save png's pictures stay as they were beside render's
  png="$dir/png"
  "$bin" run dam_break_2d --solver wcsph --frames 1 --set fluid.spacing=0.04 --save bin,png --quiet --no-plot \
    --out "$png" 2>/dev/null && cp "$png/frames/0001.png" "$dir/gnuplot.png" && cp "$png/run.gif" "$dir/gnuplot.gif" &&
    "$bin" render "$png" --gif --size 160x120 --quiet && cmp -s "$dir/gnuplot.png" "$png/frames/0001.png" &&
    cmp -s "$dir/gnuplot.gif" "$png/run.gif" && [ -s "$png/render/0001.png" ] && [ -s "$png/render.gif" ]
  check "run --save png's frames/NNNN.png and run.gif left as they were" $?
else
  echo "note: no gnuplot: --gif left out"
fi
# a scene's solid meshes are drawn: the bunny of flip_case3 changes the picture
solid="$dir/solid"
"$bin" run flip_case3 --solver flip --frames 1 --set fluid.spacing=0.02 --set solvers.flip.dx=0.04 --save bin \
  --quiet --no-plot --out "$solid" 2>/dev/null &&
  "$bin" render "$solid" --frame 1 --size 160x120 --quiet && cp "$solid/render/0001.png" "$dir/with.png" &&
  sed -i 's#"scene_file":.*#"scene_file": "/nonexistent.json",#' "$solid/run.json" &&
  "$bin" render "$solid" --frame 1 --size 160x120 2>"$dir/nosolid.txt" && grep -q "no solids drawn" "$dir/nosolid.txt" &&
  ! cmp -s "$dir/with.png" "$solid/render/0001.png"
check "the scene's solid mesh drawn (and a missing scene file: drawn without it, said once)" $?
# the scene as it ran: run.json's, its meshes found from any folder (it
# named the scene file relative to where the run started), and not the
# file as it is now (render read the file again: an edit moved the bunny);
# without its file the same picture has no bunny
case3="$dir/case3"
mkdir -p "$case3" "$dir/reference"
cp "$(dirname "$0")/../scenes/flip_case3.json" "$case3/scene.json"
cp "$(dirname "$0")/../reference/bunny.obj" "$dir/reference/"
(cd "$case3" && "$bin" run scene.json --solver flip --frames 1 --set fluid.spacing=0.02 --set solvers.flip.dx=0.04 \
  --save bin --quiet --no-plot --out out 2>/dev/null) &&
  (cd / && "$bin" render "$case3/out" --frame 1 --size 160x120 --quiet) && cp "$case3/out/render/0001.png" "$dir/as_run.png" &&
  sed -i 's#"translate": \[0.8, 0.001, 0.14\]#"translate": [0.3, 0.001, 0.3]#' "$case3/scene.json" &&
  grep -q '"translate": \[0.3, 0.001, 0.3\]' "$case3/scene.json" &&
  (cd / && "$bin" render "$case3/out" --frame 1 --size 160x120 --quiet) && cmp -s "$dir/as_run.png" "$case3/out/render/0001.png" &&
  sed -i 's#"scene_file":.*#"scene_file": "/nonexistent.json",#' "$case3/out/run.json" &&
  "$bin" render "$case3/out" --frame 1 --size 160x120 --quiet && ! cmp -s "$dir/as_run.png" "$case3/out/render/0001.png"
check "the solids of the scene as it ran, from any folder, whatever its file says now" $?
# the rigid tool: its surface saved beside each frame, on the sphere of
# tool.csv's centre (the scene's radius, to the OBJ's 9 digits: 1e-6 m), and drawn:
# without the file the picture changes; a new run into the folder removes
# the pictures of the last one
tool="$dir/tool"
"$bin" run tool_cup --solver pcisph --frames 2 --set fluid.spacing=0.02 --save bin --quiet --no-plot \
  --out "$tool" 2>/dev/null &&
  [ -s "$tool/frames/0000_tool.obj" ] && [ -s "$tool/frames/0002_tool.obj" ] &&
  head -n 1 "$tool/frames/0002_tool.obj" | grep -q "rigid tool's surface"
check "tool_cup --save bin: frames/NNNN_tool.obj beside every frame" $?
# frame 2 at t = 0.04 s: the centre of the step that ended there, tool.csv's last row's
awk -F, -v obj="$tool/frames/0002_tool.obj" -v r="$(grep -o '"radius": *[0-9.]*' "$(dirname "$0")/../scenes/tool_cup.json" | grep -o '[0-9.]*$')" '
  NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
  { cx = $col["x"]; cy = $col["y"]; cz = $col["z"] }
  END {
    n = 0; worst = 0
    while ((getline line < obj) > 0) {
      split(line, f, " ")
      if (f[1] != "v") continue
      d = sqrt((f[2] - cx) ^ 2 + (f[3] - cy) ^ 2 + (f[4] - cz) ^ 2) - r
      if (d < 0) d = -d
      if (d > worst) worst = d
      n++
    }
    printf "tool surface: %d vertices, farthest off the sphere %.3g m\n", n, worst
    exit !(n > 100 && worst < 1e-6)
  }' "$tool/tool.csv"
check "the tool's surface on the sphere about tool.csv's centre" $?
"$bin" render "$tool" --frame 2 --size 160x120 --quiet && cp "$tool/render/0002.png" "$dir/tool_with.png" &&
  rm "$tool/frames/0002_tool.obj" && "$bin" render "$tool" --frame 2 --size 160x120 --quiet &&
  ! cmp -s "$dir/tool_with.png" "$tool/render/0002.png"
check "the tool drawn" $?
"$bin" run tool_cup --solver pcisph --frames 1 --set fluid.spacing=0.02 --quiet --no-plot --out "$tool" 2>/dev/null &&
  [ ! -e "$tool/render" ] && [ ! -e "$tool/frames" ]
check "a new run into the folder removes render/ and frames/" $?
# bad input: one line on stderr, exit 1, no picture
refused() { # name, expected text, arguments...
  local name=$1 want=$2
  shift 2
  "$bin" render "$@" >/dev/null 2>"$dir/err"
  local rc=$?
  [ $rc -eq 1 ] && [ "$(wc -l <"$dir/err")" -eq 1 ] && grep -q -- "$want" "$dir/err"
  check "$name refused (exit $rc: $(head -n 1 "$dir/err"))" $?
}
mkdir -p "$dir/empty" && cp "$out/run.json" "$dir/empty/"
refused "a run without frames" "no saved frame" "$dir/empty"
refused "a missing frame" "no such frame" "$out" --frame 7
refused "--size 10x10" "expected WxH" "$out" --size 10x10
# a frame with a position that is not finite was drawn as if whole (surface refuses it)
cp -r "$out" "$dir/nanrun" && rm -rf "$dir/nanrun"/render
printf '\x00\x00\xc0\x7f' | dd of="$dir/nanrun/frames/0001.bin" bs=1 seek=32 conv=notrunc 2>/dev/null
refused "a frame with a NaN position" "0001.bin: particle 0 is at a position that is not finite" "$dir/nanrun" --frame 1
mkdir -p "$dir/nojson"
refused "a folder without run.json" "render: .*run.json: cannot open" "$dir/nojson"
refused "a missing folder" "render: .*nothing: no such run folder" "$dir/nothing"
# a view that is not finite drew a blank picture; a pole has no up direction
refused "--view 30,nan" "expected AZ,EL" "$out" --view 30,nan
refused "--view inf,25" "expected AZ,EL" "$out" --view inf,25
refused "--view 30,90" "strictly between -90 and 90" "$out" --view 30,90
[ ! -e "$dir/empty/frames" ]
check "nothing written for a refused command" $?
report
