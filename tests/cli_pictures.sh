#!/usr/bin/env bash
# Pictures of the fluid through the real binary and the real gnuplot
# (docs/pictures.md): `run --save png` draws each frame's particles
# (frames/NNNN.png with its numbers in NNNN.csv, every --color, a 2D and a
# 3D run, run.gif at the end, a rigid tool's particles in the slice in
# grey); `run --save grid` draws a FLIP run's MAC grid
# (frames/NNNN_grid.png and .csv; the divergence after the projection far
# below the one before; a tool's outline, a closed circle around exactly
# its SOLID cells; a solid mesh's, closed around exactly its SOLID cells;
# a slice without FLUID drawn all the same); `fluidlab kernels` writes kernels.csv, whose W
# columns integrate to 1 (trapezoid in r with 4 pi r^2, 2 pi r in 2D) and
# whose slopes and Laplacians match finite differences of its values, and
# kernels.png and .svg; `bench --scaling` its table, scaling.csv and
# scaling.png and .svg. Every PNG has more than two colours (not blank), and
# no .tmp is left. Bad input (--save grid with sph, an unknown --color,
# --color without --save png, --color pressure with flip, --slice without
# them, outside the domain, in 2D or not a number, kernels --dims 4,
# no gnuplot on the PATH, bench --scaling on a device or of grid, bench
# --out without --scaling) is refused with one line and exit 1, no output
# folder left.
# Skipped (77) without gnuplot or python3.
# usage: cli_pictures.sh FLUIDLAB SCRATCH_DIR PNG_COLOURS_PY
set -u
source "$(dirname "$0")/cli_common.sh"
colours_py=$3
if ! command -v gnuplot >/dev/null || ! command -v python3 >/dev/null; then
  echo "cli_pictures: skipped: needs gnuplot and python3"
  exit 77
fi
# more than two colours in every PNG given
not_blank() {
  python3 "$colours_py" "$@" >"$dir/colours.txt" && awk '$1 <= 2 { bad = 1 } END { exit bad }' "$dir/colours.txt"
}
small=(--set fluid.spacing=0.04 --quiet --no-plot)

# 2D, the default colour (speed), three frames and the GIF
out="$dir/speed"
"$bin" run dam_break_2d --solver wcsph --frames 2 "${small[@]}" --save png --out "$out"
check "run dam_break_2d --save png: exit 0" $?
[ -s "$out/frames/0000.png" ] && [ -s "$out/frames/0002.png" ] && [ -s "$out/frames/0002.csv" ] &&
  not_blank "$out"/frames/000[0-2].png
check "frames/0000-0002.png exist and are not blank ($(tr '\n' ' ' <"$dir/colours.txt"))" $?
[ "$(head -n 1 "$out/frames/0002.csv")" = "x,y,z,speed" ] &&
  [ "$(($(wc -l <"$out/frames/0002.csv") - 1))" -eq "$(python3 -c "import json; print(json.load(open('$out/run.json'))['fluid_particles'])")" ]
check "frames/0002.csv: x,y,z,speed, a row a particle" $?
[ "$(head -c 6 "$out/run.gif")" = GIF89a ]
check "run.gif at the end" $?
[ -z "$(find "$out" -name '*.tmp' -o -name '*.log')" ]
check "no .tmp or gnuplot log left" $?

# every other colour, one frame each
for field in density pressure vorticity neighbors; do
  "$bin" run dam_break_2d --solver sph --frames 1 "${small[@]}" --save png --color "$field" --out "$dir/$field" &&
    [ "$(head -n 1 "$dir/$field/frames/0001.csv")" = "x,y,z,$field" ] && not_blank "$dir/$field/frames/0001.png"
  check "--color $field: frames/0001.png not blank ($(tr '\n' ' ' <"$dir/colours.txt"))" $?
done
# neighbour counts are whole numbers, and an inner particle of the square lattice has 8 within h = 2d
awk -F, 'NR > 1 && $4 != int($4) { bad = 1 } NR > 1 && $4 >= 8 { full = 1 } END { exit bad || !full }' \
  "$dir/neighbors/frames/0001.csv"
check "--color neighbors: whole counts, 8 or more inside" $?

# 3D: the slice |z - z_mid| < d of the dam break
"$bin" run dam_break --solver pcisph --frames 1 "${small[@]}" --save png --out "$dir/3d" &&
  not_blank "$dir/3d/frames/0001.png" &&
  awk -F, 'NR > 1 { n++; if ($3 - 0.05 >= 0.04 || 0.05 - $3 >= 0.04) bad = 1 } END { exit bad || n == 0 }' \
    "$dir/3d/frames/0001.csv"
check "3D: frames/0001.png not blank, its CSV the slice |z - 0.05| < 0.04 m" $?

# a rigid tool: its particles in the slice (frames/NNNN_tool.csv, drawn in
# grey): the sphere's layer, on the sphere of its radius less 0.65 d
# (FL_BOUNDARY_OFFSET), where the slice |z - 0.15| < d cuts it
tool="$dir/tool"
"$bin" run tool_cup --solver pcisph --frames 1 --set fluid.spacing=0.02 --quiet --no-plot --save png --out "$tool" &&
  not_blank "$tool/frames/0001.png" && [ "$(head -n 1 "$tool/frames/0001_tool.csv")" = x,y,z ] &&
  python3 - "$tool/frames/0001_tool.csv" "$tool/tool.csv" <<'PY'
import csv, math, sys
pts = [[float(r[k]) for k in "xyz"] for r in csv.DictReader(open(sys.argv[1]))]
c = [float(list(csv.DictReader(open(sys.argv[2])))[-1][k]) for k in "xyz"]
r = [math.dist(p, c) for p in pts]
print("tool in the slice: %d particles, %.4g to %.4g m from its centre, |z - 0.15| <= %.3g" %
      (len(pts), min(r), max(r), max(abs(p[2] - 0.15) for p in pts)))
# the sphere of 0.04 m, its layer at 0.04 - 0.65 d (d = 0.02 m), to the CSV's 7 digits
sys.exit(0 if len(pts) > 8 and max(abs(x - (0.04 - 0.65 * 0.02)) for x in r) < 1e-6 and
         max(abs(p[2] - 0.15) for p in pts) < 0.02 else 1)
PY
check "a tool run: the tool's particles in the slice, in frames/0001_tool.csv and drawn" $?

# the MAC grid of a FLIP run: the divergence vanishes after the projection
grid="$dir/grid"
"$bin" run dam_break_2d --solver flip --frames 2 --substeps 2 --set fluid.spacing=0.02 --quiet --no-plot --save grid --out "$grid" &&
  [ ! -e "$grid/frames/0000_grid.png" ] && not_blank "$grid/frames/0001_grid.png" "$grid/frames/0002_grid.png"
check "--save grid: frames/0001-0002_grid.png not blank (none for frame 0, before any projection)" $?
python3 - "$grid/frames/0002_grid.csv" <<'PY'
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
fluid = [r for r in rows if r["label"] == "0"]
before = max(abs(float(r["div_before"])) for r in fluid)
after = max(abs(float(r["div_after"])) for r in fluid)
nan_outside = all(math.isnan(float(r["pressure"])) for r in rows if r["label"] != "0")
print("grid: %d FLUID cells, max |div| %.3g before, %.3g after" % (len(fluid), before, after))
sys.exit(0 if fluid and before > 0 and after < 1e-3 * before and nan_outside else 1)
PY
check "frames/0002_grid.csv: the divergence after the projection below 1e-3 of the one before" $?

# a tool under FLIP: the outline of its surface where the slice's plane
# cuts it (frames/NNNN_grid_tool.csv, segments drawn in black): the
# sphere's circle, closed, and the tool's SOLID cells exactly the cells
# whose centres it encloses
gtool="$dir/gtool"
"$bin" run tool_cup --solver flip --frames 1 --set fluid.spacing=0.02 --quiet --no-plot --save grid --out "$gtool" &&
  not_blank "$gtool/frames/0001_grid.png" && [ "$(head -n 1 "$gtool/frames/0001_grid_tool.csv")" = x1,y1,x2,y2 ] &&
  python3 - "$gtool/frames/0001_grid_tool.csv" "$gtool/frames/0001_grid.csv" "$gtool/tool.csv" <<'PY'
import csv, math, sys
segs = [[float(r[k]) for k in ("x1", "y1", "x2", "y2")] for r in csv.DictReader(open(sys.argv[1]))]
cells = list(csv.DictReader(open(sys.argv[2])))
c = [float(list(csv.DictReader(open(sys.argv[3])))[-1][k]) for k in "xy"]
r = [math.dist(s[2 * e:2 * e + 2], c) for s in segs for e in (0, 1)]
rho = sum(r) / len(r)
length = sum(math.dist(s[:2], s[2:]) for s in segs)
# closed: every end point is two segments' (the CSV's digits), none loose
ends = {}
for s in segs:
    for e in (0, 1):
        ends[(s[2 * e], s[2 * e + 1])] = ends.get((s[2 * e], s[2 * e + 1]), 0) + 1
closed = all(k == 2 for k in ends.values())
n = max(int(q["i"]) for q in cells) + 1, max(int(q["j"]) for q in cells) + 1
dx = float(cells[1]["x"]) - float(cells[0]["x"])
near = [q for q in cells if 0 < int(q["i"]) < n[0] - 1 and 0 < int(q["j"]) < n[1] - 1 and
        math.dist((float(q["x"]), float(q["y"])), c) < rho + 2 * dx]
# the slice's plane: its cells' centre, the middle one of z, laid out as x
# is (the scene's domain is as wide in z as in x): the sphere of 0.04 m
# cut there
zc = next(float(q["x"]) for q in cells if int(q["i"]) == n[0] // 2)
expected = math.sqrt(0.04 ** 2 - (zc - 0.15) ** 2)
solid_inside = all((q["label"] == "2") == (math.dist((float(q["x"]), float(q["y"])), c) < rho) for q in near)
print("tool outline: %d segments, radius %.6g m (the cut at z = %.4g: %.6g), spread %.2g m, "
      "length / (2 pi radius) %.5f, closed %s; %d cells near it, SOLID exactly inside %s"
      % (len(segs), rho, zc, expected, max(r) - min(r), length / (2 * math.pi * rho), closed, len(near),
         solid_inside))
sys.exit(0 if abs(rho - expected) < 1e-6 and max(r) - min(r) < 1e-5 and abs(length / (2 * math.pi * rho) - 1) < 1e-3
         and closed and solid_inside and any(q["label"] == "2" for q in near) else 1)
PY
check "--save grid with a tool: its outline in frames/0001_grid_tool.csv, a closed circle around its SOLID cells" $?

# a solid mesh under FLIP (flip_case3 on a coarse grid, --slice 0.15
# through the water and the bunny): the outline where the slice's plane
# cuts its triangles (frames/NNNN_grid_meshes.csv), closed, and the SOLID
# cells inside the walls exactly those whose centre it encloses (a ray's
# crossings counted); --save png's particles are those within d = 0.01 m
# of the same plane
gmesh="$dir/gmesh"
case3=(--set fluid.spacing=0.01 --set solvers.flip.dx=0.02 --set time.duration=0.04 --frames 1 --quiet --no-plot)
"$bin" run flip_case3 --solver flip "${case3[@]}" --save grid,png --slice 0.15 --out "$gmesh" &&
  not_blank "$gmesh/frames/0001_grid.png" && [ "$(head -n 1 "$gmesh/frames/0001_grid_meshes.csv")" = x1,y1,x2,y2 ] &&
  awk -F, 'NR > 1 { n++; if ($3 - 0.15 >= 0.01 || 0.15 - $3 >= 0.01) bad = 1 } END { exit bad || n == 0 }' \
    "$gmesh/frames/0001.csv" &&
  python3 - "$gmesh/frames/0001_grid_meshes.csv" "$gmesh/frames/0001_grid.csv" <<'PY'
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cells = list(csv.DictReader(open(sys.argv[2])))
ends = {}
for r in rows:
    for p in ((r["x1"], r["y1"]), (r["x2"], r["y2"])):
        ends[p] = ends.get(p, 0) + 1
closed = all(k == 2 for k in ends.values())
segs = [[float(r[k]) for k in ("x1", "y1", "x2", "y2")] for r in rows]
def inside(x, y):  # the parity of the segments crossed by the ray from (x, y) to +x
    n = 0
    for x1, y1, x2, y2 in segs:
        if (y1 <= y) != (y2 <= y) and x1 + (y - y1) * (x2 - x1) / (y2 - y1) > x:
            n += 1
    return n % 2 == 1
n = max(int(q["i"]) for q in cells) + 1, max(int(q["j"]) for q in cells) + 1
inner = [q for q in cells if 0 < int(q["i"]) < n[0] - 1 and 0 < int(q["j"]) < n[1] - 1]
wrong = [q for q in inner if (q["label"] == "2") != inside(float(q["x"]), float(q["y"]))]
solid = sum(q["label"] == "2" for q in inner)
print("solid mesh outline: %d segments, %d end points, closed %s; %d SOLID cells inside the walls, %d of %d cells "
      "where SOLID and inside the outline differ" % (len(segs), len(ends), closed, solid, len(wrong), len(inner)))
sys.exit(0 if segs and closed and solid > 10 and not wrong else 1)
PY
check "--slice 0.15 with a solid mesh: its outline in frames/0001_grid_meshes.csv, closed, around exactly its SOLID cells; the png slice |z - 0.15| < d" $?

# a slice without FLUID (flip_case3's middle one: the water's block ends
# at z = 0.22, the slice is at 0.33) is drawn all the same
gempty="$dir/gempty"
"$bin" run flip_case3 --solver flip "${case3[@]}" --save grid --out "$gempty" &&
  not_blank "$gempty/frames/0001_grid.png" && ! awk -F, '$5 == "0"' "$gempty/frames/0001_grid.csv" | grep -q . &&
  [ ! -e "$gempty/frames/0001_grid_meshes.csv" ]
check "--save grid, a slice without FLUID: drawn, no FLUID row, no mesh outline (the bunny is not in it)" $?

# the kernels
for dims in 3 2; do
  k="$dir/kernels$dims"
  "$bin" kernels --dims "$dims" --out "$k" 2>/dev/null && [ -s "$k/kernels.svg" ] && not_blank "$k/kernels.png"
  check "kernels --dims $dims: kernels.png not blank, kernels.svg" $?
  python3 - "$k/kernels.csv" "$dims" <<'PY'
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
dims = int(sys.argv[2])
ok = True
for name in ("poly6", "spiky", "visc", "cubic"):
    pts = [(float(r["r_over_h"]), float(r[name + "_W"])) for r in rows if r[name + "_W"] != ""]
    f = [(x, w * (4 * math.pi * x * x if dims == 3 else 2 * math.pi * x)) for x, w in pts]
    total = sum((b[0] - a[0]) * (a[1] + b[1]) / 2 for a, b in zip(f, f[1:]))
    # the slope against a central difference of W, away from the viscosity kernel's pole at 0
    slope = max(abs((float(rows[i + 1][name + "_W"]) - float(rows[i - 1][name + "_W"])) / 0.002
                    - float(rows[i][name + "_dWdr"])) / (1 + abs(float(rows[i][name + "_dWdr"])))
                for i in range(100, len(rows) - 1))
    print("%dD %s: integral of W %.6f, slope error %.2g" % (dims, name, total, slope))
    ok = ok and abs(total - 1) < 1e-2 and slope < 1e-3
# the Laplacians written here from the kernels' formulas: W'' + (dims - 1) W' / r by differences
for name in ("poly6", "cubic"):
    worst = 0.0
    for i in range(10, len(rows) - 1):
        if abs(float(rows[i]["r_over_h"]) - 0.5) < 0.002:
            continue  # the cubic spline's W'' jumps at q = 1/2
        r = float(rows[i]["r_over_h"])
        d2 = (float(rows[i + 1][name + "_dWdr"]) - float(rows[i - 1][name + "_dWdr"])) / 0.002
        lap = d2 + (dims - 1) * float(rows[i][name + "_dWdr"]) / r
        worst = max(worst, abs(lap - float(rows[i][name + "_lap"])) / (1 + abs(lap)))
    print("%dD %s: Laplacian error %.2g" % (dims, name, worst))
    ok = ok and worst < 1e-3
sys.exit(0 if ok else 1)
PY
  check "kernels --dims $dims: each W integrates to 1 within 1e-2, slopes and Laplacians match differences" $?
done
# bench --scaling: the speed-up table, DIR/scaling.csv (one thread's
# speed-up is 1 by definition; one row per thread count) and its figure
"$bin" bench sph --scaling --threads 2 --particles 2000 --repeat 1 --steps 2 --warmup 0 --no-log \
  --out "$dir/scaling" >"$dir/scaling.txt" 2>&1
check "bench --scaling: exit 0" $?
grep -q '^| sph | 2 | ' "$dir/scaling.txt"
check "bench --scaling: the table has the 2-thread row" $?
awk -F, 'NR == 2 && $1 == 1 && $3 == 1 { one = 1 } NR == 3 && $1 == 2 && $3 > 0 { two = 1 } END { exit !(one && two) }' \
  "$dir/scaling/scaling.csv"
check "bench --scaling: scaling.csv: 1 thread at speed-up 1, then 2 threads" $?
not_blank "$dir/scaling/scaling.png" && [ -s "$dir/scaling/scaling.svg" ]
check "bench --scaling: scaling.png is not blank, and the svg ($(cat "$dir/colours.txt"))" $?

"$bin" kernels --help | grep -q "usage: fluidlab kernels"
check "kernels --help" $?

# bad input: one line on stderr, exit 1, no output folder (cli_common.sh's refused)
refused "--save grid with sph" "has no MAC grid" "$dir/refused" \
  "$bin" run dam_break_2d --solver sph --frames 1 "${small[@]}" --save grid --out "$dir/refused"
refused "--color colour" "unknown field" "$dir/refused" \
  "$bin" run dam_break_2d --solver sph --frames 1 "${small[@]}" --save png --color colour --out "$dir/refused"
refused "--color without --save png" "only with --save png" "$dir/refused" \
  "$bin" run dam_break_2d --solver sph --frames 1 "${small[@]}" --color density --out "$dir/refused"
refused "--slice without --save png or grid" "only with one of them" "$dir/refused" \
  "$bin" run dam_break --solver sph --frames 1 "${small[@]}" --slice 0.05 --out "$dir/refused"
refused "--slice outside the domain" "outside" "$dir/refused" \
  "$bin" run dam_break --solver sph --frames 1 "${small[@]}" --save png --slice 0.5 --out "$dir/refused"
refused "--slice in 2D" "is a 2D scene" "$dir/refused" \
  "$bin" run dam_break_2d --solver flip --frames 1 "${small[@]}" --save grid --slice 0 --out "$dir/refused"
refused "--slice abc" "expected the z of the pictures' plane" "$dir/refused" \
  "$bin" run dam_break --solver sph --frames 1 "${small[@]}" --save png --slice abc --out "$dir/refused"
refused "--color pressure with flip" "keeps no pressure" "$dir/refused" \
  "$bin" run dam_break_2d --solver flip --frames 1 "${small[@]}" --save png --color pressure --out "$dir/refused"
refused "--save pgn" "expected a comma-separated list" "$dir/refused" \
  "$bin" run dam_break_2d --solver sph --frames 1 "${small[@]}" --save pgn --out "$dir/refused"
refused "--save png without gnuplot on the PATH" "gnuplot not found" "$dir/refused" \
  env PATH=/nonexistent "$bin" run dam_break_2d --solver sph --frames 1 "${small[@]}" --save png --out "$dir/refused"
refused "kernels without gnuplot on the PATH" "gnuplot not found" "$dir/refused" env PATH=/nonexistent "$bin" kernels --out "$dir/refused"
refused "kernels --dims 4" "expected 2 or 3" "$dir/refused" "$bin" kernels --dims 4 --out "$dir/refused"
refused "kernels --h -1" "expected a number of metres from 1e-4 to 100" "$dir/refused" "$bin" kernels --h -1 --out "$dir/refused"
# poly6's constant overflowed a float: inf in kernels.csv, exit 0
refused "kernels --h 1e-30" "from 1e-4 to 100" "$dir/refused" "$bin" kernels --h 1e-30 --out "$dir/refused"
refused "bench --scaling on a device" "thread scaling" "$dir/refused" "$bin" bench sph --scaling --device emu --out "$dir/refused"
refused "bench --scaling grid" "expected solvers" "$dir/refused" "$bin" bench grid --scaling --out "$dir/refused"
refused "bench --out without --scaling" "only with --scaling" "$dir/refused" "$bin" bench sph --out "$dir/refused"
report
