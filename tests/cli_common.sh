# cli_common.sh: what the CLI test scripts share, sourced by them after
# `set -u`: bin and dir from the command line (FLUIDLAB SCRATCH_DIR), a fresh
# scratch folder, check NAME STATUS (counts and prints "ok:" or "FAILED:"),
# and report (the totals; its status is the script's).
bin=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir"
passed=0
failed=0
check() { # name, condition result
  if [ "$2" -eq 0 ]; then passed=$((passed + 1)); echo "ok: $1"; else failed=$((failed + 1)); echo "FAILED: $1"; fi
}
report() {
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
