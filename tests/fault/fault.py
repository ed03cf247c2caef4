#!/usr/bin/env python3
"""Fault test: signals at random moments never leave a cap, backend or decay behind.

Against `cap hold`, `cap play` and `bench` (on the simulator now and then with a workload that
ignores SIGTERM), on a simulator served over FUSE (real clock,
--root MOUNT) and on a copy of a stock fixture tree, each round:
  1. sets a random prior state (caps through thermpress or written as an administrator would,
     a backend and decay period on the simulator), so that "put back what was before" is
     tested rather than "clear everything";
  2. captures the whole observable state: every CPU's cap, the backend, the decay period(s),
     on the stock tree the raw scaling_max_freq and cooling cur_state files, and the live
     records of every state file (what a later `cap restore` would write back);
  3. starts the command, waits a seeded random time (often only a few ms, so the signal also
     lands during start-up, and up to past the command's natural end, so it also lands during
     the final restore) and delivers one of INT, TERM, HUP, PIPE (the reader of its standard
     output exits) or KILL (followed by `thermpress cap restore`);
  4. checks the exit status is the conventional one (killed by the signal or 128 + signal; a
     command that had already ended must have ended as it does unsignalled), that no
     thermpress process is left over, and that the state equals the one captured.

Then concurrent holders on both: each round starts two or three `cap hold`s on overlapping CPUs one after another (each after the one before has announced its hold),
checks that every CPU carries the cap of the most recent live holder, ends them in a random
order with INT, TERM, HUP, PIPE or KILL (then `cap restore` at once: a killed holder does
nothing, and `cap restore` leaves the caps of the live ones), checking the same after each end,
and checks that the state equals the one captured before the
first (docs/state.md, "Holds nest").

The seed is printed; `fault.py --seed N` replays the same choices (the timing of the machine
still varies).  Environment: THERMPRESS (the binary), THERMPRESS_PLUGIN_DIR.  Exit 0 when every
round passed, 1 otherwise.
"""
import argparse
import ctypes
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

TP = os.environ.get("THERMPRESS")
HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "..", "fixtures", "stock", "arm64-biglittle-6.1")
COMMANDS = ("hold", "play", "bench")
SIGNALS = ("INT", "TERM", "HUP", "PIPE", "KILL")
SIGNUM = {"INT": signal.SIGINT, "TERM": signal.SIGTERM, "HUP": signal.SIGHUP,
          "PIPE": signal.SIGPIPE, "KILL": signal.SIGKILL}
ROUND_TIMEOUT = 10.0	# seconds a command may take to end after its signal


def default_signals():
    """In the child: the signals the test sends act as from a terminal, whatever this
    test inherited (nohup ignores SIGHUP, a background job SIGINT and SIGQUIT)."""
    for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGQUIT, signal.SIGTERM, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_DFL)

def tp(root, *args, check=True):
    """Run thermpress --root ROOT ARGS to completion: (rc, stdout, stderr).  These are the
    round's helpers (state, prior state, cap restore), not the commands under test."""
    p = subprocess.run([TP, "--root", root.path, *args], env=root.helper_env,
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30)
    if check and p.returncode != 0:
        raise RuntimeError("thermpress --root %s %s: exit %d: %s" %
                           (root.path, " ".join(args), p.returncode, p.stderr.strip()))
    return p.returncode, p.stdout, p.stderr


def json_docs(text):
    """The JSON documents printed one after another."""
    dec, docs, i = json.JSONDecoder(), [], 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i == len(text):
            return docs
        d, i = dec.raw_decode(text, i)
        docs.append(d)


class Root:
    def __init__(self, name, path, env, tmp):
        self.name, self.path, self.env, self.tmp = name, path, env, tmp
        # the helpers skip the leak check of a sanitized build (other tests cover show and
        # cap restore; here it would only slow every round down)
        asan = env.get("ASAN_OPTIONS", "")
        self.helper_env = dict(env, ASAN_OPTIONS=(asan + ":" if asan else "") + "detect_leaks=0")
        self.script = os.path.join(tmp, "state-%s.tp" % name)
        with open(self.script, "w") as f:
            f.write("show --json\n" + ("show backends --json\n" if name == "served" else ""))
        self.known = None	# the state after the last round, while nothing changed it

    def state(self):
        """Everything a round must leave as it found it, in one thermpress run."""
        docs = json_docs(tp(self, "-f", self.script)[1])
        d = docs[0]
        st = {"backend": d["backend"], "decay_ms": d["decay_ms"],
              "caps": [(c["cpu"], c["capped_freq_khz"], c["capped"]) for c in d["cpus"]]}
        if self.name == "stock":
            for rel in self.raw_files:
                with open(os.path.join(self.path, rel)) as f:
                    st[rel] = f.read().strip()
        else:
            st["backends"] = [(b["name"], b["active"], b["decay_ms"])
                              for b in docs[1]["backends"]]
        st["records"] = self.records(st)
        return st

    def records(self, st):
        """The live records of every state file (caps.state, patched-HASH.state), each as
        what it would write back: a round must neither leave one behind (a later cap restore
        would replay it over a newer value) nor drop one an earlier cap set made.  The value
        a record says was applied is left out, and so is a record whose original is in force
        anyway (dropping or keeping it changes nothing)."""
        recs = []
        sdir = self.env["THERMPRESS_STATE_DIR"]
        for name in sorted(os.listdir(sdir)):
            if not name.endswith(".state"):
                continue
            with open(os.path.join(sdir, name)) as f:
                for line in f:
                    w = line.split()
                    if not w or w[0] in ("thermpress-caps", "root"):
                        continue
                    if not self.moot(w, st):
                        recs.append("%s: %s" % (name, " ".join(w[:-1])))
        return sorted(recs)	# a rewrite may reorder them

    def moot(self, w, st):
        return False


class StockRoot(Root):
    CPULISTS = ("all", "big", "little", "0-3", "4-5", "0,4", "1-2")	# 0-3 little, 4-5 big
    POLICY = "sys/devices/system/cpu/cpufreq/policy%d/%s"
    COOLING = "sys/class/thermal/cooling_device%d/cur_state"

    def __init__(self, path, env, tmp):
        super().__init__("stock", path, env, tmp)
        self.raw_files = [self.POLICY % (p, "scaling_max_freq") for p in (0, 4)] + \
                         [self.COOLING % c for c in (0, 1, 2)]

    def moot(self, w, st):
        if w[0] == "scaling_max_freq" and len(w) == 4:
            return st.get(self.POLICY % (int(w[1]), "scaling_max_freq")) == w[2]
        if w[0] == "cur_state" and len(w) == 4:
            return st.get(self.COOLING % int(w[1])) == w[2]
        return False

    def read(self, rel):
        with open(os.path.join(self.path, rel)) as f:
            return f.read().split()

    def write(self, rel, value):
        with open(os.path.join(self.path, rel), "w") as f:
            f.write("%s\n" % value)

    def prior(self, rng, killed):
        """A random prior state; before a KILL round only what an administrator writes, as
        `cap restore` rightly undoes every cap thermpress recorded, earlier ones included."""
        done = []
        if killed or rng.random() < 0.25:
            tp(self, "cap", "restore")
            done.append("cap restore")
        r = rng.random()
        if r < 0.45:
            for p in (0, 4):
                if rng.random() < 0.6:
                    f = rng.choice(self.read(self.POLICY % (p, "scaling_available_frequencies")))
                    self.write(self.POLICY % (p, "scaling_max_freq"), f)
                    done.append("policy%d max %s" % (p, f))
            for c in (0, 1):
                if rng.random() < 0.4:
                    mx = int(self.read("sys/class/thermal/cooling_device%d/max_state" % c)[0])
                    s = rng.randint(0, mx)
                    self.write(self.COOLING % c, s)
                    done.append("cooling%d %d" % (c, s))
        elif r < 0.75 and not killed:
            args = ["cap", "set", rng.choice(self.CPULISTS), "%d%%" % rng.randint(30, 95)]
            if rng.random() < 0.4:
                args += ["--via", "cooling"]
            tp(self, *args)
            done.append(" ".join(args))
        return ", ".join(done) or "unchanged"

    def hold_args(self, rng):
        args = ["cap", "hold", rng.choice(self.CPULISTS), "%d%%" % rng.randint(30, 95)]
        if rng.random() < 0.4:
            args += ["--via", "cooling"]
        return args

    def bench_args(self, rng, profile):
        # the kernel's own backend and half-life (the fixture boots with
        # sched_thermal_decay_shift=2): another one is refused on a stock kernel
        return ["bench", "--backends", "pelt:128", "--runs", "1", "--profile", profile, "--",
                "sleep", "0.1"]


class ServedRoot(Root):
    CPULISTS = ("all", "big", "little", "0-3", "4-7", "0,5", "2-6")

    def __init__(self, path, env, tmp):
        super().__init__("served", path, env, tmp)

    def moot(self, w, st):
        if w[0] == "cap" and len(w) == 4:
            cpu = [c for c in st["caps"] if c[0] == int(w[1])]
            return bool(cpu) and (cpu[0][1] == int(w[2]) if cpu[0][2] else w[2] == "0")
        if w[0] == "backend" and len(w) == 3:
            return st["backend"] == w[1]
        if w[0] == "decay" and len(w) == 4:
            return st["backend"] == w[1] and str(st["decay_ms"]) == w[2]
        return False

    def prior(self, rng, killed):
        done = []
        r = rng.random()
        if r < 0.35:
            args = ["cap", "set", rng.choice(self.CPULISTS), "%d%%" % rng.randint(30, 95)]
            tp(self, *args)
            done.append(" ".join(args))
        elif r < 0.5:
            tp(self, "cap", "clear", "all")
            done.append("cap clear all")
        if rng.random() < 0.4:
            b = rng.choice(("instant", "pelt", "decay", "none"))
            args = ["backend", "set", b]
            if b not in ("instant", "none"):	# the backends without a decay period
                args += ["decay", str(rng.choice((32, 64, 100, 128, 250, 500)))]
            tp(self, *args)
            done.append(" ".join(args))
        return ", ".join(done) or "unchanged"

    def hold_args(self, rng):
        return ["cap", "hold", rng.choice(self.CPULISTS), "%d%%" % rng.randint(30, 95)]

    def bench_args(self, rng, profile):
        backends = rng.sample(("instant", "pelt", "decay:125", "decay:500", "none"), rng.randint(1, 2))
        # now and then a workload that ignores SIGTERM: bench kills it after its grace
        work = ["sh", "-c", 'trap "" TERM; exec sleep 0.06'] if rng.random() < 0.3 else \
            ["sleep", "0.06"]
        return ["bench", "--backends", ",".join(backends), "--runs", "1", "--profile",
                profile, "--"] + work


def make_profile(rng, root, path):
    """2-4 steps within 300 ms; returns the time of the last step in seconds."""
    t, lines = 0, []
    for i in range(rng.randint(2, 4)):
        if i:
            t += rng.randint(20, 100)
        value = "clear" if i and rng.random() < 0.25 else "%d%%" % rng.randint(30, 95)
        lines.append("%dms, %s, %s" % (t, rng.choice(root.CPULISTS), value))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return t / 1000


def command(rng, root, cmd, sig, tmp):
    """The arguments and the natural duration in seconds (None: until signalled)."""
    if cmd == "hold":
        args = root.hold_args(rng)
        if sig == "PIPE" or rng.random() < 0.5:
            ms = rng.randint(50, 300)
            return args + ["--for", "%dms" % ms], ms / 1000
        return args, None
    profile = os.path.join(tmp, "profile.txt")
    length = make_profile(rng, root, profile)
    if cmd == "play":
        return ["cap", "play", profile], length
    args = root.bench_args(rng, profile)
    return args, 0.1 * args.count(",") + 0.1


def delay_for(rng, sig, natural):
    """Often a few ms (start-up), else anywhere up to a little past the natural end."""
    span = natural if natural is not None else 0.3
    r = rng.random()
    if r < (0.5 if sig == "PIPE" else 0.3):
        return rng.uniform(0, 0.004)
    return rng.uniform(0, span * 1.15 + 0.01)


def set_subreaper():
    """Orphans of our commands are re-parented to us, so strays can be found."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(36, 1, 0, 0, 0)	# PR_SET_CHILD_SUBREAPER
    except OSError:
        pass


def children():
    """(pid, exe) of every child of this process; exe is None for one that has ended."""
    me, out = os.getpid(), []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[1]) != me:
                continue
            out.append((int(d), None if fields[0] == "Z" else os.readlink("/proc/%s/exe" % d)))
        except (OSError, IndexError, ValueError):
            continue
    return out


def ended(pid):
    """True if the child has exited (not reaped: its pid stays ours)."""
    info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    return info is not None and info.si_pid == pid


def describe(rc):
    return "killed by SIG%s" % signal.Signals(-rc).name[3:] if rc < 0 else "exit %d" % rc


class Stats:
    def __init__(self):
        self.rows = {}

    def row(self, key):
        return self.rows.setdefault(key, {"rounds": 0, "signalled": 0, "ended_before": 0,
                                          "passed": 0, "failed": 0})


def run_round(rng, root, cmd, sig, tmp, natural_rc, natural_took, tp_exe, keep, log, verbose):
    """One round; returns (signalled, ended_before, problems)."""
    known, root.known = root.known, None
    prior = root.prior(rng, sig == "KILL")
    before = known if prior == "unchanged" and known else root.state()
    args, natural = command(rng, root, cmd, sig, tmp)
    delay = delay_for(rng, sig, natural)
    errpath = os.path.join(tmp, "stderr")
    problems = []
    rfd, wfd = os.pipe()
    with open(errpath, "w") as err:
        t0 = time.monotonic()
        p = subprocess.Popen([TP, "--root", root.path, *args], env=root.env, preexec_fn=default_signals,
                             stdin=subprocess.DEVNULL, stdout=wfd, stderr=err)
    os.close(wfd)
    # we hold the reading end of its standard output until the moment comes (PIPE: then
    # the reader exits, without having read anything)
    deadline = t0 + delay
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        time.sleep(min(left, 0.002))
    at = time.monotonic() - t0
    signalled = not ended(p.pid)
    if sig == "PIPE":
        os.close(rfd)
        rfd = -1
    elif signalled:
        os.kill(p.pid, SIGNUM[sig])
    try:
        rc = p.wait(timeout=(natural or 0) + ROUND_TIMEOUT)
    except subprocess.TimeoutExpired:
        problems.append("still running %.0f s after SIG%s: killed" % (ROUND_TIMEOUT, sig))
        p.kill()
        rc = p.wait()
    if rfd >= 0:
        os.close(rfd)

    # the exit status
    num = SIGNUM[sig]
    conventional = {-num, 128 + num}
    # a command that refuses (it does so unsignalled) ends long before its nominal length, and
    # once the kernel tears down its address space (milliseconds under ASan) its exit status
    # is fixed though it has not ended yet: from half of the time its refusal took, a signal
    # may find it ending
    late = natural is not None and at >= natural * 0.8
    if natural_rc != 0 and at >= natural_took * 0.5:
        late = True
    if sig == "PIPE":
        # the command dies of the closed pipe only if it writes to it afterwards
        ok = rc in conventional or rc == natural_rc
    elif not signalled:
        ok = rc == natural_rc
    else:
        ok = rc in conventional or (late and rc == natural_rc)
    if not ok:
        problems.append("%s after SIG%s at %.1f ms (natural end: %s)" %
                        (describe(rc), sig, at * 1000, "%s after %.0f ms" %
                         (describe(natural_rc), natural * 1000) if natural is not None
                         else "none"))

    if sig == "KILL":
        rrc, _, rerr = tp(root, "cap", "restore", check=False)
        if rrc != 0:
            problems.append("cap restore after SIGKILL: exit %d: %s" % (rrc, rerr.strip()))

    # no thermpress left over (workloads orphaned by a killed bench are ended quietly, and
    # orphans that ended are reaped)
    strays = lambda: [pid for pid, exe in children() if exe == tp_exe and pid not in keep]
    grace = time.monotonic() + 2
    while strays() and time.monotonic() < grace:
        time.sleep(0.01)	# a child of a killed command on its way out (bench's workload)
    for pid, exe in children():
        if pid in keep:
            continue
        if exe == tp_exe:
            problems.append("stray thermpress process %d left over" % pid)
        try:
            if exe is not None:
                os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except OSError:
            pass

    after = root.known = root.state()
    for k in before:
        if before[k] != after.get(k):
            problems.append("%s: before %s, after %s" % (k, before[k], after.get(k)))
    if verbose and not problems:
        log("ok: %s %s SIG%s at %.1f ms: %s; %s" % (root.name, cmd, sig, at * 1000,
                                                     " ".join(args), describe(rc)))
    if problems:
        with open(errpath) as f:
            err_text = f.read().strip()
        log("not ok: %s %s SIG%s at %.1f ms: thermpress --root %s %s" %
            (root.name, cmd, sig, at * 1000, root.name.upper(), " ".join(args)))
        log("  prior state: %s" % prior)
        if cmd != "hold":
            with open(os.path.join(tmp, "profile.txt")) as f:
                log("  profile: " + "; ".join(f.read().split("\n")).strip("; "))
        log("  state before: " + ", ".join("%s %s" % (k.split("/")[-2] if "/" in k else k, v)
                                           for k, v in before.items() if k != "records"))
        for msg in problems:
            log("  " + msg)
        if err_text:
            log("  stderr: " + err_text.replace("\n", "\n          "))
    return signalled, not signalled, problems


def cpus_of(root, cpulist):
    """The CPUs a cap on a list reaches: on the served hikey960 preset the CPUs named (0-3
    little, 4-7 big); on the stock fixture every CPU of each policy named (0-3, 4-5)."""
    n, big = (8, 4) if root.name == "served" else (6, 4)
    named = {"all": range(n), "big": range(big, n), "little": range(big)}
    if cpulist in named:
        out = set(named[cpulist])
    else:
        out = set()
        for part in cpulist.split(","):
            a, _, b = part.partition("-")
            out.update(range(int(a), int(b or a) + 1))
    if root.name == "stock":
        out = set().union(*(named["little"] if c < big else named["big"] for c in out))
    return out


def caps_now(root):
    return {cpu: (khz if capped else 0) for cpu, khz, capped in root.state()["caps"]}


def run_concurrent_round(rng, root, nholders, tp_exe, keep, log):
    """Start nholders cap holds on overlapping CPUs, end them in a random order; returns
    (signals delivered, problems)."""
    known, root.known = root.known, None
    sigs = [rng.choice(SIGNALS) for _ in range(nholders)]
    prior = root.prior(rng, "KILL" in sigs)
    before = known if prior == "unchanged" and known else root.state()
    base = caps_now(root)
    lists = [rng.choice(root.CPULISTS)]
    while len(lists) < nholders:
        c = rng.choice(root.CPULISTS)
        if cpus_of(root, c) & cpus_of(root, lists[0]):
            lists.append(c)
    holders, problems, errs = [], [], []
    for i, cl in enumerate(lists):
        args = ["cap", "hold", cl, "%d%%" % rng.randint(30, 95)]	# stock: scaling_max_freq
        rfd, wfd = os.pipe()
        err = open(os.path.join(root.tmp, "stderr-%d" % i), "w+")
        p = subprocess.Popen([TP, "--root", root.path, *args], env=root.env,
                             preexec_fn=default_signals, stdin=subprocess.DEVNULL,
                             stdout=wfd, stderr=err)
        os.close(wfd)
        out = os.fdopen(rfd, "rb", buffering=0)
        line = out.readline()	# "holding the cap ...": it holds now
        if not line.startswith(b"holding"):
            problems.append("holder %d (%s) did not announce its hold: %r" % (i, " ".join(args), line))
        holders.append({"p": p, "out": out, "err": err, "cpus": cpus_of(root, cl),
                        "args": args, "caps": {}, "live": True})
        now = caps_now(root)
        holders[-1]["caps"] = {c: now[c] for c in holders[-1]["cpus"]}

    def check(when):
        now = caps_now(root)
        for cpu in sorted(now):
            live = [h for h in holders if h["live"] and cpu in h["cpus"]]
            want = live[-1]["caps"][cpu] if live else base[cpu]
            if now[cpu] != want:
                problems.append("%s: cpu %d carries %d, expected %d" % (when, cpu, now[cpu], want))

    check("all %d holding" % nholders)
    order = list(range(nholders))
    rng.shuffle(order)
    signalled = 0
    for i in order:
        h = holders[i]
        sig = sigs[i]
        if sig == "PIPE":
            h["out"].close()
        else:
            os.kill(h["p"].pid, SIGNUM[sig])
        signalled += 1
        try:
            rc = h["p"].wait(timeout=ROUND_TIMEOUT)
        except subprocess.TimeoutExpired:
            problems.append("holder %d still running %.0f s after SIG%s: killed" % (i, ROUND_TIMEOUT, sig))
            h["p"].kill()
            rc = h["p"].wait()
        if not h["out"].closed:
            h["out"].close()
        if rc not in (-SIGNUM[sig], 128 + SIGNUM[sig]):
            problems.append("holder %d (%s): %s after SIG%s" % (i, " ".join(h["args"]), describe(rc), sig))
        h["live"], h["sig"] = False, sig
        if sig == "KILL":
            # nothing runs in a killed holder: its cap stays until cap restore (which
            # leaves the live holders' caps)
            rrc, _, rerr = tp(root, "cap", "restore", check=False)
            if rrc != 0:
                problems.append("cap restore after SIGKILL: exit %d: %s" % (rrc, rerr.strip()))
        check("after holder %d ended (SIG%s%s)" % (i, sig, ", cap restore" if sig == "KILL" else ""))
    for pid, exe in children():
        if pid in keep:
            continue
        if exe == tp_exe:
            problems.append("stray thermpress process %d left over" % pid)
        try:
            if exe is not None:
                os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except OSError:
            pass
    after = root.known = root.state()
    for k in before:
        if before[k] != after.get(k):
            problems.append("after every holder ended: %s: before %s, after %s" % (k, before[k], after.get(k)))
    if problems:
        log("not ok: %s, %d concurrent holders: %s" % (root.name, nholders, "; ".join(
            "thermpress %s" % " ".join(h["args"]) for h in holders)))
        log("  prior state: %s; ended in the order %s with %s" % (prior, order,
            ", ".join("SIG" + holders[i].get("sig", "?") for i in order)))
        for msg in problems:
            log("  " + msg)
        for i, h in enumerate(holders):
            h["err"].seek(0)
            text = h["err"].read().strip()
            if text:
                log("  stderr of holder %d: %s" % (i, text))
    for h in holders:
        h["err"].close()
    return signalled, problems


def serve(tmp, env):
    """A real-clock simulator served at TMP/mnt: (pid, mountpoint), or None if FUSE is unusable."""
    try:
        fd = os.open("/dev/fuse", os.O_RDWR)
        os.close(fd)
    except OSError as e:
        print("# skipped the served simulator: /dev/fuse: %s" % e.strerror)
        return None
    mnt = os.path.join(tmp, "mnt")
    os.mkdir(mnt)
    errf = open(os.path.join(tmp, "serve.err"), "w")
    p = subprocess.Popen([TP, "sim", "serve", "--preset", "hikey960", mnt], env=env, preexec_fn=default_signals,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errf)
    version = os.path.join(mnt, "sys/kernel/debug/sched/thermal_pressure/version")
    for _ in range(200):
        if os.path.exists(version):
            return p, mnt
        if p.poll() is not None:
            break
        time.sleep(0.05)
    p.kill()
    p.wait()
    with open(os.path.join(tmp, "serve.err")) as f:
        msg = f.read().strip()
    if "fusermount3" in msg or "mount" in msg:
        print("# skipped the served simulator: %s" % msg)
        return None
    raise RuntimeError("sim serve did not mount: %s" % msg)


def mounted(path):
    with open("/proc/self/mounts") as f:
        return any(line.split()[1] == path for line in f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--rounds", type=int, default=5, help="rounds per root, command and signal")
    ap.add_argument("--budget", type=float, default=75,
                    help="seconds after which no new round starts")
    ap.add_argument("--min-signals", type=int, default=100,
                    help="fail unless at least this many signals reached a running command")
    ap.add_argument("--roots", default="stock,served")
    ap.add_argument("--verbose", action="store_true", help="a line for every round")
    ap.add_argument("--commands", default=",".join(COMMANDS))
    ap.add_argument("--signals", default=",".join(SIGNALS))
    ap.add_argument("--concurrent", type=int, default=12,
                    help="rounds of two and of three concurrent holders each, per root")
    opt = ap.parse_args()
    if not TP:
        sys.exit("THERMPRESS must name the thermpress binary")
    seed = opt.seed if opt.seed is not None else int.from_bytes(os.urandom(4), "little")
    print("# seed %d (replay: %s --seed %d)" % (seed, sys.argv[0], seed), flush=True)
    rng = random.Random(seed)
    set_subreaper()
    tp_exe = os.path.realpath(TP)
    tmp = tempfile.mkdtemp(prefix="thermpress-fault-")
    failures = 0
    roots = []
    server = None
    stats = Stats()
    t_start = time.monotonic()
    try:
        base_env = dict(os.environ)
        base_env.pop("THERMPRESS_ROOT", None)
        if "stock" in opt.roots.split(","):
            shutil.copytree(FIXTURE, os.path.join(tmp, "stock"), symlinks=True)
            env = dict(base_env, THERMPRESS_STATE_DIR=os.path.join(tmp, "state-stock"))
            os.mkdir(env["THERMPRESS_STATE_DIR"], 0o700)
            r = StockRoot(os.path.join(tmp, "stock"), env, tmp)
            roots.append(r)
        if "served" in opt.roots.split(","):
            env = dict(base_env, THERMPRESS_STATE_DIR=os.path.join(tmp, "state-served"))
            os.mkdir(env["THERMPRESS_STATE_DIR"], 0o700)
            server = serve(tmp, env)
            if server:
                r = ServedRoot(server[1], env, tmp)
                roots.append(r)

        def log(msg):
            print(msg, flush=True)

        # each command once without a signal: how it ends on its own
        natural_rc, natural_took = {}, {}
        for root in roots:
            for cmd in opt.commands.split(","):
                args, natural = command(rng, root, cmd, "none", tmp)
                if natural is None:
                    args += ["--for", "50ms"]
                before = root.state()
                t0 = time.monotonic()
                rc, _, err = tp(root, *args, check=False)
                natural_took[root.name, cmd] = time.monotonic() - t0
                natural_rc[root.name, cmd] = rc
                print("# %s %s unsignalled: %s%s" % (root.name, cmd, describe(rc),
                      ": " + err.strip() if rc else ""), flush=True)
                after = root.state()
                diff = ["%s: before %s, after %s" % (k, before[k], after.get(k))
                        for k in before if before[k] != after.get(k)]
                if diff:
                    print("not ok: %s %s unsignalled: thermpress --root %s %s" %
                          (root.name, cmd, root.name.upper(), " ".join(args)))
                    print("\n".join("  " + d for d in diff), flush=True)
                    failures += 1

        keep = {server[0].pid} if server else set()
        plan = [(root, cmd, sig) for root in roots for cmd in opt.commands.split(",")
                for sig in opt.signals.split(",")
                for _ in range(opt.rounds)]
        rng.shuffle(plan)
        for i, (root, cmd, sig) in enumerate(plan):
            if time.monotonic() - t_start > opt.budget:
                print("# time budget of %.0f s spent: %d of %d rounds run" %
                      (opt.budget, i, len(plan)), flush=True)
                break
            try:
                signalled, before, problems = run_round(rng, root, cmd, sig, tmp,
                                                        natural_rc[root.name, cmd],
                                                        natural_took[root.name, cmd], tp_exe,
                                                        keep, log, opt.verbose)
            except (RuntimeError, OSError, ValueError, KeyError) as e:
                log("not ok: %s %s SIG%s: %s" % (root.name, cmd, sig, e))
                signalled, before, problems = False, False, [str(e)]
            row = stats.row((root.name, cmd, sig))
            row["rounds"] += 1
            row["signalled"] += signalled
            row["ended_before"] += before
            row["passed" if not problems else "failed"] += 1
            if problems:
                log("  (round %d of seed %d)" % (i, seed))
                failures += 1
        for root, n in [(r, n) for r in roots for n in [2, 3] * opt.concurrent]:
            try:
                signalled, problems = run_concurrent_round(rng, root, n, tp_exe, keep, log)
            except (RuntimeError, OSError, ValueError, KeyError) as e:
                log("not ok: %s, %d concurrent holders: %s" % (root.name, n, e))
                signalled, problems = 0, [str(e)]
            row = stats.row((root.name, "hold%d" % n, "mixed"))
            row["rounds"] += 1
            row["signalled"] += signalled
            row["passed" if not problems else "failed"] += 1
            if problems:
                failures += 1
    finally:
        if server:
            p, mnt = server
            p.send_signal(signal.SIGTERM)
            try:
                rc = p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                rc = p.wait()
            if mounted(mnt):
                subprocess.run(["fusermount3", "-u", "-z", mnt])
                print("not ok: sim serve left %s mounted" % mnt)
                failures += 1
            elif rc not in (-signal.SIGTERM, 128 + signal.SIGTERM):
                print("not ok: sim serve ended with %s on SIGTERM" % describe(rc))
                failures += 1
        shutil.rmtree(tmp, ignore_errors=True)

    print("# %-7s %-6s %-5s %6s %9s %12s %6s %6s" % ("root", "cmd", "sig", "rounds",
          "signalled", "ended before", "passed", "failed"))
    total = {"rounds": 0, "signalled": 0, "ended_before": 0, "passed": 0, "failed": 0}
    for (rname, cmd, sig), row in sorted(stats.rows.items()):
        print("# %-7s %-6s %-5s %6d %9d %12d %6d %6d" % (rname, cmd, sig, row["rounds"],
              row["signalled"], row["ended_before"], row["passed"], row["failed"]))
        for k in total:
            total[k] += row[k]
    print("# total: %d rounds, %d signals delivered to a running command, %d ended before "
          "their signal, %d passed, %d failed, %.1f s (seed %d)" %
          (total["rounds"], total["signalled"], total["ended_before"], total["passed"],
           total["failed"], time.monotonic() - t_start, seed))
    if total["signalled"] < opt.min_signals:
        print("not ok: only %d signals reached a running command (at least %d wanted)" %
              (total["signalled"], opt.min_signals))
        failures += 1
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
