# cli_common.sh: what the CLI test scripts share, sourced by them after
# `set -u`: bin and dir from the command line (FLUIDLAB SCRATCH_DIR), a fresh
# scratch folder, check NAME STATUS (counts and prints "ok:" or "FAILED:"),
# refused NAME PATTERN OUT COMMAND... (bad input: one line holding PATTERN,
# exit 1, nothing written at OUT) and report (the totals; its status is the
# script's).
bin=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir"
passed=0
failed=0
check() { # name, condition result
  if [ "$2" -eq 0 ]; then passed=$((passed + 1)); echo "ok: $1"; else failed=$((failed + 1)); echo "FAILED: $1"; fi
}
refused() { # name, what the line must hold, the output COMMAND must not write, COMMAND...
  local name=$1 want=$2 out=$3
  shift 3
  "$@" 2>"$dir/refused.txt"
  [ $? -eq 1 ] && [ "$(wc -l < "$dir/refused.txt")" -eq 1 ] && grep -q -- "$want" "$dir/refused.txt"
  check "$name: one line, exit 1" $?
  [ ! -e "$out" ]; check "$name: nothing written" $?
}
report() {
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
