#!/usr/bin/env python3
"""board-speed.py: makes the arm64 board's CPUs slow down when capped.

Each vCPU thread of qemu (-name debug-threads=on names them "CPU N/TCG") gets a host
cgroup v1 cpu group of its own, whose CFS bandwidth quota is set from the guest's
reports (tp_speed_report's TPSPEED lines on the serial console) so that

    work per second on CPU N  =  K x capacity_N / 1024 x f_N / f_max,N

where f_N is the CPU's frequency limit: quota = PERIOD x FULL x capacity / 1024 x f / f_max
+ OFFSET (FULL: the share of one host core a CPU of capacity 1024 at f_max gets; OFFSET:
the host time a vCPU spends each period on what is not its work, mostly the guest's ticks
that piled up while it was throttled, fitted on a pilot's calibration).  Until the first
report the vCPUs run unthrottled (the boot).  Each quota written is logged with the host's
monotonic time, and each group's cpu.stat at the end.

Two host settings keep each quota whole (a pilot's calibration lost up to 29% of a CPU's
work for seconds at a time without them): each vCPU thread is pinned to one host CPU
(vCPUs 0,1,4,5 to the first, 2,3,6,7 to the second: two big and two little each, so that
either carries at most 0.73 of a core at full load), so that no runtime is stranded on a
CPU the thread left; and the CFS bandwidth slice (runtime handed to a CPU at a time) goes
from 5 ms to 1 ms, below the smallest quota, and is put back at exit.

usage: board-speed.py --console FILE --pidfile FILE --log FILE [--period-us N] [--full X]
                      [--offset-us N]
Exits when qemu does, removing its groups; on SIGINT, SIGTERM or SIGHUP too, moving the
vCPU threads back to the group they came from first (qemu then runs unthrottled).  Killed
with SIGKILL it cannot: the slice stays at 1 ms (echo 5000 >
/proc/sys/kernel/sched_cfs_bandwidth_slice_us, the kernel's default) and the groups
/sys/fs/cgroup/cpu/thermpress-board-PID stay until qemu exits and they are removed by hand.
"""
import argparse
import os
import re
import signal
import sys
import time

CGROUP = "/sys/fs/cgroup/cpu"
SLICE = "/proc/sys/kernel/sched_cfs_bandwidth_slice_us"
LINE = re.compile(r"TPSPEED (\d+) (\d+)((?: \d+:\d+:\d+)+)\s*$")
MIN_QUOTA_US = 1000  # the kernel's floor for cpu.cfs_quota_us


def write(path, value):
    with open(path, "w") as f:
        f.write(str(value))


def cpu_cgroup(pid, tid):
    """The cpu controller's group a thread is in, as a directory under CGROUP."""
    with open(f"/proc/{pid}/task/{tid}/cgroup") as f:
        for line in f:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            if "cpu" in controllers.split(","):
                return CGROUP + path.rstrip("/")
    return CGROUP


def vcpu_threads(pid):
    """{cpu index: thread id} of qemu's vCPU threads."""
    threads = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                m = re.match(r"CPU (\d+)/TCG", f.read())
        except OSError:
            continue
        if m:
            threads[int(m.group(1))] = int(tid)
    return threads


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--console", required=True)
    ap.add_argument("--pidfile", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--period-us", type=int, default=32000)
    ap.add_argument("--full", type=float, default=0.25)
    ap.add_argument("--offset-us", type=int, default=0)
    a = ap.parse_args()
    if not os.path.isdir(CGROUP) or not os.access(CGROUP, os.W_OK):
        sys.exit(f"board-speed.py: {CGROUP} (cgroup v1 cpu controller) is missing or not writable")
    log = open(a.log, "w", buffering=1)
    t_start = time.monotonic()
    for _ in range(3000):  # qemu writes its pidfile once it has started
        try:
            with open(a.pidfile) as f:
                pid = int(f.read().strip())
            break
        except (OSError, ValueError):
            time.sleep(0.01)
    else:
        sys.exit("board-speed.py: qemu never wrote its pidfile")
    threads = {}
    for _ in range(500):
        threads = vcpu_threads(pid)
        if threads:
            break
        time.sleep(0.01)
    host_cpus = sorted(os.sched_getaffinity(0))
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):  # so that finally runs
        signal.signal(sig, lambda s, _f: sys.exit(128 + s))
    with open(SLICE) as f:
        slice_before = f.read().strip()
    base = f"{CGROUP}/thermpress-board-{pid}"
    groups = {}
    origin = {tid: cpu_cgroup(pid, tid) for tid in threads.values()}
    write(SLICE, 1000)
    try:
        os.makedirs(base, exist_ok=True)
        for cpu, tid in sorted(threads.items()):
            g = f"{base}/cpu{cpu}"
            os.makedirs(g, exist_ok=True)
            groups[cpu] = g
            write(f"{g}/cpu.cfs_period_us", a.period_us)
            write(f"{g}/cpu.cfs_quota_us", -1)
            write(f"{g}/tasks", tid)
            os.sched_setaffinity(tid, {host_cpus[(cpu // 2) % len(host_cpus)]})
        follow(a, log, pid, threads, groups, host_cpus, t_start)
    finally:
        remove_groups(log, base, groups, origin)
        write(SLICE, slice_before)


def remove_groups(log, base, groups, origin):
    """Each group's cpu.stat to the log, its threads (if any) back where they came from,
    and the groups removed."""
    for cpu, g in sorted(groups.items()):
        try:
            with open(f"{g}/cpu.stat") as f:
                log.write(f"# cpu{cpu} cpu.stat: {' '.join(f.read().split())}\n")
            with open(f"{g}/tasks") as f:
                for tid in f.read().split():
                    write(f"{origin.get(int(tid), CGROUP)}/tasks", tid)
            os.rmdir(g)
        except OSError as e:
            log.write(f"# cpu{cpu}: {g} not removed: {e}\n")
    try:
        os.rmdir(base)
    except OSError:
        pass


def follow(a, log, pid, threads, groups, host_cpus, t_start):
    """Sets each group's quota from the TPSPEED lines on the console until qemu exits."""
    log.write(f"# board-speed.py: qemu {pid}, vCPU threads {sorted(threads.items())}, "
              f"period {a.period_us} us, full {a.full}, offset {a.offset_us} us, "
              f"host CPUs {host_cpus}, bandwidth slice 1000 us\n")
    log.write("# t_s seq cpu capacity khz max_khz quota_us\n")
    quota = {}
    buf = b""
    pos = 0
    next_usage = 0.0
    log.write("# usage lines: U t_s then each vCPU thread's host CPU time in ms (schedstat)\n")
    while os.path.exists(f"/proc/{pid}"):
        t = time.monotonic() - t_start
        if t >= next_usage:  # what each vCPU thread really got, every half second
            next_usage = t + 0.5
            usage = []
            for cpu, tid in sorted(threads.items()):
                try:
                    with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                        usage.append(f"{int(f.read().split()[0]) / 1e6:.1f}")
                except (OSError, ValueError, IndexError):
                    usage.append("-")
            log.write(f"U {t:.4f} {' '.join(usage)}\n")
        try:
            with open(a.console, "rb") as f:
                f.seek(pos)
                data = f.read()
        except OSError:
            data = b""
        pos += len(data)
        buf += data
        *lines, buf = buf.split(b"\n")
        for raw in lines:
            m = LINE.search(raw.decode("ascii", "replace").replace("\r", ""))
            if not m:
                continue
            cpus = m.group(3).split()
            if len(cpus) != int(m.group(2)):
                continue
            t = time.monotonic() - t_start
            for cpu, field in enumerate(cpus):
                cap, khz, maxk = (int(x) for x in field.split(":"))
                if cpu not in groups or maxk <= 0 or khz <= 0:
                    continue
                q = max(MIN_QUOTA_US, round(a.period_us * a.full * cap / 1024 * khz / maxk)
                        + a.offset_us)
                if quota.get(cpu) != q:
                    write(f"{groups[cpu]}/cpu.cfs_quota_us", q)
                    quota[cpu] = q
                    log.write(f"{t:.4f} {m.group(1)} {cpu} {cap} {khz} {maxk} {q}\n")
        time.sleep(0.002)


if __name__ == "__main__":
    main()
