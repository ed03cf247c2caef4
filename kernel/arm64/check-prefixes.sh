#!/bin/bash
# Every prefix of the patch series booted on the arm64 board: for N = 0 (Debian's
# source, mainline's thermal pressure) to the whole series, kernel/arm64/run.sh
# --patched --prefix N builds the first N patches for arm64 (incrementally, one
# worktree and one object tree for all of them) and boots them; in each,
# kernel/arm64/vm-test-prefix.sh caps the big cluster through its cooling device and
# checks that the scheduler's cpu_capacity of a busy big CPU falls to the capped
# capacity and comes back.  A series whose middle patches make the scheduler read a
# store that nothing feeds fails here (kernel/check-series.sh only compiles them).
#
# Needs the source tree of kernel/run.sh (--build-only is enough) and the arm64
# meson build, like run.sh --patched.  Exit status: 0 every prefix passed; 1 a check
# failed; 2 usage or setup error; 3 a VM timed out.
set -euo pipefail

usage() {
	cat <<'EOF'
usage: bash kernel/arm64/check-prefixes.sh [OPTIONS]

  --series V        6.1 (kernel/patches, the default) or 6.12 (kernel/patches-6.12;
                    run.sh's build dir build-arm64-patched-6.12/)
  --patches DIR     the series (default: the --series one)
  --from N          the first prefix to boot (default: 0, no patch)
  --build-dir DIR   run.sh's build dir (default: build-arm64-patched/, or
                    build-arm64-patched-6.12/ with --series 6.12)
  --thermpress-build DIR
                    run.sh's arm64 meson build (default: $THERMPRESS_ARM64_BUILD, else build-arm64/)
  --jobs N          make -j N (default: 2)
  -h, --help        show this help
EOF
}

me=check-prefixes.sh
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/../lib/host.sh"
pdir=
series=6.1
from=0
args=()
while [ $# -gt 0 ]; do
	case "$1" in
	--patches) pdir=$2; shift 2 ;;
	--series) series=$2; shift 2 ;;
	--from) from=$2; shift 2 ;;
	--build-dir|--jobs|--thermpress-build) args+=("$1" "$2"); shift 2 ;;
	-h|--help) usage; exit 0 ;;
	*) echo "$me: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	esac
done
series_suffix "$series"
[ -n "$pdir" ] || pdir="$top/kernel/patches$series_sfx"
case "$pdir" in /*) ;; *) pdir="$(pwd)/$pdir" ;; esac
mapfile -t patches < <(series_patches "$pdir")
[ "${#patches[@]}" -gt 0 ] || die "no patches in $pdir"
case "$from" in ''|*[!0-9]*) die "--from wants a number, not '$from'" ;; esac

# prefixes passed and failed, and the checks of every prefix (the closing line counts
# checks, as every harness's does, not prefixes)
passed=0 failed=0 worst=0 checks_pass=0 checks_fail=0
out_file=$(mktemp)
trap 'rm -f "$out_file"' EXIT
t_all=$(now)
for n in $(seq "$from" "${#patches[@]}"); do
	t=$(now)
	set +e
	bash "$here/run.sh" --patched --series "$series" --prefix "$n" --patches "$pdir" "${args[@]}" >"$out_file" 2>&1
	rc=$?
	set -e
	out=$(cat "$out_file")
	grep -E '^  (ok|FAIL|INFO)' <<<"$out" | sed "s/^  /  prefix $n: /" || true
	last=$(tail -1 <<<"$out")
	if [[ $last =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
		checks_pass=$((checks_pass + BASH_REMATCH[1])) checks_fail=$((checks_fail + BASH_REMATCH[2]))
		[ $rc = 0 ] || [ "${BASH_REMATCH[2]}" != 0 ] || checks_fail=$((checks_fail + 1))
	else
		checks_fail=$((checks_fail + 1))	# ended without its counts
	fi
	if [ $rc = 0 ]; then
		echo "ok prefix $n: $last ($(elapsed "$t")s)"
		passed=$((passed + 1))
	else
		echo "FAIL prefix $n: run.sh exit $rc, $last ($(elapsed "$t")s)"
		[ $rc = 1 ] || tail -15 <<<"$out" | sed 's/^/    /'
		failed=$((failed + 1))
		[ $rc -gt $worst ] && worst=$rc
		[ $rc = 2 ] && break	# a build or setup error: the later prefixes would repeat it
	fi
done
echo "== every prefix booted: $((passed + failed)) prefixes in $(elapsed "$t_all")s: $passed passed, $failed failed =="
echo "$checks_pass passed, $checks_fail failed"
[ $failed = 0 ] || exit $((worst > 1 ? worst : 1))
