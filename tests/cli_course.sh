#!/usr/bin/env bash
# cli_course.sh: `fluidlab course`. The list names every lesson and each
# lesson's file exists; `fluidlab course N` runs each lesson's commands and
# makes the pictures it names, each a PNG with more than two colours (not
# blank; counted by tests/png_colours.py); the lessons name only files and functions
# that exist (tests/check_course_docs.py); bad arguments get one line and
# exit 1.
#
# usage: cli_course.sh path/to/fluidlab scratch_dir
set -u
bin=$1
dir=$2
src=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$dir" && mkdir -p "$dir" || exit 2
failed=0
fail() { echo "FAIL $*"; failed=$((failed + 1)); }

list=$("$bin" course) || fail "fluidlab course: exit $?"
lessons=$(printf '%s\n' "$list" | awk '$1 ~ /^[0-9]+$/ { n = $1 } END { print n + 0 }')
[ "$lessons" -ge 8 ] || fail "fluidlab course lists $lessons lessons, expected at least 8"
for doc in $(printf '%s\n' "$list" | awk '$1 ~ /^docs\/course\// { print $1 }'); do
    [ -f "$src/$doc" ] || fail "the list names $doc, which does not exist"
done

for n in $(seq 1 "$lessons"); do
    out="$dir/lesson_$n.out"
    if ! "$bin" course "$n" --out "$dir/course" >"$out" 2>"$dir/lesson_$n.err"; then
        fail "fluidlab course $n: exit status $? ($(tail -n 1 "$dir/lesson_$n.err"))"
        continue
    fi
    pictures=$(awk '/^  picture: / { print $2 }' "$out")
    for p in $pictures; do
        colours=$(python3 "$src/tests/png_colours.py" "$p" | awk '{ print $1 }')
        [ "${colours:-0}" -gt 2 ] || fail "lesson $n: $p has ${colours:-no} colours (blank or unreadable)"
    done
    grep -q "^lesson $n: look at " "$out" || fail "lesson $n: no 'look at' line"
    echo "ok   lesson $n: $(printf '%s\n' "$pictures" | grep -c .) pictures"
done

python3 "$src/tests/check_course_docs.py" "$src" || fail "the lessons name files or functions that do not exist"

bad() { # bad DESCRIPTION PATTERN ARGS...
    local what=$1 pattern=$2 status=0
    shift 2
    "$bin" course "$@" >/dev/null 2>"$dir/bad.err" || status=$?
    if [ "$status" -ne 1 ] || [ "$(wc -l <"$dir/bad.err")" -ne 1 ] || ! grep -Eq -- "$pattern" "$dir/bad.err"; then
        fail "$what: status $status, stderr: $(cat "$dir/bad.err")"
    else
        echo "ok   $what: $(cat "$dir/bad.err")"
    fi
}
bad "lesson 99" 'expected a lesson number 1 to [0-9]+, got .99.' 99
bad "--only 0" 'course --only: expected lesson numbers' --check --only 0
bad "--out without a lesson" '--out goes with a lesson number' --out "$dir/x"
bad "a lesson and --check" 'expected a lesson number or --check, not both' 3 --check
bad "an unknown option" '--frobnicate: unexpected argument' --frobnicate

[ "$failed" -eq 0 ] && echo "cli_course: all passed" || echo "cli_course: $failed failed"
exit $((failed > 0))
