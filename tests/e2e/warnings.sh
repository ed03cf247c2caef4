#!/usr/bin/env bash
# Plugin warnings: a broken plugin is skipped with one "thermpress: warning:" line per
# process on stderr, and listed by show status.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

: "${THERMPRESS_PLUGIN_DIR:?}"
mkdir "$tmp/plugins"
cp "$THERMPRESS_PLUGIN_DIR"/*.so "$tmp/plugins/"
printf 'not a shared object\n' >"$tmp/plugins/broken.so"
export THERMPRESS_PLUGIN_DIR="$tmp/plugins"

run_stdin $'show\nshow status\nshow backends\n' "$TP" --sim
assert_rc 0 "a broken plugin is not fatal"
assert_eq "$(printf '%s\n' "$err" | grep -c '^thermpress: warning: ')" 1 "one warning per process"
assert_contains "$err" "broken.so" "the warning names the plugin"
assert_match "$out" 'plugin warning: +.*broken\.so' "show status lists the warning"
assert_match "$out" 'pelt +yes' "the good plugins still work"

run "$TP" --sim --json show status
json_check "$out" 'len(d["plugin_warnings"]) == 1 and "broken.so" in d["plugin_warnings"][0]' "show status --json: plugin_warnings"

finish
