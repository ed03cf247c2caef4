#!/usr/bin/env python3
"""Scrape cost of `thermpress export`, by hand (README, "Benchmarks"; docs/export.md).

  tests/bench/bench-export.py [BUILD_DIR]        (default: build)

At 8, 256 and 4096 CPUs, in one run:
  - sim:   the exporter on a served simulator (sim serve --preset smp:N --virtual-clock,
           the patched interface over FUSE), against `thermpress show --json` of the same
           root;
  - stock: the exporter on a generated stock sysfs tree of N CPUs (4 CPUs per cpufreq
           policy, thermal zones and cooling devices), against node_exporter's cpufreq
           collector alone on the same tree (--path.sysfs) and `show --json` of the tree.
CPU time per scrape is the serving process's user+system time over K sequential scrapes
(for show --json: the process's own, start-up included); latency is the client's wall time
per request.  Ratios are printed against node_exporter and show --json.  Targets
(issue 16): at 4096 CPUs a scrape costs at most 1/10 of node_exporter's cpufreq collector
and at most twice a show --json of the same source.
"""
import http.client
import os
import re
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SRC, "tests", "fixtures", "stock"))
import generate  # noqa: E402  (the fixture helpers: cpus, policy, zone, cooling, kernel)

BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(SRC, "build"))
TP = os.path.join(BUILD, "cmd", "thermpress")
ENV = dict(os.environ, THERMPRESS_PLUGIN_DIR=os.path.join(BUILD, "plugins"))
SIZES = [8, 256, 4096]
SCRAPES = {8: 300, 256: 100, 4096: 20}
TICK = os.sysconf("SC_CLK_TCK")


def cpu_s(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_http(port, path="/metrics", timeout=30):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            c.request("GET", path)
            r = c.getresponse()
            r.read()
            if r.status == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"nothing answers on port {port}")


def measure_http(pid, port, k, path="/metrics"):
    """(cpu ms per scrape of pid, mean wall ms per scrape, bytes)"""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    size = 0
    c0, t0 = cpu_s(pid), time.monotonic()
    for _ in range(k):
        conn.request("GET", path)
        r = conn.getresponse()
        size = len(r.read())
        if r.status != 200:
            raise RuntimeError(f"status {r.status}")
    wall = time.monotonic() - t0
    cpu = cpu_s(pid) - c0
    conn.close()
    return cpu * 1000 / k, wall * 1000 / k, size


def measure_show(args, k):
    """(cpu ms per run, wall ms per run) of thermpress ARGS --json show"""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    for _ in range(k):
        subprocess.run([TP] + args + ["--json", "show"], env=ENV, check=True,
                       stdout=subprocess.DEVNULL)
    wall = time.monotonic() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return cpu * 1000 / k, wall * 1000 / k


def start_exporter(args):
    p = subprocess.Popen([TP] + args + ["export", "--listen", "127.0.0.1:0"], env=ENV,
                         stderr=subprocess.PIPE, text=True)
    line = p.stderr.readline()
    m = re.search(r"127\.0\.0\.1:(\d+)/metrics", line)
    if not m:
        p.kill()
        raise RuntimeError(f"export did not start: {line}")
    return p, int(m.group(1))


def stop(p):
    p.terminate()
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def stock_tree(root, n):
    generate.cpus(root, n, f"0-{n - 1}", [1024] * n)
    freqs = [600000, 1200000, 1800000, 2400000]
    for pol in range(0, n, 4):
        related = list(range(pol, min(pol + 4, n)))
        generate.policy(root, pol, related, freqs, 1800000 if pol % 8 else 2400000, "cpufreq-dt")
        # the rest of a real policy directory, which node_exporter's collector reads too
        d = f"sys/devices/system/cpu/cpufreq/policy{pol}"
        generate.put(root, d + "/scaling_available_governors", "performance schedutil\n")
        generate.put(root, d + "/cpuinfo_cur_freq", "600000\n")
        generate.put(root, d + "/cpuinfo_transition_latency", "40000\n")
        generate.put(root, d + "/scaling_setspeed", "<unsupported>\n")
    for z in range(4):
        generate.zone(root, z, f"cpu{z}-thermal", 60000 + z * 1000,
                      [("passive", 70000, 2000), ("critical", 110000, 2000)])
    generate.cooling(root, 0, "cpufreq-cpu0", 1, 3)
    generate.kernel(root, "6.1.0-18-arm64", "aarch64", "console=ttyAMA0")


def row(kind, n, what, cpu, wall, size, base=None):
    ratio = f"{cpu / base:8.3f}" if base else " " * 8
    size_text = f"{size:9d}" if size is not None else " " * 9
    print(f"{kind:6s} {n:5d}  {what:28s} {cpu:10.3f} {wall:10.3f} {size_text} {ratio}")


def main():
    ne = shutil.which("prometheus-node-exporter") or shutil.which("node_exporter")
    tmp = tempfile.mkdtemp(prefix="bench-export.", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    print("kind   cpus   measured                      cpu ms/op  wall ms/op     bytes  ratio")
    results = {}
    try:
        for n in SIZES:
            k = SCRAPES[n]
            # the served simulator: the patched interface over FUSE
            mnt = os.path.join(tmp, f"mnt{n}")
            os.makedirs(mnt)
            server = subprocess.Popen([TP, "sim", "serve", "--preset", f"smp:{n}", "--virtual-clock", mnt],
                                      env=ENV, stderr=subprocess.DEVNULL)
            try:
                abi = os.path.join(mnt, "sys/kernel/debug/sched/thermal_pressure/version")
                for _ in range(300):
                    if os.path.exists(abi):
                        break
                    time.sleep(0.1)
                exp, port = start_exporter(["--root", mnt])
                wait_http(port)
                s0 = cpu_s(server.pid)
                cpu, wall, size = measure_http(exp.pid, port, k)
                server_cpu = (cpu_s(server.pid) - s0) * 1000 / k
                stop(exp)
                show_cpu, show_wall = measure_show(["--root", mnt], max(5, k // 10))
                row("sim", n, "export scrape", cpu, wall, size, show_cpu)
                row("sim", n, "  (FUSE server meanwhile)", server_cpu, 0, None)
                row("sim", n, "show --json", show_cpu, show_wall, None)
                results[("sim", n)] = (cpu, show_cpu)
            finally:
                stop(server)
            # a generated stock tree
            root = os.path.join(tmp, f"stock{n}")
            stock_tree(root, n)
            exp, port = start_exporter(["--root", root])
            wait_http(port)
            cpu, wall, size = measure_http(exp.pid, port, k)
            stop(exp)
            show_cpu, show_wall = measure_show(["--root", root], max(5, k // 10))
            ne_cpu = None
            if ne:
                ne_port = free_port()
                nep = subprocess.Popen([ne, "--collector.disable-defaults", "--collector.cpufreq",
                                        f"--path.sysfs={root}/sys",
                                        f"--web.listen-address=127.0.0.1:{ne_port}"],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                try:
                    wait_http(ne_port)
                    c = http.client.HTTPConnection("127.0.0.1", ne_port, timeout=120)
                    c.request("GET", "/metrics")
                    if b'node_scrape_collector_success{collector="cpufreq"} 1' not in c.getresponse().read():
                        raise RuntimeError("node_exporter's cpufreq collector fails on the tree")
                    c.close()
                    ne_cpu, ne_wall, ne_size = measure_http(nep.pid, ne_port, k)
                finally:
                    stop(nep)
            row("stock", n, "export scrape", cpu, wall, size, ne_cpu)
            if ne_cpu is not None:
                row("stock", n, "node_exporter cpufreq", ne_cpu, ne_wall, ne_size)
            row("stock", n, "show --json", show_cpu, show_wall, None)
            results[("stock", n)] = (cpu, show_cpu, ne_cpu)
    finally:
        for d in os.listdir(tmp):
            p = os.path.join(tmp, d)
            if d.startswith("mnt") and os.path.ismount(p):
                subprocess.run(["fusermount3", "-u", "-z", p], stderr=subprocess.DEVNULL)
        shutil.rmtree(tmp, ignore_errors=True)
    print("ratio: export CPU / node_exporter's (stock rows) or / show --json's (sim rows)")
    cpu, show_cpu = results[("sim", 4096)]
    print(f"4096 cpus, served simulator: export / show --json = {cpu / show_cpu:.3f} (target <= 2)")
    cpu, show_cpu, ne_cpu = results[("stock", 4096)]
    print(f"4096 cpus, stock tree: export / show --json = {cpu / show_cpu:.3f} (target <= 2)")
    if ne_cpu:
        print(f"4096 cpus, stock tree: export / node_exporter cpufreq = {cpu / ne_cpu:.3f} (target <= 0.1)")


if __name__ == "__main__":
    main()
