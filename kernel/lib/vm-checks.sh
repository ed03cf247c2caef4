# In-VM check helpers shared by kernel/vm-test.sh (x86, patched kernel) and
# kernel/arm64/vm-test.sh (arm64, stock kernel); sourced by busybox sh.
# Console protocol, one line each:
#   TPT: ok NAME | TPT: FAIL NAME: DETAIL | TPT: SKIP NAME: WHY | TPT: INFO ...
#   TPT: DONE pass=N fail=M
pass=0
fail=0

ok() { pass=$((pass + 1)); echo "TPT: ok $*"; }
bad() { fail=$((fail + 1)); echo "TPT: FAIL $*"; }
skip() { echo "TPT: SKIP $*"; }
info() { echo "TPT: INFO $*"; }

# eq NAME GOT WANT
eq() {
	if [ "$2" = "$3" ]; then ok "$1"; else bad "$1: got '$2', want '$3'"; fi
}

# done_checks: the closing line; exit status 0 when nothing failed
done_checks() {
	echo "TPT: DONE pass=$pass fail=$fail"
	[ $fail = 0 ]
}
