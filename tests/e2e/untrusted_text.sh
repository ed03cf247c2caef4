# Text from the kernel, sysfs, plugins and files reaches the terminal and --json safely
# (docs/json.md, "Strings"): --json is valid UTF-8 whatever the bytes, ill-formed UTF-8
# is U+FFFD, and the table, top --once and error messages never pass a control character
# (C0 but newline, DEL, C1) from such text.  A stock fixture root and a patched-kernel
# tree get strings with invalid bytes (0xff, a lone continuation byte, an overlong form,
# a truncated sequence, a surrogate) and terminal controls (ESC [2J, OSC, BEL, CR, C1 CSI).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/../support/patched_tree.sh"

FIX=$(cd "$E2E_DIR/../fixtures/stock" && pwd)
unset THERMPRESS_STATE_DIR
cp -a "$FIX/arm64-biglittle-6.1" "$tmp/stock"
ST=$tmp/stock
ZONE=$ST/sys/class/thermal/thermal_zone0
printf 'cpu-\xff\x80\xc0\xaf\xe2\x82 x\x1b[2J\x07\r\xc2\x9b31m\x7f-\xf0\x9f\x98\x80' >"$ZONE/type"
printf 'pas\x1b[1m\x07sive\x01' >"$ZONE/trip_point_0_type"	# 15 bytes kept
printf 'gpu\x1b[2J\xff\x9b' >"$ST/sys/class/thermal/cooling_device2/type"
printf '6.1.0-18-arm64\xed\xa0\x80\x1b]0;title\x07\xe2\x82\xac\n' >"$ST/proc/sys/kernel/osrelease"
# A plugin directory with a file whose name has ESC and 0xff: its warning quotes the name.
mkdir "$tmp/plug"
cp "$THERMPRESS_PLUGIN_DIR"/*.so "$tmp/plug/"
BADPLUG="$tmp/plug/bad$(printf '\x1b[31m\xff\x9b')x.so"
echo garbage >"$BADPLUG"
printf '%s' "$BADPLUG" >"$tmp/badplug.name"

# A patched-kernel tree whose stats file names a domain with ill-formed UTF-8 and C1
# controls (docs/abi.md allows any bytes there but spaces and C0 controls; a name with
# those is refused, checked at the end).
PT=$tmp/patched
PD=$PT/sys/kernel/debug/sched/thermal_pressure
DOMAIN=$'lit\xfftle\xc2\x9b[2J\x9b\xc2\x80\xf0\x9f\x98\x80'
printf '%s' "$DOMAIN" >"$tmp/domain.raw"
patched_tree "$PT" "$DOMAIN"

# check_text FILE DESCRIPTION [RAWFILE...]: FILE is valid UTF-8 with no control character
# but newline, and shows each RAWFILE's bytes (trailing newline dropped) as the terminal
# form: ill-formed subparts and control characters replaced by U+FFFD, all else as is.
check_text() {
	local file=$1 desc=$2
	shift 2
	if python3 - "$file" "$@" >"$tmp/pyerr" 2>&1 <<'EOF'; then
import sys
data = open(sys.argv[1], "rb").read()
try:
    text = data.decode("utf-8")
except UnicodeDecodeError as e:
    sys.exit("not UTF-8: %s" % e)
bad = sorted({hex(ord(c)) for c in text
              if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) <= 0x9f})
if bad:
    sys.exit("control characters: %s" % bad)
for raw in sys.argv[2:]:
    s = open(raw, "rb").read().rstrip(b"\n").decode("utf-8", "replace")
    want = "".join("\ufffd" if ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f else c for c in s)
    if want not in text:
        sys.exit("%r not shown as %r" % (raw, want))
EOF
		pass "$desc"
	else
		fail "$desc"
		sed 's/^/  /' "$tmp/pyerr"
		head -c 2000 "$file" | od -c | sed -n "1,20s/^/  /p"
	fi
}

# check_json FILE DESCRIPTION EXPR: FILE decodes as strict UTF-8 and parses as JSON; the
# python expression EXPR holds with the document as d and raw(PATH) giving a file's bytes
# decoded with U+FFFD for ill-formed UTF-8 (what the document must carry).
check_json() {
	if python3 - "$1" "$3" >"$tmp/pyerr" 2>&1 <<'EOF'; then
import json, sys
d = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
def raw(path):
    return open(path, "rb").read().rstrip(b"\n").decode("utf-8", "replace")
sys.exit(0 if eval(sys.argv[2]) else "false: " + sys.argv[2])
EOF
		pass "$2"
	else
		fail "$2"
		sed 's/^/  /' "$tmp/pyerr"
	fi
}

export THERMPRESS_PLUGIN_DIR=$tmp/plug

# --json: strict UTF-8, valid JSON, the strings as the files have them (U+FFFD for
# ill-formed UTF-8, control characters escaped and decoded back).
run "$TP" --root "$ST" show --json
assert_rc 0 "stock: show --json"
python3 -m json.tool <"$tmp/out" >/dev/null && pass "stock: json.tool accepts show --json" \
	|| fail "stock: json.tool rejects show --json"
check_json "$tmp/out" "stock: show --json, zone and trip types, release" \
	"d['stock']['thermal_zones'][0]['type'] == raw('$ZONE/type') and d['stock']['thermal_zones'][0]['trips'][0]['type'] == raw('$ZONE/trip_point_0_type') and d['stock']['release'] == raw('$ST/proc/sys/kernel/osrelease') and d['stock']['release'].endswith('\u20ac')"
check_json "$tmp/out" "stock: show --json, the source description" \
	"raw('$ST/proc/sys/kernel/osrelease') in d['source']['description']"
check_text "$tmp/err" "stock: show --json, the warning on stderr" "$tmp/badplug.name"
run "$TP" --root "$ST" --json show status
assert_rc 0 "stock: show status --json"
check_json "$tmp/out" "stock: show status --json, the plugin warning" \
	"any(raw('$tmp/badplug.name') in w for w in d['plugin_warnings'])"
# json-c leaves DEL and C1 raw; thermpress escapes them (a document is safe on a terminal)
check_text "$tmp/out" "stock: show status --json has no raw control character"

# The table: the same text in its terminal form, nothing raw.
run "$TP" --root "$ST" show status
assert_rc 0 "stock: show status"
check_text "$tmp/out" "stock: show status, zone and trip types, release" \
	"$ZONE/type" "$ZONE/trip_point_0_type" "$ST/proc/sys/kernel/osrelease"
check_text "$tmp/err" "stock: show status, the warning quoting a file name" "$tmp/badplug.name"
run "$TP" --root "$ST" show
assert_rc 0 "stock: show"
check_text "$tmp/out" "stock: show, the kernel line" "$ST/proc/sys/kernel/osrelease"

# top --once: the header quotes the release.
run env LC_ALL=C.UTF-8 COLUMNS=200 "$TP" --root "$ST" top --once
assert_rc 0 "stock: top --once"
check_text "$tmp/out" "stock: top --once, the source in the header" "$ST/proc/sys/kernel/osrelease"
check_text "$tmp/err" "stock: top --once, stderr"

# An error quoting a file's content: a script line that names no command.
printf 'show\x1b[2J\xff\x9b\x07\n' >"$tmp/bad.tp"
printf 'show\x1b[2J\xff\x9b\x07' >"$tmp/badword.raw"
run "$TP" --root "$ST" -f "$tmp/bad.tp"
assert_rc 2 "script: unknown command"
assert_contains "$err" "unknown command" "script: the message"
check_text "$tmp/err" "script: the message quotes the word in its terminal form" "$tmp/badword.raw"

# A patched-kernel tree: the domain name from its stats file.
run "$TP" --root "$PT" --json show
assert_rc 0 "patched: show --json"
check_json "$tmp/out" "patched: show --json, the domain name" \
	"d['domains'][0]['name'] == raw('$tmp/domain.raw') and d['cpus'][0]['domain'] == raw('$tmp/domain.raw')"
check_text "$tmp/out" "patched: show --json has no raw control character"
run "$TP" --root "$PT" show
assert_rc 0 "patched: show"
check_text "$tmp/out" "patched: show, the domain column" "$tmp/domain.raw"
run env LC_ALL=C.UTF-8 COLUMNS=120 "$TP" --root "$PT" top --once
assert_rc 0 "patched: top --once"
check_text "$tmp/out" "patched: top --once, the domain row" "$tmp/domain.raw"
run env LC_ALL=C COLUMNS=120 "$TP" --root "$PT" top --once
assert_rc 0 "patched: top --once, ASCII glyphs"
check_text "$tmp/out" "patched: top --once in the C locale, the domain row" "$tmp/domain.raw"

# A domain name with C0 controls breaks docs/abi.md: refused in one clean line.
sed -i "s/^domain 0 .*/domain 0 lit$(printf '\x1b')[2J$(printf '\a')tle/" "$PD/stats"
run "$TP" --root "$PT" show
assert_rc 1 "patched: show refuses a domain name with controls"
check_text "$tmp/err" "patched: the refusal has no raw control character"
grep -q '^thermpress: stats: malformed line 7$' "$tmp/err" && pass "patched: the refusal names the line" \
	|| fail "patched: the refusal: $(cat "$tmp/err")"

finish
