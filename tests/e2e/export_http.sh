#!/usr/bin/env bash
# thermpress export's HTTP against RFC 9112 (on the in-process simulator: no FUSE):
# pipelined requests answered in order on one connection (9.3.2), an absolute-form target
# routed by its path (3.2.2), the path percent-decoded strictly ("/metrics%00.html" is not
# /metrics, a malformed '%' is 400).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
source "$E2E_DIR/export_lib.sh"

start_exporter "$tmp/exp.err" --sim export --listen 127.0.0.1:0
port=$exp_port

# three requests in one write: three responses, in order, and the connection stays open
run python3 "$PROBE" pipeline "$port" / /metrics /nothing
assert_eq "$(awk '{print $1}' <<<"$out" | paste -sd' ')" "200 200 404 open" "three pipelined requests: three responses in order, connection kept"
index_len=$(python3 "$PROBE" get "http://127.0.0.1:$port/" | sed 1,3d | wc -c)
assert_eq "$(sed -n 1p <<<"$out")" "200 $index_len" "pipelined: the first response is /'s whole page"
run python3 "$PROBE" pipeline "$port" /metrics /metrics /metrics /metrics /metrics
assert_eq "$(awk '{print $1}' <<<"$out" | paste -sd' ')" "200 200 200 200 200 open" "five pipelined scrapes: five responses"

# status of one raw request
target() {
	printf 'GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' "$1" |
		python3 "$PROBE" raw "$port"
}
assert_eq "$(target "http://127.0.0.1:$port/metrics")" "HTTP/1.1 200 OK" "absolute form: GET http://127.0.0.1:PORT/metrics is /metrics"
assert_eq "$(target "HTTP://example.org/metrics?x=1")" "HTTP/1.1 200 OK" "absolute form: scheme case-insensitive, authority ignored, query ignored"
assert_eq "$(target "http://127.0.0.1")" "HTTP/1.1 200 OK" "absolute form with an empty path: /"
assert_eq "$(target "http://127.0.0.1/nothing")" "HTTP/1.1 404 Not Found" "absolute form of another path: 404"
run python3 "$PROBE" pipeline "$port" "http://127.0.0.1/metrics" "http://127.0.0.1/"
assert_match "$out" "^200 [0-9]{4,}"$'\n'"200 $index_len"$'\n'"open$" "absolute form, pipelined: the metrics, then the page"
assert_eq "$(target "/metrics%00.html")" "HTTP/1.1 404 Not Found" "/metrics%00.html: 404 (a NUL is not the end of the path)"
assert_eq "$(target "/metrics%00")" "HTTP/1.1 404 Not Found" "/metrics%00: 404"
assert_eq "$(target "/%00")" "HTTP/1.1 404 Not Found" "/%00: 404, not /"
assert_eq "$(target "/metrics%2F")" "HTTP/1.1 404 Not Found" "/metrics%2F: 404"
assert_eq "$(target "/%6Detrics")" "HTTP/1.1 200 OK" "/%6Detrics decodes to /metrics (RFC 3986, 6.2.2.2)"
assert_eq "$(target "/metrics%zz")" "HTTP/1.1 400 Bad Request" "a malformed percent-encoding: 400"
assert_eq "$(target "/metrics%4")" "HTTP/1.1 400 Bad Request" "a truncated percent-encoding: 400"
assert_eq "$(target "/metrics?x=%00")" "HTTP/1.1 200 OK" "the query is not the path"

kill -TERM "$exp_pid"
set +e; wait "$exp_pid"; rc=$?; set -e
assert_rc 143 "SIGTERM ends it"
finish
