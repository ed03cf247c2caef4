# Host-side helpers shared by kernel/run.sh (x86, patched kernel), kernel/arm64/run.sh
# (arm64, Debian's stock kernel or the series) and kernel/i386/run.sh (the series,
# 32-bit).  Set `me` (the script's name for messages) before sourcing.
log() { echo "$me: $*" >&2; }
die() { echo "$me: error: $*" >&2; exit 2; }

# series_suffix SERIES: sets series_sfx, the suffix of everything that belongs to one
# series (kernel/patches$series_sfx, config$series_sfx.fragment, obj$series_sfx, build
# dirs): empty for 6.1, whose names came first, -6.12 for 6.12.  Dies on any other
# series: this is the one list of the series the harness knows.
series_suffix() {
	case "$1" in
	6.1) series_sfx= ;;
	6.12) series_sfx=-6.12 ;;
	*) die "--series must be 6.1 or 6.12, not '$1'" ;;
	esac
}
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# series_patches DIR: the series' patches in order, one per line, without the cover
# letter (0000-cover-letter.patch: no diff, git am refuses it)
series_patches() {
	local p
	for p in "$1"/*.patch; do
		[ -f "$p" ] || continue
		case "$(basename "$p")" in 0000-*) continue ;; esac
		echo "$p"
	done
}

# series_tree KDIR [SERIES]: the source tree kernel/run.sh prepared in KDIR for SERIES
# (6.1, the default: Debian's linux-source-6.1 with kernel/patches applied; 6.12:
# linux-source-6.12 with kernel/patches-6.12); sets src and series_sum
series_tree() {
	local patches series=${2:-6.1} sfx=
	[ "$series" = 6.1 ] || sfx=-$series
	src="$1/linux-source-$series"
	git -C "$src" rev-parse -q --verify refs/tags/base >/dev/null 2>&1 ||
		die "no kernel source in $src: run kernel/run.sh --series $series --source-only first"
	mapfile -t patches < <(series_patches "$top/kernel/patches$sfx")
	series_sum=$(cat "${patches[@]}" | sha256sum | cut -d' ' -f1)
	[ "$(cat "$1/series$sfx.stamp" 2>/dev/null)" = "$series_sum" ] ||
		die "$src does not carry the current kernel/patches$sfx: run kernel/run.sh --series $series --source-only first"
}

# fetch PACKAGE:ARCH=VERSION ...: apt-get download into $debs what is not there yet;
# deb PACKAGE VERSION: the downloaded file
debname() { echo "$debs/${1}_$(echo "$2" | sed 's/:/%3a/')_"; }
fetch() {
	local need=() p name
	for p in "$@"; do
		name=${p%%=*}
		ls "$(debname "${name%%:*}" "${p##*=}")"*.deb >/dev/null 2>&1 || need+=("$p")
	done
	[ ${#need[@]} = 0 ] && return 0
	log "downloading ${need[*]}"
	(cd "$debs" && "${apt_get[@]:-apt-get}" -o APT::Sandbox::User=root download "${need[@]}" >&2) ||
		die "apt-get download ${need[*]} failed"
}
deb() { ls "$(debname "$1" "$2")"*.deb | head -1; }

# debian_apt DIR: an apt state of the harness's own in DIR (sources list, package
# lists, cache) naming Debian's bookworm and trixie with their security and backports
# suites, for arm64 and amd64, so that the kernels a harness tests do not depend on
# the machine's release or its apt sources, which are never changed.  The lists are
# fetched again when older than a day.  Sets apt_get and apt_cache (arrays); fetch
# then downloads through it.
debian_apt() {
	local dir=$1 mirror=${THERMPRESS_DEBIAN_MIRROR:-http://deb.debian.org/debian}
	local security=${THERMPRESS_DEBIAN_SECURITY:-http://deb.debian.org/debian-security}
	local key=/usr/share/keyrings/debian-archive-keyring.gpg suite
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
	{
		for suite in bookworm bookworm-backports trixie trixie-backports; do
			echo "deb [arch=arm64,amd64 signed-by=$key] $mirror $suite main"
		done
		for suite in bookworm-security trixie-security; do
			echo "deb [arch=arm64,amd64 signed-by=$key] $security $suite main"
		done
	} >"$dir/sources.list.new"
	local opts=(-o Dir::Etc::SourceList="$dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o Dir::State::Lists="$dir/lists" -o Dir::State::status=/dev/null
		-o Dir::Cache="$dir/cache" -o APT::Architectures::=amd64 -o APT::Architectures::=arm64
		-o Acquire::Languages=none -o APT::Sandbox::User=root)
	apt_get=(apt-get "${opts[@]}")
	apt_cache=(apt-cache "${opts[@]}")
	if ! cmp -s "$dir/sources.list.new" "$dir/sources.list" ||
		[ -z "$(find "$dir/update.stamp" -mmin -1440 2>/dev/null)" ]; then
		mv "$dir/sources.list.new" "$dir/sources.list"
		log "fetching Debian's package lists into $dir (bookworm, trixie: arm64, amd64)"
		"${apt_get[@]}" update >"$dir/update.log" 2>&1 ||
			die "apt-get update of the harness's own apt state failed (see $dir/update.log)"
		touch "$dir/update.stamp"
	fi
	rm -f "$dir/sources.list.new"
}

# debian_kernel_pkg LINE FLAVOUR: the image package of the newest Debian kernel of
# LINE (6.1, 6.12, 7.3) in debian_apt's lists, e.g. linux-image-6.12.118+deb13-arm64,
# found through the flavour's metapackage (linux-image-arm64 versions 6.12.118-1,
# 7.3.4-1~bpo13+1, ...); sets kpkg, krel (the release uname -r gives) and kver
# (the package version)
debian_kernel_pkg() {
	local line=$1 flavour=$2 arch=${2##*-} meta
	meta=$("${apt_cache[@]}" madison "linux-image-$flavour:$arch" 2>/dev/null |
		awk -v l="$line." '{ v = $3 } index(v, l) == 1 { print v }' | sort -V | tail -1)
	[ -n "$meta" ] || die "no linux-image-$flavour of Linux $line in Debian's archive"
	kpkg=$("${apt_cache[@]}" show "linux-image-$flavour:$arch=$meta" 2>/dev/null |
		sed -n "s/^Depends:.*\(linux-image-$line[^ ,]*-$flavour\) (= .*/\1/p" | head -1)
	[ -n "$kpkg" ] || die "linux-image-$flavour $meta names no kernel image package"
	krel=${kpkg#linux-image-}
	kver=$meta
}

# resolve_dirs: after the options, tpbuild relative to the top and bdir made and absolute
resolve_dirs() {
	case "$tpbuild" in /*) ;; *) tpbuild="$top/$tpbuild" ;; esac
	mkdir -p "$bdir"
	bdir=$(cd "$bdir" && pwd)
}

# initramfs_skeleton ROOT BUSYBOX: an empty root with a static busybox in it
initramfs_skeleton() {
	rm -rf "$1"
	mkdir -p "$1"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,etc,lib}
	cp "$2" "$1/bin/busybox"
	cp "$(dirname "${BASH_SOURCE[0]}")/vm-checks.sh" "$1/vm-checks.sh"
}

# initramfs_init ROOT SCRIPT [EXPORTS...]: /init mounts the usual file systems,
# exports NAME=VALUE pairs, runs SCRIPT under busybox sh and powers off
initramfs_init() {
	local root=$1 script=$2
	shift 2
	{
		cat <<'EOF2'
#!/bin/busybox sh
/bin/busybox --install -s
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
export PATH=/usr/bin:/bin:/usr/sbin:/sbin
export THERMPRESS_PLUGIN_DIR=/usr/lib/thermpress/plugins
EOF2
		local kv
		for kv in "$@"; do printf 'export %q\n' "$kv"; done
		cat <<EOF2
echo "TPT: BOOTED \$(cut -d' ' -f1 /proc/uptime)"
sh /$script
echo "TPT: EXIT \$?"
sync
reboot -f
EOF2
	} >"$root/init"
	chmod +x "$root/init"
}

# initramfs_pack ROOT OUT: a gzip'ed newc cpio of ROOT
initramfs_pack() {
	(cd "$1" && find . | cpio -o -H newc --quiet) | gzip -1 >"$2"
}

# run_vm TIMEOUT CONSOLE QEMU ARGS...: boots under timeout, console to CONSOLE and
# CONSOLE.txt (without CRs); sets vm_rc, vm_s, booted, done_line.
# VM_RETRY_EARLY_CRASH=1 (the stock kernels' harnesses only, never the series'): when
# the kernel oopses or panics before init starts (no "TPT: BOOTED", so before anything
# of thermpress ran), it is booted once more, said on stdout, the first console kept as
# CONSOLE.crash.  Seen once: Debian's 7.3 amd64 kernel took an int3 in
# ktime_get_with_offset while patching its text under multi-threaded TCG.
run_vm() {
	local timeout_s=$1 console=$2 t crash
	shift 2
	t=$(now)
	run_vm_once "$timeout_s" "$console" "$@"
	crash=$(grep -aE -m1 'Oops: |Kernel panic - not syncing' "$console.txt" || true)
	if [ "${VM_RETRY_EARLY_CRASH:-0}" = 1 ] && [ -z "$booted" ] && [ -n "$crash" ]; then
		echo "$me: warning: the kernel crashed before init (${crash#*] }): booting it once more (console in $console.crash)"
		mv "$console" "$console.crash"
		run_vm_once "$timeout_s" "$console" "$@"
	fi
	vm_s=$(elapsed "$t")
	vm_timeout=$timeout_s
	vm_console=$console
}

run_vm_once() {
	local timeout_s=$1 console=$2
	shift 2
	set +e
	timeout -k 5 "$timeout_s" "$@" </dev/null >"$console" 2>&1
	vm_rc=$?
	set -e
	tr -d '\r' <"$console" >"$console.txt"
	booted=$(sed -n 's/.*TPT: BOOTED \([0-9.]*\).*/\1/p' "$console.txt" | head -1)
	done_line=$(grep -aE '^TPT: DONE ' "$console.txt" | tail -1 || true)
}

# vm_report TITLE: after run_vm, the VM's result lines under "== TITLE ==", then exit 3
# when qemu timed out or the VM never reported; else sets vm_pass and vm_fail from
# the DONE line
vm_report() {
	echo "== $1 =="
	grep -aE '^TPT: (ok|FAIL|SKIP|INFO|placement)' "$vm_console.txt" | sed 's/^TPT: /  /' || true
	if [ "$vm_rc" = 124 ] || [ "$vm_rc" = 137 ]; then
		echo "$me: qemu timed out after ${vm_timeout}s (console in $vm_console)"
		exit 3
	fi
	if [ -z "$done_line" ]; then
		echo "$me: the VM never reported (qemu exit $vm_rc); last console lines:"
		tail -30 "$vm_console.txt"
		exit 3
	fi
	vm_pass=$(echo "$done_line" | sed -n 's/.*pass=\([0-9]*\).*/\1/p')
	vm_fail=$(echo "$done_line" | sed -n 's/.*fail=\([0-9]*\).*/\1/p')
}

# build_replay_checker BDIR TPBUILD: the host-side checker tests/kernel/replay.c in
# BDIR/tp-replay, linked with TPBUILD's libthermpress and plugins when they are there
# (a native build: it runs on this machine); sets replay and with_lib
build_replay_checker() {
	local src="$top/tests/kernel/replay.c"
	replay="$1/tp-replay"
	with_lib=0
	if [ -f "$2/core/libthermpress.so" ] && ls "$2"/plugins/*.so >/dev/null 2>&1; then
		with_lib=1
		gcc -O2 -Wall -Wextra -std=gnu11 -DTP_WITH_LIBRARY -I"$top/core/include" \
			-I"$top/tests/support" -o "$replay" "$src" -L"$2/core" -lthermpress \
			-Wl,-rpath,"$2/core" -lm || die "cannot build $src"
	else
		gcc -O2 -Wall -Wextra -std=gnu11 -I"$top/tests/support" -o "$replay" "$src" -lm ||
			die "cannot build $src"
		log "no libthermpress/plugins in $2: the logs are replayed against the reference only"
	fi
	replay_plugins="$2/plugins"
}

# replay_console_logs CONSOLE LOGDIR MIN: the update logs between "TPLOG BEGIN NAME" and
# "TPLOG END NAME" in CONSOLE, into LOGDIR/NAME.log, each replayed by the checker (and
# through the plugins when it has them); sets nlogs and replay_fail (fewer than MIN
# logs is a failure)
replay_console_logs() {
	local l
	rm -rf "$2"
	mkdir -p "$2"
	awk -v dir="$2" '
		/^TPLOG BEGIN / { name = $3; out = dir "/" name ".log"; printf "" > out; next }
		/^TPLOG END / { close(out); out = ""; next }
		out != "" { print > out }
	' "$1"
	replay_fail=0
	nlogs=0
	"$replay" --selftest || replay_fail=$((replay_fail + 1))
	for l in "$2"/*.log; do
		[ -f "$l" ] || continue
		nlogs=$((nlogs + 1))
		if [ "$with_lib" = 1 ]; then "$replay" --plugins "$replay_plugins" "$l"
		else "$replay" "$l"; fi || replay_fail=$((replay_fail + 1))
	done
	[ $nlogs -ge "$3" ] ||
		{ echo "  FAIL replay: only $nlogs logs came out of the VM"; replay_fail=$((replay_fail + 1)); }
}

# configure_fragment SRC OBJ FRAGMENT [MAKE_ARGS...]: tinyconfig plus FRAGMENT in OBJ
# (merge_config.sh, olddefconfig), and every CONFIG_ line of FRAGMENT must have stuck
configure_fragment() {
	local src=$1 obj=$2 frag=$3 line o missing=0
	shift 3
	mkdir -p "$obj"
	make -s -C "$src" O="$obj" "$@" tinyconfig >/dev/null
	(cd "$src" && scripts/kconfig/merge_config.sh -m -O "$obj" "$obj/.config" "$frag" >/dev/null)
	make -s -C "$src" O="$obj" "$@" olddefconfig
	while read -r line; do
		case "$line" in CONFIG_*=*) ;; *) continue ;; esac
		grep -qx "$line" "$obj/.config" && continue
		# an option of the series' own (SCHED_THERMAL_PRESSURE*) that this prefix of the
		# series does not define yet (6.12: patches 2 and 5 add them) is not missing
		case "$line" in CONFIG_SCHED_THERMAL_PRESSURE*)
			o=${line%%=*}
			grep -qx "config ${o#CONFIG_}" "$src/init/Kconfig" || continue ;;
		esac
		log "config: $line did not stick"
		missing=1
	done <"$frag"
	[ $missing = 0 ] || die "$frag does not apply"
}

# git_tree DIR ARGS...: git in a kernel source tree or worktree, as the series' author,
# without the user's hooks
git_tree() { git -C "$1" -c user.name="thermpress developers" \
	-c user.email=thermpress@example.org -c core.hooksPath=/dev/null "${@:2}"; }

# prefix_tree KDIR PDIR N WORKTREE: a git worktree of KDIR's source tree (the one
# kernel/run.sh prepares) holding the first N patches of the series in PDIR (N=0:
# Debian's source as it is; N=all: the whole series); sets src, series_sum (of the
# whole series), prefix_n (N as a number) and prefix_label.  The whole series is committed once on a ref named after its
# checksum, and each prefix is checked out from that ref: git rewrites only the files
# that differ, so going from one prefix to the next rebuilds incrementally.
prefix_tree() {
	local base_src="$1/linux-source-${series:-6.1}" pd=$2 n=$3 wt=$4 patches ref p
	git_tree "$base_src" rev-parse -q --verify refs/tags/base >/dev/null 2>&1 ||
		die "no kernel source in $base_src: run kernel/run.sh --series ${series:-6.1} --source-only first"
	mapfile -t patches < <(series_patches "$pd")
	[ "${#patches[@]}" -gt 0 ] || die "no patches in $pd"
	[ "$n" = all ] && n=${#patches[@]}
	case "$n" in ''|*[!0-9]*) die "--prefix wants a number of patches, not '$n'" ;; esac
	[ "$n" -le "${#patches[@]}" ] ||
		die "--prefix $n: the series in $pd has ${#patches[@]} patches (0-${#patches[@]})"
	series_sum=$(cat "${patches[@]}" | sha256sum | cut -d' ' -f1)
	ref=refs/thermpress/series-$series_sum
	if ! git_tree "$wt" rev-parse -q --verify HEAD >/dev/null 2>&1; then
		rm -rf "$wt"
		git_tree "$base_src" worktree prune
		git_tree "$base_src" worktree add -q --detach "$wt" base >/dev/null 2>&1 ||
			die "cannot create the worktree $wt"
	fi
	if ! git_tree "$wt" rev-parse -q --verify "$ref" >/dev/null; then
		log "committing the series of $pd (${#patches[@]} patches) in $wt"
		git_tree "$wt" am --abort >/dev/null 2>&1 || true
		git_tree "$wt" checkout -q -f --detach base
		for p in "${patches[@]}"; do
			git_tree "$wt" am -q "$p" >&2 || { git_tree "$wt" am --abort || true; die "$p does not apply"; }
		done
		git_tree "$wt" update-ref "$ref" HEAD
	fi
	git_tree "$wt" checkout -q -f --detach "$ref~$((${#patches[@]} - n))"
	git_tree "$wt" clean -q -fdx
	src=$wt
	prefix_n=$n
	if [ "$n" = 0 ]; then prefix_label="no patch of the series (Debian's source)"
	else prefix_label="the series' first $n of ${#patches[@]} patches (up to $(basename "${patches[n - 1]}"))"; fi
}

# capture_into CONSOLE DIR: the tree the VM's capture_check (kernel/lib/vm-checks.sh) sent
# between "TPCAPTURE BEGIN NAME" and "TPCAPTURE END", unpacked into DIR/NAME; with
# THERMPRESS_UPDATE_FIXTURES=1 it also replaces tests/fixtures/stock/NAME, which is how
# the committed stock fixtures are regenerated from real kernels.  Sets capture_name.
capture_into() {
	local console=$1 dir=$2
	capture_name=$(sed -n 's/^TPCAPTURE BEGIN \([A-Za-z0-9._-]*\)$/\1/p' "$console" | tail -1)
	[ -n "$capture_name" ] || { log "no capture in $console"; return 0; }
	rm -rf "${dir:?}/$capture_name"
	mkdir -p "$dir/$capture_name"
	awk '/^TPCAPTURE BEGIN / { on = 1; next } /^TPCAPTURE END/ { on = 0 } on' "$console" |
		base64 -d | tar -xz -C "$dir/$capture_name" || die "the capture in $console does not unpack"
	if [ "${THERMPRESS_UPDATE_FIXTURES:-0}" = 1 ]; then
		rm -rf "$top/tests/fixtures/stock/$capture_name"
		cp -a "$dir/$capture_name" "$top/tests/fixtures/stock/$capture_name"
		log "tests/fixtures/stock/$capture_name regenerated from the VM"
	fi
}

# each_kernel SCRIPT LINES DIR ARGS...: SCRIPT ARGS --kernel LINE --build-dir DIR/LINE for
# each kernel line, each run's output kept in DIR/LINE/run.log, their checks summed in one
# closing "N passed, N failed" line (a run that fails without its counts is one failure;
# --build-only runs print none); 0 when every run passed
each_kernel() {
	local script=$1 lines=$2 dir=$3 l out rc total_pass=0 total_fail=0
	shift 3
	for l in $lines; do
		mkdir -p "$dir/$l"
		# (errexit is off inside a list ending in || true: a failed run is counted, not fatal)
		{ bash "$script" "$@" --kernel "$l" --build-dir "$dir/$l" | tee "$dir/$l/run.log"
		  rc=${PIPESTATUS[0]}; } || true
		out=$(tail -1 "$dir/$l/run.log")
		if [[ $out =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
			total_pass=$((total_pass + BASH_REMATCH[1])) total_fail=$((total_fail + BASH_REMATCH[2]))
		elif [ "$rc" != 0 ]; then
			echo "$me: the run on Linux $l ended without its counts: $out" >&2
			total_fail=$((total_fail + 1))
		fi
	done
	echo "$total_pass passed, $total_fail failed"
	[ "$total_fail" = 0 ]
}
