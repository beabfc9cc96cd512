#!/usr/bin/env bash
# Pictures of a run through the real binary: `fluidlab render` draws each
# saved particle frame (--save bin) to frames/NNNN.png (a PNG of the size
# asked for, different from frame to frame as the water falls) and, with
# --gif and gnuplot, run.gif with one image a frame; --frame N draws one;
# the scene's solid meshes are drawn (flip_case3's bunny);
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
  [ "$(head -c 8 "$out/frames/$f.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] &&
    [ "$(head -c 24 "$out/frames/$f.png" | tail -c 8 | od -An -tx1 | tr -d ' \n')" = 00000140000000f0 ]
  check "frames/$f.png: a PNG of 320 x 240" $?
done
! cmp -s "$out/frames/0000.png" "$out/frames/0002.png"
check "the pictures of frames 0 and 2 differ" $?
rm "$out"/frames/*.png
"$bin" render "$out" --frame 1 --quiet && [ -s "$out/frames/0001.png" ] && [ ! -e "$out/frames/0000.png" ]
check "--frame 1 draws frame 1 alone" $?
if command -v gnuplot >/dev/null; then
  "$bin" render "$out" --gif --size 160x120 --quiet && [ "$(head -c 6 "$out/run.gif")" = GIF89a ]
  check "--gif: run.gif" $?
else
  echo "note: no gnuplot: --gif left out"
fi
# a scene's solid meshes are drawn: the bunny of flip_case3 changes the picture
solid="$dir/solid"
"$bin" run flip_case3 --solver flip --frames 1 --set fluid.spacing=0.02 --set solvers.flip.dx=0.04 --save bin \
  --quiet --no-plot --out "$solid" 2>/dev/null &&
  "$bin" render "$solid" --frame 1 --size 160x120 --quiet && cp "$solid/frames/0001.png" "$dir/with.png" &&
  sed -i 's#"scene_file":.*#"scene_file": "/nonexistent.json",#' "$solid/run.json" &&
  "$bin" render "$solid" --frame 1 --size 160x120 2>"$dir/nosolid.txt" && grep -q "no solids drawn" "$dir/nosolid.txt" &&
  ! cmp -s "$dir/with.png" "$solid/frames/0001.png"
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
  (cd / && "$bin" render "$case3/out" --frame 1 --size 160x120 --quiet) && cp "$case3/out/frames/0001.png" "$dir/as_run.png" &&
  sed -i 's#"translate": \[0.8, 0.001, 0.14\]#"translate": [0.3, 0.001, 0.3]#' "$case3/scene.json" &&
  grep -q '"translate": \[0.3, 0.001, 0.3\]' "$case3/scene.json" &&
  (cd / && "$bin" render "$case3/out" --frame 1 --size 160x120 --quiet) && cmp -s "$dir/as_run.png" "$case3/out/frames/0001.png" &&
  sed -i 's#"scene_file":.*#"scene_file": "/nonexistent.json",#' "$case3/out/run.json" &&
  "$bin" render "$case3/out" --frame 1 --size 160x120 --quiet && ! cmp -s "$dir/as_run.png" "$case3/out/frames/0001.png"
check "the solids of the scene as it ran, from any folder, whatever its file says now" $?
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
cp -r "$out" "$dir/nanrun" && rm -f "$dir/nanrun"/frames/*.png
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
