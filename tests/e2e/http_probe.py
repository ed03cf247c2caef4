#!/usr/bin/env python3
"""HTTP from the tests' side of thermpress export (standard library only).

  http_probe.py get URL [HEADER: VALUE ...]   status, content type, blank line, body
  http_probe.py method PORT METHOD PATH       the status of one request
  http_probe.py raw PORT                      stdin's bytes sent as they are; the status line
                                              answered, or "closed"
  http_probe.py pipeline PORT PATH...        one GET per PATH, all sent in one write on one
                                              connection (RFC 9112, 9.3.2); each response read
                                              in turn: "STATUS BYTES" a line, then "closed" or
                                              "open" (the connection after the last)
  http_probe.py timed PORT PATH               one GET: "STATUS SECONDS", then the body
  http_probe.py slow PORT PATH SECONDS        a request sent one byte at a time over SECONDS;
                                              the status, then the ms other clients took
                                              meanwhile (max)
  http_probe.py idle PORT                     seconds until an idle connection is closed
  http_probe.py load PORT CLIENTS TOTAL       TOTAL scrapes of /metrics by CLIENTS threads over
                                              keep-alive connections; one line of figures, and
                                              exit 1 on any failed scrape
"""
import http.client
import socket
import sys
import threading
import time
import urllib.request


def get(url, headers):
    req = urllib.request.Request(url)
    for h in headers:
        k, v = h.split(":", 1)
        req.add_header(k.strip(), v.strip())
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            status, ctype, body = r.status, r.headers.get("Content-Type", ""), r.read()
    except urllib.error.HTTPError as e:
        status, ctype, body = e.code, e.headers.get("Content-Type", ""), e.read()
    sys.stdout.write(f"{status}\n{ctype}\n\n")
    sys.stdout.flush()
    sys.stdout.buffer.write(body)


def method(port, meth, path):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request(meth, path, body=b"x=1" if meth in ("POST", "PUT") else None)
    r = c.getresponse()
    r.read()
    allow = r.getheader("Allow")
    print(r.status, *( [f"Allow: {allow}"] if allow else []))


def status_line(sock):
    data = b""
    try:
        while b"\r\n" not in data:
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
    except (ConnectionResetError, socket.timeout):
        pass
    return data.split(b"\r\n", 1)[0].decode("latin-1") if data else "closed"


def raw(port):
    payload = sys.stdin.buffer.read()
    s = socket.create_connection(("127.0.0.1", port), timeout=15)
    try:
        s.sendall(payload)
    except (BrokenPipeError, ConnectionResetError):
        pass
    try:
        s.shutdown(socket.SHUT_WR)
    except OSError:
        pass
    print(status_line(s))


def read_response(f):
    """One response from the file f: (status, headers, body), or None at the end."""
    line = f.readline()
    if not line:
        return None
    status = int(line.split()[1])
    headers = {}
    while True:
        h = f.readline()
        if h in (b"\r\n", b"\n", b""):
            break
        k, v = h.decode("latin-1").split(":", 1)
        headers[k.strip().lower()] = v.strip()
    body = f.read(int(headers.get("content-length", "0")))
    return status, headers, body


def pipeline(port, paths):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(b"".join(f"GET {p} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode() for p in paths))
    f = s.makefile("rb")
    for _ in paths:
        try:
            r = read_response(f)
        except (OSError, ValueError, IndexError):
            r = None
        if r is None:
            print("closed")
            return
        print(r[0], len(r[2]))
    s.settimeout(0.5)
    try:
        print("closed" if s.recv(1) == b"" else "extra")
    except (socket.timeout, TimeoutError):
        print("open")


def timed(port, path):
    t = time.monotonic()
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.request("GET", path)
    r = c.getresponse()
    body = r.read()
    print(r.status, f"{time.monotonic() - t:.3f}")
    sys.stdout.flush()
    sys.stdout.buffer.write(body)


def timed_get(port, path="/metrics"):
    t = time.monotonic()
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request("GET", path)
    r = c.getresponse()
    r.read()
    c.close()
    if r.status != 200:
        raise RuntimeError(f"status {r.status}")
    return (time.monotonic() - t) * 1000


def slow(port, path, seconds):
    req = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow\r\n\r\n".encode()
    s = socket.create_connection(("127.0.0.1", port), timeout=15)
    step = seconds / len(req)
    worst = 0.0
    for i in range(len(req)):
        s.sendall(req[i:i + 1])
        if i % 8 == 0:
            worst = max(worst, timed_get(port))
        time.sleep(step)
    print(status_line(s))
    print(f"{worst:.0f}")


def idle(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=60)
    t = time.monotonic()
    try:
        s.recv(1)
    except ConnectionResetError:
        pass
    print(f"{time.monotonic() - t:.0f}")


def load(port, clients, total):
    lat = []
    errors = []
    lock = threading.Lock()
    counter = [0]

    def worker():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        while True:
            with lock:
                if counter[0] >= total:
                    break
                counter[0] += 1
            t = time.monotonic()
            try:
                conn.request("GET", "/metrics")
                r = conn.getresponse()
                body = r.read()
                ok = r.status == 200 and b"thermpress_up 1\n" in body
            except (OSError, http.client.HTTPException) as e:
                ok, body = False, str(e).encode()
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            ms = (time.monotonic() - t) * 1000
            with lock:
                lat.append(ms)
                if not ok:
                    errors.append(body[:200])
        conn.close()

    t0 = time.monotonic()
    threads = [threading.Thread(target=worker) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.monotonic() - t0
    lat.sort()
    pct = lambda p: lat[min(len(lat) - 1, int(p * len(lat)))]
    print(f"scrapes={len(lat)} clients={clients} failed={len(errors)} wall_s={wall:.2f} "
          f"rate_per_s={len(lat) / wall:.0f} p50_ms={pct(0.5):.2f} p99_ms={pct(0.99):.2f} "
          f"max_ms={lat[-1]:.2f}")
    for e in errors[:3]:
        print("error:", e, file=sys.stderr)
    sys.exit(1 if errors else 0)


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "get":
        get(args[0], args[1:])
    elif cmd == "method":
        method(int(args[0]), args[1], args[2])
    elif cmd == "raw":
        raw(int(args[0]))
    elif cmd == "pipeline":
        pipeline(int(args[0]), args[1:])
    elif cmd == "timed":
        timed(int(args[0]), args[1])
    elif cmd == "slow":
        slow(int(args[0]), args[1], float(args[2]))
    elif cmd == "idle":
        idle(int(args[0]))
    elif cmd == "load":
        load(int(args[0]), int(args[1]), int(args[2]))
    else:
        sys.exit(f"unknown command {cmd}")


if __name__ == "__main__":
    main()
