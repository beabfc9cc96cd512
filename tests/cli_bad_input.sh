#!/usr/bin/env bash
# cli_bad_input.sh: bad input never crashes and never writes half a result
# (docs/design.md, "Errors"). For each bad input, `fluidlab run` must exit
# with status 1 (bad input; not 2, which means an output could not be
# written, and not by a signal), print exactly one non-empty line on stderr
# that names the cause, and leave no output folder behind. Odd values that
# are not refused (a step of 1e300 s) must still end, as an unstable run
# (status 3), within the time limit. `list` and `--version` refuse
# arguments they do not take, and `--out` and `--save` an empty value.
# Every command's --help prints the usage and exits 0.
#
# usage: cli_bad_input.sh path/to/fluidlab scratch_dir
# Prints one line per case, then "N passed, M failed"; exits non-zero when
# anything failed.
set -u

if [ $# -ne 2 ]; then
    echo "usage: $0 path/to/fluidlab scratch_dir" >&2
    exit 2
fi
bin=$1
dir=$2
if [ ! -x "$bin" ]; then
    echo "$0: $bin is not an executable" >&2
    exit 2
fi
mkdir -p "$dir" || exit 2

passed=0
failed=0
n=0

# A valid scene with the given fluid spacing, block max corner and extra
# "time" members; the cases below break one thing at a time.
#   write_scene FILE SPACING BLOCK_MAX [TIME_EXTRA]
write_scene() {
    cat >"$1" <<EOF
{
  "domain": { "min": [0, 0, 0], "max": [1, 1, 1] },
  "fluid": {
    "spacing": $2,
    "blocks": [ { "min": [0, 0, 0], "max": $3 } ]
  },
  "time": { "duration": 0.1, "fps": 30, "substeps": 2${4:-} }
}
EOF
}

# run_case DESCRIPTION PATTERN SCENE [EXTRA ARGS...]
# PATTERN: an extended regular expression the stderr line must match.
# verdict DESCRIPTION WHY STDERR_FILE: counts case n as passed when WHY is
# empty (printing stderr's first line), else as failed (printing why and
# all of stderr).
verdict() {
    if [ -z "$2" ]; then
        passed=$((passed + 1))
        printf 'ok   case_%d %s: %s\n' "$n" "$1" "$(head -n 1 "$3")"
    else
        failed=$((failed + 1))
        printf 'FAIL case_%d %s: %s\n' "$n" "$1" "$2"
        sed 's/^/       stderr: /' "$3"
    fi
}

run_case() {
    local what=$1 pattern=$2 scene=$3
    shift 3
    n=$((n + 1))
    local out="$dir/case_$n" err="$dir/case_$n.stderr"
    local solver_args=(--solver sph)
    # A case may name its own solver (the unknown-solver case).
    if [ "${1:-}" = "--solver" ]; then
        solver_args=(--solver "$2")
        shift 2
    fi
    # one frame, unless the case gives its own --frames (an option given twice is refused)
    local frames=(--frames 1) a
    for a in "$@"; do [ "$a" = --frames ] && frames=(); done
    rm -rf "$out"
    local status=0
    # The timeout turns a hang (a loop over 1e15 lattice points) into a failure.
    timeout 120 "$bin" run "$scene" "${solver_args[@]}" --out "$out" "${frames[@]}" "$@" \
        >/dev/null 2>"$err" || status=$?

    local lines first why=""
    lines=$(awk 'END { print NR }' "$err")
    first=$(head -n 1 "$err")
    if [ "$status" -eq 0 ]; then
        why="exit status 0"
    elif [ "$status" -eq 124 ]; then
        why="timed out"
    elif [ "$status" -ge 128 ]; then
        why="killed by signal $((status - 128))"
    elif [ "$status" -ne 1 ]; then
        why="exit status $status, expected 1 (bad input)"
    elif [ "$lines" -ne 1 ] || [ -z "$first" ]; then
        why="stderr has $lines lines, expected exactly one non-empty line"
    elif ! grep -Eq -- "$pattern" "$err"; then
        why="stderr does not match /$pattern/"
    elif [ -e "$out" ]; then
        why="$out exists"
    fi
    verdict "$what" "${why:+$why (status $status)}" "$err"
}

s="$dir/malformed.json"
printf '{\n  "domain": { "min": [0, 0, 0] "max": [1, 1, 1] }\n}\n' >"$s"
run_case "malformed JSON" 'malformed.json.*(malformed|JSON)' "$s"

s="$dir/unknown_key.json"
write_scene "$s" 0.1 "[0.5, 0.5, 0.5]"
sed -i 's/"spacing"/"spacng"/' "$s"
run_case "unknown key" 'spacng' "$s"

s="$dir/valid.json"
write_scene "$s" 0.1 "[0.5, 0.5, 0.5]"
run_case "unknown solver" 'nosuch' "$s" --solver nosuch

run_case "--dt 0" 'dt' "$s" --dt 0

s="$dir/negative_dt.json"
write_scene "$s" 0.1 "[0.5, 0.5, 0.5]" ', "dt": -1'
run_case "time.dt = -1" 'time\.dt' "$s"

s="$dir/zero_spacing.json"
write_scene "$s" 0 "[0.5, 0.5, 0.5]"
run_case "spacing = 0" 'spacing' "$s"

s="$dir/negative_spacing.json"
write_scene "$s" -0.1 "[0.5, 0.5, 0.5]"
run_case "spacing < 0" 'spacing' "$s"

s="$dir/empty_fluid.json"
write_scene "$s" 0.1 "[0.5, 0.04, 0.5]"
run_case "empty fluid" 'blocks' "$s"

s="$dir/outside.json"
write_scene "$s" 0.1 "[1.5, 0.5, 0.5]"
run_case "block outside the domain" 'blocks' "$s"

s="$dir/too_many.json"
write_scene "$s" 1e-5 "[1, 1, 1]"
run_case "too many particles" 'particles' "$s"

run_case "missing file" 'no_such_scene\.json' "$dir/no_such_scene.json"

s="$dir/valid.json"
run_case "PBF: unknown parameter" 'solver_iteratons' "$s" --solver pbf --set solvers.pbf.solver_iteratons=3
run_case "PBF: iterations out of range" 'solver_iterations' "$s" --solver pbf --set solvers.pbf.solver_iterations=0
run_case "PBF: iterations not whole" 'solver_iterations.*whole' "$s" --solver pbf --set solvers.pbf.solver_iterations=2.5
run_case "PBF: negative vorticity epsilon" 'vorticity_epsilon' "$s" --solver pbf --set solvers.pbf.vorticity_epsilon=-1

run_case "scene is a folder" 'expected a scene file, got a folder' "$dir"

s="$dir/valid.json"
# Solver parameters: a count must be a whole number, a switch 0 or 1.
run_case "SPH: sort_interval not whole" 'sort_interval.*whole' "$s" --set solvers.sph.sort_interval=0.5
run_case "SPH: clamp_negative = 0.5" 'clamp_negative.*0 or 1' "$s" --set solvers.sph.clamp_negative=0.5
run_case "PCISPH: max_iterations not whole" 'max_iterations.*whole' "$s" --solver pcisph \
    --set solvers.pcisph.max_iterations=10.5
run_case "FLIP: max_iterations not whole" 'max_iterations.*whole' "$s" --solver flip \
    --set solvers.flip.max_iterations=2.5
run_case "FLIP: seed not whole" 'seed.*whole' "$s" --solver flip --set solvers.flip.seed=1.5
# particle shifting: a coefficient in [0, 100] for sph, wcsph and pcisph,
# on the CPU only
run_case "WCSPH: negative shifting" 'solvers\.wcsph\.shifting' "$s" --solver wcsph --set solvers.wcsph.shifting=-1
run_case "PBF: shifting" 'solvers\.pbf\.shifting: unknown parameter' "$s" --solver pbf --set solvers.pbf.shifting=2
run_case "PCISPH: shifting on the device" \
    '--device emu: .*solvers\.pcisph\.shifting = 2 is a CPU option \(the device does not shift particles\): --device cpu' \
    "$s" --solver pcisph --set solvers.pcisph.shifting=2 --device emu

# The clock: a duration or step in the wrong unit would make 0 steps (an
# overflowed step count), or run for ever.
run_case "time.duration = 1e308" 'time\.duration: expected at most 1e9 steps' "$s" --set time.duration=1e308
run_case "time.dt = 1e-308" 'time\.dt: expected at most 1e5 steps a frame' "$s" --set time.dt=1e-308
run_case "time.fps = 1e308" 'time\.fps' "$s" --set time.fps=1e308
run_case "time.substeps = 1e9" 'time\.substeps' "$s" --set time.substeps=1e9
run_case "--substeps 1e9" '--substeps' "$s" --substeps 1000000000
# Densities are floats: 1e308 made PBF report an infinite compression as stable.
run_case "rest_density = 1e308" 'fluid\.rest_density' "$s" --set fluid.rest_density=1e308
run_case "rest_density = 1e-308" 'fluid\.rest_density' "$s" --set fluid.rest_density=1e-308
# A 250 m tank at spacing 0.1 m: 125 particles, but 2e9 neighbor-grid cells.
run_case "domain too large for its grid" 'domain: the neighbor grid' "$s" --set 'domain.max=[250,250,250]'
# FLIP's MAC grid, like the neighbor grid, is refused before it is allocated.
run_case "FLIP: dx = 1e-5 (1e15 cells)" 'solvers\.flip\.dx: a MAC grid' "$s" --solver flip \
    --set solvers.flip.dx=1e-5

# Mesh objects: a unit cube of 0.2 m (and the same with a face missing),
# referred to from the scene's folder.
cube='v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n'
faces='f 1 4 3\nf 1 3 2\nf 5 6 7\nf 5 7 8\nf 1 2 6\nf 1 6 5\nf 4 8 7\nf 4 7 3\nf 1 5 8\nf 1 8 4\nf 2 3 7\n'
printf "$cube$faces"'f 2 7 6\n' >"$dir/cube.obj"
printf "$cube$faces" >"$dir/open_cube.obj"
mesh() { printf "meshes=[{\"mesh\": \"%s\", \"scale\": 0.2, \"translate\": [0.6, 0.6, 0.6]%s}]" "$@"; }
run_case "mesh: missing file" 'valid\.json: meshes\[0\]\.mesh: expected a readable OBJ file, got .*no_such\.obj' \
    "$s" --set "$(mesh no_such.obj ', "as": "solid"')"
run_case "mesh: open mesh" 'meshes\[0\]\.mesh: .*open_cube\.obj: edge .*hole' "$s" \
    --set "$(mesh open_cube.obj ', "as": "fluid"')"
run_case "mesh: unknown key" 'meshes\[0\]\.rotation: unknown key' "$s" \
    --set "$(mesh cube.obj ', "as": "solid", "rotation": [0, 0, 0]')"
run_case "mesh: no role" 'meshes\[0\]\.as: expected one of "fluid", "solid", got nothing' "$s" \
    --set "$(mesh cube.obj '')"
run_case "mesh: bad role" 'meshes\[0\]\.as: expected one of "fluid", "solid", got "water"' "$s" \
    --set "$(mesh cube.obj ', "as": "water"')"
run_case "mesh: scale 0" 'meshes\[0\]\.scale: expected a number > 0' "$s" \
    --set "$(mesh cube.obj ', "as": "solid"')" --set meshes.0.scale=0
run_case "mesh: outside the domain" 'meshes\[0\]: expected a mesh inside the domain' "$s" \
    --set "$(mesh cube.obj ', "as": "solid"')" --set 'meshes.0.translate=[0.9, 0.6, 0.6]'
run_case "mesh: a solid mesh with a velocity" 'meshes\[0\]\.velocity: expected no velocity for a solid mesh' "$s" \
    --set "$(mesh cube.obj ', "as": "solid", "velocity": [1, 0, 0]')"
run_case "mesh: fluid mesh over a block" 'meshes\[0\]: expected a fluid mesh whose bounds overlap no fluid block' \
    "$s" --set "$(mesh cube.obj ', "as": "fluid"')" --set 'meshes.0.translate=[0.4, 0.4, 0.4]'
mkdir -p "$dir/folder.obj"
run_case "mesh: a folder" 'meshes\[0\]\.mesh: expected a readable OBJ file, got .*folder\.obj: a folder, not a file' \
    "$s" --set "$(mesh folder.obj ', "as": "solid"')"
printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 3 2\n' >"$dir/flat.obj"
run_case "mesh: flat, closed" 'meshes\[0\]\.mesh: .*flat\.obj: a volume of 0 m\^3 \(it encloses none: flat\)' "$s" \
    --set "$(mesh flat.obj ', "as": "solid"')"
# gravity of 1e300 ran into NaN positions at step 1; 1e400 (inf) was "not 3 numbers"
run_case "gravity 1e300" 'gravity: expected components of at most 1e4 m/s\^2 in size' "$s" --set 'gravity=[0, -1e300, 0]'
run_case "gravity 1e400" 'gravity: expected finite numbers' "$s" --set 'gravity=[0, -1e400, 0]'
# a domain of 1e308 m was blamed on fluid.spacing
run_case "domain 1e308 m" 'domain: expected coordinates within 1e6 m of the origin' "$s" \
    --set 'domain={"min": [-1e308, 0, 0], "max": [1e308, 1, 1]}'
# bytes that are not UTF-8 in the name made run.json invalid JSON
run_case "name not UTF-8" 'name: expected UTF-8 text' "$s" --set $'name="\xff\xfe"'
# a mistyped key for a solver that does not run went unseen
run_case "a key of a solver not run" 'solvers\.pbf\.iterations: unknown parameter' "$s" --per-solver pbf.iterations=2
# a surface grid of 10 m put the surface's vertices outside the tank
run_case "--surface-spacing 10" '--surface-spacing 10 m: expected at most a quarter' "$s" --save obj --surface-spacing 10

# 2D scenes ("dimensions": 2): vectors of two numbers, no tool, no meshes,
# no surfaces.
run_case "2D: a 3D vector" 'valid\.json: domain\.min: expected an array of 2 numbers \(x, y: the scene is 2D\)' \
    "$s" --set dimensions=2
run_case "dimensions 4" 'valid\.json: dimensions: expected 2 or 3, got 4' "$s" --set dimensions=4
s2="$dir/valid_2d.json"
cat >"$s2" <<EOF
{
  "dimensions": 2,
  "domain": { "min": [0, 0], "max": [1, 1] },
  "fluid": { "spacing": 0.05, "blocks": [ { "min": [0, 0], "max": [0.5, 0.5] } ] },
  "time": { "duration": 0.1, "fps": 30, "substeps": 2 }
}
EOF
run_case "2D: a tool" 'valid_2d\.json: tool: expected no meshes and no tool in a 2D scene' "$s2" \
    --set 'tool={"shape": "sphere", "radius": 0.1, "position": [0.7, 0.7]}'
run_case "2D: --save obj" '--save obj: .*valid_2d\.json is a 2D scene, which has no surface' "$s2" --save obj

# periodic boundaries: one boolean an axis (no z in 2D), a whole number of
# spacings along a periodic axis, no tool, nothing solid on a periodic
# face, and the CPU only.
run_case "periodic: z in 2D" \
    'valid_2d\.json: periodic: expected an array of 2 booleans \(x, y: the scene is 2D, z cannot wrap\), got \[true, false, true\]' \
    "$s2" --set 'periodic=[true, false, true]'
run_case "periodic: not booleans" 'valid_2d\.json: periodic: expected an array of 2 booleans' "$s2" --set 'periodic=[1, 0]'
run_case "periodic: not whole spacings" \
    'valid_2d\.json: periodic\[0\]: expected a domain a whole number of fluid\.spacing = 0\.03 m long, at least 4 \(2h\), along a periodic axis, got 1 m = 33\.3333 spacings along x' \
    "$s2" --set 'periodic=[true, false]' --set fluid.spacing=0.03
run_case "periodic: shorter than 2h" 'valid_2d\.json: periodic\[1\]: expected .* at least 4 \(2h\).*got 1 m = 3 spacings along y' \
    "$s2" --set 'periodic=[false, true]' --set fluid.spacing=0.3333333333333333
run_case "periodic: a tool" 'valid\.json: tool: expected no tool in a periodic scene, got a tool' "$s" \
    --set 'periodic=[true, false, false]' --set 'tool={"shape": "sphere", "radius": 0.1, "position": [0.7, 0.7, 0.7]}'
run_case "periodic: an obstacle on a periodic face" \
    'valid\.json: obstacles\[0\]: expected an obstacle clear of the faces of a periodic axis, got one reaching the domain.s x faces' \
    "$s" --set 'periodic=[true, false, false]' --set 'obstacles=[{"min": [0, 0.6, 0], "max": [0.2, 0.8, 0.2]}]'
run_case "periodic: on the device" '--device emu: periodic: a periodic scene runs on the CPU only: --device cpu' \
    "$s" --set 'periodic=[true, false, false]' --device emu

# FLIP cut such a step into CFL substeps without end; such gravity is now
# refused as input (at most 1e4 m/s^2), before any solver runs.
run_case "FLIP: gravity 1e30" 'gravity: expected components of at most 1e4 m/s\^2' "$s" --solver flip \
    --set 'gravity=[1e30,1e30,1e30]'

# The clock from the command line, to the scene's limits: a step of 1e300 s
# ran as one step called stable (1e300 s simulated in a run of one frame),
# 1e-300 s as 0 steps with exit 0, and 1e14 planned steps for ever.
run_case "--dt 1e300 (longer than a frame)" '--dt 1e\+300 s: longer than a frame' "$s" --dt 1e300
run_case "--dt 1e-300" '--dt 1e-300 s: .* steps a frame, expected at most 1e5' "$s" --dt 1e-300
run_case "--frames 1e9 at 1e5 substeps" '--frames: 1e\+14 steps, expected at most 1e9' "$s" \
    --frames 1000000000 --substeps 100000
run_case "time.dt longer than a frame" 'time\.dt: expected at most a frame' "$s" --set time.dt=1
# fps 1e-5 made the step 1e5 / substeps s long, in a run of 0.1 s: one step, "stable"
run_case "time.fps = 1e-5: a step longer than the run" 'time\.duration: expected at least one step' "$s" \
    --set time.fps=1e-5

run_case "--out ''" '--out' "$s" --out ''
run_case "--save ''" '--save' "$s" --save ''

# arg_case DESCRIPTION PATTERN ARGS...: a command that takes no such
# argument: status 1, one line matching PATTERN.
arg_case() {
    local what=$1 pattern=$2 status=0 err="$dir/arg.stderr"
    shift 2
    n=$((n + 1))
    timeout 60 "$bin" "$@" >/dev/null 2>"$err" || status=$?
    local why=""
    [ "$status" -eq 1 ] && [ "$(awk 'END { print NR }' "$err")" -eq 1 ] && grep -Eq -- "$pattern" "$err" ||
        why="status $status, expected 1 and one line matching /$pattern/"
    verdict "$what" "$why" "$err"
}
arg_case "list with an argument" 'extra' list extra
arg_case "--version with an argument" 'extra' --version extra
# figures ran 0 cases and wrote report.md; with both sizes it ran the quick plan
arg_case "figures --only ''" "--only '': expected figure numbers" figures --smoke --only '' --out "$dir/fig_none"
arg_case "figures --smoke --quick" '--quick and --smoke: expected one of them' figures --smoke --quick \
    --out "$dir/fig_both"
n=$((n + 1))
: > "$dir/none.stderr"
why=""
[ ! -e "$dir/fig_none" ] && [ ! -e "$dir/fig_both" ] || why="a refused figures command wrote a folder"
verdict "figures refused: nothing written" "$why" "$dir/none.stderr"
# paths longer than the buffers that hold them were cut short in silence
long=$(printf 'a%.0s' $(seq 950))
arg_case "--out of 950 characters" '--out: a path of 951 characters, expected at most 900' run "$s" --solver sph \
    --out "/$long"
arg_case "a scene path of 950 characters" "the scene's path has 951 characters" run "/$long" --solver sph
# strtod reads hexadecimal: --frames 0x10 was 16 frames
arg_case "--frames 0x10" "--frames: expected a whole number >= 1, got '0x10'" run "$s" --solver sph --frames 0x10
# bench wrote DIR/<name>.csv to the file system's root with --log ''
arg_case "bench --log ''" '--log: expected a folder name' bench sph --particles 500 --repeat 1 --steps 1 --log ''
# --solves: FLIP's pressure systems solved again, on the CPU only
arg_case "bench sph --solves" 'bench sph --solves: only for the solvers on a MAC grid' bench sph --solves 3 --no-log
arg_case "bench --tool --solves" 'bench --solves: .*not with --tool' bench --tool flip --solves 3 --no-log
arg_case "bench flip --solves 0" "bench --solves: '0' is out of range" bench flip --solves 0 --no-log
arg_case "bench flip --solves 2.5" "bench --solves: expected a whole number, got '2.5'" bench flip --solves 2.5 --no-log
# an option of one value given twice: the last one won in silence
arg_case "run --solver twice" '^fluidlab: --solver: given twice, expected it once \(only --set, --per-solver, --save and --plot repeat\)' run "$s" --solver sph --solver pbf \
    --out "$dir/twice"
arg_case "run --frames twice" '--frames: given twice' run "$s" --frames 2 --frames 3 --out "$dir/twice"
arg_case "compare --solvers twice" '--solvers: given twice' compare "$s" --solvers sph --solvers pbf --out "$dir/twice"
arg_case "sweep --dt twice" '--dt: given twice' sweep "$s" --dt 0.001 --dt 0.002 --out "$dir/twice"
arg_case "tool --input twice" '--input: given twice, expected it once \(only --set and --per-solver repeat\)' tool \
    tool_cup --solver pbf --input - --input - --out "$dir/twice"
arg_case "figures --only twice" 'figures: --only: given twice' figures --smoke --only 8 --only 9 --out "$dir/twice"
arg_case "validate --out twice" 'validate: --out: given twice' validate --quick --out "$dir/twice" --out "$dir/twice2"
arg_case "bench --particles twice" 'bench --particles: given twice' bench sph --particles 500 --particles 600 --no-log
arg_case "kernels --out twice" 'kernels --out: given twice' kernels --out "$dir/twice" --out "$dir/twice2"
arg_case "render --frame twice" 'render --frame: given twice' render "$dir/twice" --frame 0 --frame 1
arg_case "surface --spacing twice" 'surface: --spacing: given twice' surface "$dir/twice" --spacing 0.1 --spacing 0.2
arg_case "course --out twice" 'course --out: given twice' course 1 --out "$dir/twice" --out "$dir/twice2"
# a bad value in the section of a solver the run does not use went unseen
# (compare ran the other solvers, then recorded that one as failed)
arg_case "run sph, pcisph's max_iterations 2.5" 'solvers\.pcisph\.max_iterations: expected a whole number, got 2\.5' \
    run "$s" --solver sph --per-solver pcisph.max_iterations=2.5 --out "$dir/twice"
arg_case "compare, pcisph's max_iterations 2.5" 'solvers\.pcisph\.max_iterations: expected a whole number' \
    compare "$s" --per-solver pcisph.max_iterations=2.5 --out "$dir/twice"
arg_case "run sph, flip's warm_start 0.5" 'solvers\.flip\.warm_start: expected 0 or 1, got 0\.5' \
    run "$s" --solver sph --per-solver flip.warm_start=0.5 --out "$dir/twice"
# GNU's --option=value, in every command, is the option and its value
n=$((n + 1))
: > "$dir/eq.stderr"
why=""
"$bin" run hydrostatic --frames=1 --set=fluid.spacing=0.05 --per-solver=sph.stiffness=900 --out="$dir/eq" --quiet --no-plot \
  2> "$dir/eq.stderr" && grep -q '"steps_per_frame"' "$dir/eq/run.json" &&
  grep -A2 '"parameters"' "$dir/eq/run.json" | grep -q '"stiffness":[[:space:]]*900' || why="--option=value not taken"
verdict "run --frames=1 --set=... --per-solver=... --out=..." "$why" "$dir/eq.stderr"
arg_case "--frames= (empty)" "--frames: expected a whole number >= 1, got ''" run "$s" --frames= --out "$dir/twice"
arg_case "--frames=1 --frames 2" '--frames: given twice' run "$s" --frames=1 --frames 2 --out "$dir/twice"
# strtod skips leading blanks: ' 3' was taken where '3 ' was refused
arg_case "--frames ' 3'" "--frames: expected a whole number >= 1, got ' 3'" run "$s" --frames ' 3' --out "$dir/twice"
n=$((n + 1))
: > "$dir/twice.stderr"
why=""
[ ! -e "$dir/twice" ] || why="a refused command wrote its folder"
verdict "an option given twice: nothing written" "$why" "$dir/twice.stderr"
# --substeps beside --dt was ignored in silence
arg_case "--dt with --substeps" '--substeps: not with --dt' run "$s" --solver sph --dt 1e-4 --substeps 5
# junk was read as 0 (atof): --particles abc ran the scene as it is
arg_case "bench --particles abc" "bench --particles: expected a number, got 'abc'" bench sph --particles abc --no-log
arg_case "bench --steps ''" "bench --steps: expected a number, got ''" bench sph --steps '' --no-log
# an empty item of --sizes was skipped
arg_case "bench --sizes 2000," 'bench --sizes 2000,: expected up to 8 whole numbers' bench --tool --sizes 2000, --no-log
# 65 steps were "not a list of positive seconds"; a missing --only value an "unknown option"
arg_case "sweep: 65 steps" '--dt: more than 64 values' sweep "$s" --dt "$(seq -s, 1 65 | sed 's/\([0-9]*\)/0.000\1/g')" --out "$dir/sweep65"
arg_case "figures --only without a value" 'figures: --only: expected a value' figures --only
# every command's --help is help (exit 0, the usage on stdout), not an
# unknown option
for c in run compare sweep bench list tool figures render surface; do
    n=$((n + 1))
    why=""
    out=$("$bin" $c --help 2>"$dir/help.stderr") || why="exit $?"
    [ -n "$why" ] || [[ "$out" == usage:* ]] || why="stdout does not start with usage:"
    [ -n "$why" ] || [ ! -s "$dir/help.stderr" ] || why="wrote to stderr"
    : > "$dir/none.stderr"
    verdict "$c --help" "$why" "$dir/none.stderr"
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
