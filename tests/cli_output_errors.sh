#!/usr/bin/env bash
# Writes that fail, through the real binary (docs/design.md, "Errors"): a
# full disk (a file that is /dev/full, a full tmpfs where a mount namespace
# can be made), a file-size limit, a read-only folder. Each ends the command
# with one line on stderr naming the file and why, exit code 2, and a run
# whose output was cut short says "incomplete" in run.json. A picture that
# gnuplot could not write (it exits 0 all the same) ends the command the
# same way, and figures then keeps no report.md naming it.
# usage: cli_output_errors.sh FLUIDLAB SCRATCH_DIR
set -u
source "$(dirname "$0")/cli_common.sh"

small=(--set fluid.spacing=0.04 --quiet --no-plot)

status_of() { # run.json: its result.status
  grep -E '"status":' "$1" | sed -E 's/.*"status":[[:space:]]*"([^"]*)".*/\1/'
}

# expect NAME RC ERR_FILE PATTERN: exit code 2 and one stderr line matching PATTERN
expect() {
  [ "$2" -eq 2 ]; check "$1: exit code 2 (got $2)" $?
  [ "$(wc -l < "$3")" -eq 1 ] && grep -Eq "$4" "$3"; check "$1: one line on stderr: $(head -c 200 "$3")" $?
}

# stats.csv on a full device
out="$dir/full_stats"
mkdir -p "$out"
ln -s /dev/full "$out/stats.csv"
"$bin" run dam_break --solver sph --frames 2 "${small[@]}" --out "$out" 2> "$out.err"
expect "stats.csv full" $? "$out.err" "stats.csv: write failed: No space left on device"
[ "$(status_of "$out/run.json")" = incomplete ]; check "stats.csv full: run.json says incomplete" $?
grep -q 'stats.csv: write failed' "$out/run.json"; check "stats.csv full: run.json says which file" $?

# a frame on a full device: the frames before it stay, the broken one goes
out="$dir/full_frame"
mkdir -p "$out/frames"
ln -s /dev/full "$out/frames/0002.bin"
"$bin" run dam_break --solver wcsph --frames 4 --save bin "${small[@]}" --out "$out" 2> "$out.err"
expect "frame full" $? "$out.err" "frames/0002.bin: write failed: No space left on device"
[ "$(status_of "$out/run.json")" = incomplete ]; check "frame full: run.json says incomplete" $?
grep -Eq '"frames_saved":[[:space:]]*2,' "$out/run.json"; check "frame full: run.json counts the 2 frames saved" $?
[ -s "$out/frames/0001.bin" ] && [ ! -e "$out/frames/0002.bin" ] && [ ! -e "$out/frames/0003.bin" ]
check "frame full: frames 0 and 1 kept, 2 removed, 3 never written" $?
[ "$(head -c 8 "$out/frames/0001.bin")" = FLFRAME1 ]; check "frame full: frame 1 is a frame" $?

# a file-size limit (ulimit -f, in 1024-byte blocks): EFBIG, not a SIGXFSZ kill
out="$dir/fsize"
(ulimit -f 24; "$bin" run dam_break --solver sph --frames 30 "${small[@]}" --out "$out" 2> "$out.err")
expect "file-size limit" $? "$out.err" "stats.csv: write failed: File too large"
[ "$(status_of "$out/run.json")" = incomplete ]; check "file-size limit: run.json says incomplete" $?
[ "$(tail -c 2 "$out/run.json" | head -c 1)" = "}" ]
check "file-size limit: run.json rewritten whole (ends with its closing brace)" $?

# the summary plot cut short by the limit after the run: the run is not
# whole (run.json said stable, and compare marked it finished for --resume)
if command -v gnuplot > /dev/null; then
  tiny=(hydrostatic --set fluid.spacing=0.05 --frames 1 --quiet)
  out="$dir/plot_fsize"
  (ulimit -f 40; "$bin" run "${tiny[@]}" --out "$out" 2> "$out.err")
  expect "summary plot cut short" $? "$out.err" "summary.png: not written whole"
  [ "$(status_of "$out/run.json")" = incomplete ] && grep -q '"reason":.*summary.png and .svg, not whole (the run was stable)' "$out/run.json"
  check "summary plot cut short: run.json says incomplete, naming the plot" $?
  [ ! -e "$out/summary.png" ] && [ ! -e "$out/summary.svg" ]; check "summary plot cut short: no picture left" $?
  out="$dir/plot_fsize_compare"
  (ulimit -f 40; "$bin" compare "${tiny[@]}" --solvers sph,pbf --out "$out" 2> "$out.err")
  rc=$?
  [ "$rc" -eq 2 ] && [ "$(status_of "$out/sph/run.json")" = incomplete ] && [ ! -e "$out/sph/run.complete" ]
  check "compare, summary plot cut short: exit 2 ($rc), run.json incomplete, not marked finished" $?
fi

# compare, sweep, figures: their own files on a full device
out="$dir/compare"
mkdir -p "$out"
ln -s /dev/full "$out/compare.md"
"$bin" compare dam_break --solvers sph --frames 1 "${small[@]}" --out "$out" 2> "$out.err"
expect "compare.md full" $? "$out.err" "compare.md: write failed: No space left on device"
out="$dir/sweep"
mkdir -p "$out"
ln -s /dev/full "$out/sweep.csv"
"$bin" sweep dam_break --solver sph --dt 0.001 --frames 1 "${small[@]}" --out "$out" 2> "$out.err"
expect "sweep.csv full" $? "$out.err" "sweep.csv: write failed: No space left on device"
out="$dir/figures"
mkdir -p "$out"
ln -s /dev/full "$out/fig4_stability.csv"
"$bin" figures --smoke --only 4 --quiet --no-plot --out "$out" 2> "$out.err"
expect "figure CSV full" $? "$out.err" "fig4_stability.csv: write failed: No space left on device"
[ ! -e "$out/report.md" ] && [ ! -e "$out/report.md.part" ]; check "figure CSV full: no report.md" $?

# bench's log: a file where its folder should be, and a log on a full device
touch "$dir/not_a_folder"
"$bin" bench sph --particles 500 --repeat 1 --steps 1 --log "$dir/not_a_folder" > /dev/null 2> "$dir/log1.err"
expect "bench --log on a file" $? "$dir/log1.err" "not_a_folder: cannot create folder: a file of that name is there"
mkdir -p "$dir/logs"
ln -s /dev/full "$dir/logs/sph.csv"
"$bin" bench sph --particles 500 --repeat 1 --steps 1 --log "$dir/logs" > /dev/null 2> "$dir/log2.err"
expect "bench log full" $? "$dir/log2.err" "sph.csv: write failed: No space left on device"

# --out naming a file
touch "$dir/a_file"
"$bin" run dam_break --solver sph --frames 1 "${small[@]}" --out "$dir/a_file" 2> "$dir/file.err"
expect "--out a file" $? "$dir/file.err" "a_file: cannot create folder: a file of that name is there"
# under a file, compare named the marker it could not remove, not the folder
"$bin" compare dam_break --solvers sph --frames 1 "${small[@]}" --out "$dir/a_file/x" 2> "$dir/cmpfile.err"
expect "compare --out under a file" $? "$dir/cmpfile.err" "a_file/x: cannot create folder: Not a directory"

# a real full file system and a read-only one, in a private mount namespace
if unshare -rm true 2>/dev/null; then
  mnt="$dir/mnt"
  mkdir -p "$mnt"
  unshare -rm bash -c "mount -t tmpfs -o size=64k tmpfs '$mnt' &&
    '$bin' run dam_break --solver sph --frames 30 ${small[*]} --out '$mnt/run' 2> '$dir/tmpfs.err';
    echo \$? > '$dir/tmpfs.rc'; cp '$mnt/run/run.json' '$dir/tmpfs.json'"
  expect "full tmpfs" "$(cat "$dir/tmpfs.rc")" "$dir/tmpfs.err" "No space left on device"
  [ "$(status_of "$dir/tmpfs.json")" = incomplete ]; check "full tmpfs: run.json says incomplete" $?
  unshare -rm bash -c "mount -t tmpfs -o size=64k,ro tmpfs '$mnt' &&
    '$bin' run dam_break --solver sph --frames 1 ${small[*]} --out '$mnt/run' 2> '$dir/ro.err'; echo \$? > '$dir/ro.rc'"
  expect "read-only folder" "$(cat "$dir/ro.rc")" "$dir/ro.err" "cannot create folder: Read-only file system"
else
  echo "note: no private mount namespace here (unshare -rm); the tmpfs cases are left out"
fi

# pictures: gnuplot exits 0 when it cannot write its output, so the
# pictures a command claims are checked (with gnuplot only)
if command -v gnuplot > /dev/null; then
  out="$dir/full_summary"
  mkdir -p "$out"
  ln -s /dev/full "$out/summary.png"
  "$bin" run dam_break --solver sph --frames 2 --set fluid.spacing=0.04 --quiet --out "$out" 2> "$out.err"
  expect "summary.png full" $? "$out.err" "summary.png: not written whole"
  out="$dir/fig_blocked"
  mkdir -p "$out/fig1_density.png"
  "$bin" figures --smoke --only 1 --quiet --out "$out" 2> "$out.err"
  expect "figure 1's picture blocked by a folder" $? "$out.err" "figure 1 not drawn"
  [ ! -e "$out/report.md" ]; check "figure 1 not drawn: no report.md that names its pictures" $?
fi
report
