#!/usr/bin/env python3
"""TouchRelay under faults: a watched load's end-to-end latency, quiet and while an attack runs
on other sessions of the same server. Started by tools/faults/run (which builds and raises
the open-file limit). Standard library only; loopback only; bounded in count and time.

Phases alternate quiet, attack, quiet, attack (--rounds 2) on one release server. Each phase
runs touch-load (--sources sources x --rate Hz, one session each, one raw observer each,
--json) on sessions watched-*. During an attack phase, on sessions attack-*:
  - kill:   sources that connect, say hello, send a `began` (and a `moved`), then drop the TCP
            connection without a close frame (FIN or reset, alternately), --kill-rate per second;
  - stall:  --stalled observers (raw, 4 KiB receive buffer) that never read a byte;
  - drop:   observers that connect, take their welcome and drop TCP without a close frame, and
            upgrade requests cut off half-way, --drop-rate per second;
  - flood:  one source (a separate process, at nice 19 by default: its CPU stands for a remote
            attacker's, not ours) sending frames as fast as the socket takes them;
            the server answers the excess with `rate_limited`; one observer reads the session
            and counts what got through. And another (a process of its own, the same nice)
            sending text that is not JSON as fast as the socket takes it: a `bad_json` each.
Between phases the script snapshots /healthz and /metrics. Prints the table and writes
tools/faults/results/faults-DATE.json and latest.json.
"""

import argparse
import datetime
import json
import os
import random
import resource
import select
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tools/relaytools.py

import relaytools as rt  # noqa: E402

GOAL_RATIO = 2.0


class Counter:
    def __init__(self):
        self.lock = threading.Lock()
        self.c = {}

    def add(self, key, n=1):
        with self.lock:
            self.c[key] = self.c.get(key, 0) + n


def wait_welcome(sock, rest, timeout=5.0):
    reader = rt.Reader(rest)
    sock.settimeout(timeout)
    while True:
        for op, payload in reader.frames():
            if op == 0x1 and b'"welcome"' in payload:
                return json.loads(payload), reader
            if op == 0x8:
                raise ConnectionError("closed before welcome")
        data = sock.recv(65536)
        if not data:
            raise ConnectionError("closed before welcome")
        reader.feed(data)


class Attack:
    def __init__(self, a, host, port, round_no, parts=("kill", "stall", "drop", "flood")):
        self.a = a
        self.parts = set(parts)
        self.host, self.port = host, port
        self.stop = threading.Event()
        self.count = Counter()
        self.threads = []
        self.stalled = []
        self.flood = None
        self.junk = None
        self.flood_observed = 0
        self.round = round_no
        self.rng = random.Random(round_no)

    def start(self, seconds):
        # Stalled observers first, so they are stalled behind the flood and the killed gestures.
        for i in range(self.a.stalled if "stall" in self.parts else 0):
            session = "attack-flood" if i % 2 == 0 else f"attack-kill-{i % 10}"
            try:
                s, _ = rt.connect(self.host, self.port, f"/v1/observe/{session}?raw=1", rcvbuf=4096)
                self.stalled.append(s)
                self.count.add("stalled observers opened")
            except (OSError, ValueError) as e:
                self.count.add("stalled observer failed: " + str(e)[:40])
        flood_cmd = [sys.executable, os.path.abspath(__file__), "--flood", f"ws://{self.host}:{self.port}",
                     "--flood-seconds", str(seconds)]
        nice = self.a.flood_nice
        if "flood" in self.parts:
            self.flood = subprocess.Popen(flood_cmd, stdout=subprocess.PIPE, text=True,
                                          preexec_fn=(lambda: os.nice(nice)) if nice else None)
            self.junk = subprocess.Popen([*flood_cmd, "--junk"], stdout=subprocess.PIPE, text=True,
                                         preexec_fn=(lambda: os.nice(nice)) if nice else None)
        targets = {"kill": self.killer, "drop": self.dropper, "flood": self.flood_watcher}
        for target in (t for p, t in targets.items() if p in self.parts):
            t = threading.Thread(target=target, args=(seconds,), daemon=True)
            t.start()
            self.threads.append(t)

    def paced(self, rate, seconds):
        """Yields ticks at `rate` per second for at most `seconds` and rate*seconds ticks."""
        t0 = time.monotonic()
        for k in range(int(rate * seconds)):
            if self.stop.is_set() or time.monotonic() - t0 > seconds:
                return
            yield k
            self.stop.wait(max(0, t0 + (k + 1) / rate - time.monotonic()))

    def killer(self, seconds):
        for k in self.paced(self.a.kill_rate, seconds):
            session = f"attack-kill-{k % 10}"
            try:
                s, rest = rt.connect(self.host, self.port, f"/v1/source/{session}")
                s.sendall(rt.text({"type": "hello", "device": {"name": "doomed", "width": 400, "height": 800}}))
                wait_welcome(s, rest)
                x, y = self.rng.uniform(10, 390), self.rng.uniform(10, 790)
                fingers = 1 + k % 2
                s.sendall(rt.text({"type": "frame", "seq": 1, "t": 1.0, "touches": [
                    {"id": f, "phase": "began", "x": x + 30 * f, "y": y} for f in range(fingers)]}))
                s.sendall(rt.text({"type": "frame", "seq": 2, "t": 17.0, "touches": [
                    {"id": f, "phase": "moved", "x": x + 30 * f + 5, "y": y + 5} for f in range(fingers)]}))
                time.sleep(0.01)
                rt.drop(s, rst=k % 2 == 1)
                self.count.add("sources killed mid-gesture")
            except (OSError, ValueError) as e:
                self.count.add("kill failed: " + type(e).__name__ + " " + str(e)[:40])

    def dropper(self, seconds):
        for k in self.paced(self.a.drop_rate, seconds):
            try:
                if k % 4 == 3:
                    # An upgrade request cut off half-way.
                    s = socket.create_connection((self.host, self.port), timeout=5)
                    s.sendall(f"GET /v1/observe/attack-kill-{k % 10} HTTP/1.1\r\nHost: x\r\nUpgrade: webs".encode())
                    time.sleep(0.01)
                    rt.drop(s, rst=k % 8 == 7)
                    self.count.add("upgrades cut half-way")
                else:
                    s, rest = rt.connect(self.host, self.port, f"/v1/observe/attack-kill-{k % 10}?raw=1")
                    wait_welcome(s, rest)
                    rt.drop(s, rst=k % 2 == 1)
                    self.count.add("observers dropped without close")
            except (OSError, ValueError) as e:
                self.count.add("drop failed: " + type(e).__name__ + " " + str(e)[:40])

    def flood_watcher(self, seconds):
        """A reading observer on the flooded session: counts the frames that got through."""
        try:
            s, rest = rt.connect(self.host, self.port, "/v1/observe/attack-flood?raw=1")
        except (OSError, ValueError) as e:
            self.count.add("flood watcher failed: " + str(e)[:40])
            return
        reader = rt.Reader(rest)
        t0 = time.monotonic()
        while not self.stop.is_set() and time.monotonic() - t0 < seconds + 2:
            r, _, _ = select.select([s], [], [], 0.2)
            if not r:
                continue
            data = s.recv(65536)
            if not data:
                break
            reader.feed(data)
            for op, payload in reader.frames():
                if op == 0x1 and payload.startswith(b'{"type":"touches"'):
                    self.flood_observed += 1
        rt.close_cleanly(s)

    def finish(self):
        self.stop.set()
        for t in self.threads:
            t.join(15)
        flood = report_of(self.flood)
        flood["junk"] = report_of(self.junk)
        # The stalled observers: still connected (or closed by the server)? Then dropped.
        still = 0
        for s in self.stalled:
            try:
                s.setblocking(False)
                # A read of 1 byte tells open (data or EAGAIN) from closed by the server (EOF/RST).
                still += 1 if s.recv(1) else 0
            except BlockingIOError:
                still += 1
            except OSError:
                pass
            rt.drop(s, rst=True)
        self.count.add("stalled observers still connected at the end", still)
        flood["observedTouchesMessages"] = self.flood_observed
        return dict(sorted(self.count.c.items())), flood


def report_of(process):
    """What a flooding process printed last (its JSON report)."""
    try:
        if process is None:
            raise ValueError("no flood in this phase")
        out, _ = process.communicate(timeout=30)
        return json.loads(out.strip().splitlines()[-1]) if out.strip() else {"error": "no report"}
    except (subprocess.TimeoutExpired, ValueError) as e:
        if process is not None:
            process.kill()
        return {"error": str(e)}


def flood_main(url, seconds, junk=False):
    """A flooding source (own process): frames in batches, as fast as the socket takes them;
    with `junk`, text that is not JSON instead of frames."""
    host, port = rt.parse_url(url)
    s, rest = rt.connect(host, port, "/v1/source/attack-junk" if junk else "/v1/source/attack-flood")
    s.sendall(rt.text({"type": "hello", "device": {"name": "flood", "width": 400, "height": 800}}))
    wait_welcome(s, rest)
    s.setblocking(True)
    s.settimeout(2)
    reader = rt.Reader()
    errors = {}
    seq, sent = 0, 0
    t0 = time.monotonic()
    while time.monotonic() - t0 < seconds:
        batch = []
        for _ in range(200):
            seq += 1
            if junk:
                batch.append(rt.encode(0x1, b"not json %d" % seq, zero_mask=True))
                continue
            phase = "began" if seq % 120 == 1 else ("ended" if seq % 120 == 0 else "moved")
            batch.append(rt.text({"type": "frame", "seq": seq, "t": seq * 0.5,
                                  "touches": [{"id": 1, "phase": phase, "x": 100 + seq % 200, "y": 300}]},
                                 zero_mask=True))
        try:
            s.sendall(b"".join(batch))
        except socket.timeout:
            continue
        except OSError:
            break
        sent += len(batch)
        while select.select([s], [], [], 0)[0]:
            data = s.recv(1 << 16)
            if not data:
                break
            reader.feed(data)
            for op, payload in reader.frames():
                if op == 0x1:
                    try:
                        m = json.loads(payload)
                    except ValueError:
                        continue
                    key = m.get("code") or m.get("type")
                    errors[key] = errors.get(key, 0) + 1
                    if m.get("type") == "dropped":
                        # The server's own count of the errors it dropped for this source.
                        errors["droppedCount"] = errors.get("droppedCount", 0) + int(m.get("count", 0))
    elapsed = time.monotonic() - t0
    rt.close_cleanly(s)
    ru = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"cpuSeconds": round(ru.ru_utime + ru.ru_stime, 2), "framesSent": sent, "seconds": round(elapsed, 2), "framesPerSecond": round(sent / elapsed),
                      "answers": errors}), flush=True)


def run_load(ctx, a, server, tag):
    out = os.path.join(ctx.work, f"{tag}.json")
    cmd = [a.load, "--url", server.url, "-c", str(a.sources), "-r", str(a.rate), "--sessions", str(a.sources),
           "--observers", "1", "--raw", "--send-idle", "--warmup", "2s", "-d", f"{a.duration}s",
           "--session-prefix", "watched", "--json", out, "-q"]
    ctx.note(cmd)
    c0, w0 = server.cpu(), time.monotonic()
    me0 = resource.getrusage(resource.RUSAGE_SELF)
    subprocess.run(cmd, stdout=open(os.path.join(ctx.work, f"{tag}.out"), "w"), stderr=subprocess.STDOUT,
                   timeout=a.duration + 120)
    c1, w1 = server.cpu(), time.monotonic()
    me1 = resource.getrusage(resource.RUSAGE_SELF)
    with open(out) as f:
        rep = json.load(f)
    lat = rep["latency"]
    return {"p50": lat["p50"], "p99": lat["p99"], "p999": lat["p999"], "max": lat["max"],
            "framesSent": rep["framesSent"], "framesScheduled": rep["framesScheduled"],
            "messagesReceived": rep["messagesReceived"], "droppedMessages": rep["droppedMessages"],
            "serverErrors": rep["serverErrors"], "failures": rep["failures"],
            "connectFailures": rep["sourceConnections"]["failed"] + rep["observerConnections"]["failed"],
            "loadCpuSeconds": round(rep["cpu"]["userSeconds"] + rep["cpu"]["systemSeconds"], 2),
            "serverCpuSeconds": round(c1 - c0, 2), "wallSeconds": round(w1 - w0, 2),
            "serverCpuShare": round((c1 - c0) / (w1 - w0), 3),
            "attackerThreadsCpuSeconds": round(me1.ru_utime + me1.ru_stime - me0.ru_utime - me0.ru_stime, 2),
            "loadAverage": [round(x, 2) for x in os.getloadavg()]}


def snapshot(host, port):
    out = {}
    try:
        st, body = rt.http_get(host, port, "/healthz")
        out["healthz"] = json.loads(body) if st == 200 else {"status": st, "body": body[:200]}
        out["healthzStatus"] = st
    except (OSError, ValueError) as e:
        out["healthz"] = {"error": str(e)}
        out["healthzStatus"] = None
    try:
        st, body = rt.http_get(host, port, "/metrics")
        out["metrics"] = rt.metrics_summary(body) if st == 200 else {"status": st}
    except OSError as e:
        out["metrics"] = {"error": str(e)}
    return out


def delta(m0, m1):
    """What a phase added to /metrics' counters."""
    out = {}
    for k in ("dropped_messages_total", "frames_in_total", "messages_out_total"):
        if isinstance(m1.get(k), int) and isinstance(m0.get(k), int):
            out[k] = m1[k] - m0[k]
    for k in ("errors", "closes"):
        a, b = m0.get(k) or {}, m1.get(k) or {}
        d = {c: b[c] - a.get(c, 0) for c in b if b[c] - a.get(c, 0)}
        out[k] = d
    return out


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--flood":
        flood_main(sys.argv[2], float(sys.argv[4]) if len(sys.argv) > 4 else 20, junk="--junk" in sys.argv)
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--relay", required=True)
    ap.add_argument("--load", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--rounds", type=int, default=2, help="quiet+attack pairs")
    ap.add_argument("--duration", type=int, default=20, help="seconds of touch-load per phase")
    ap.add_argument("--sources", type=int, default=20)
    ap.add_argument("--rate", type=float, default=60)
    ap.add_argument("--stalled", type=int, default=40)
    ap.add_argument("--kill-rate", type=float, default=10)
    ap.add_argument("--drop-rate", type=float, default=10)
    ap.add_argument("--no-breakdown", dest="breakdown", action="store_false",
                    help="leave out the attack-without-flood and flood-only phases")
    ap.add_argument("--flood-nice", type=int, default=19,
                    help="nice value of the flooding process (0: none). On loopback the flooder shares the "
                         "server's cores; a remote attacker's CPU would not be ours")
    a = ap.parse_args()

    work = tempfile.mkdtemp(prefix="touch-faults-")
    ctx = rt.Lab(a.relay, work, a.root)
    started = datetime.datetime.now()
    print(f"== faults: {a.rounds} x (quiet, attack); watched: touch-load {a.sources} sources x {a.rate:g} Hz, "
          f"1 raw observer each, {a.duration} s per phase", flush=True)
    server = rt.Server(ctx, [], "faults")
    host, port = rt.parse_url(server.url)
    phases = []
    deadline = time.monotonic() + a.rounds * (a.duration + 60) + 60
    plan = [(kind, r) for r in range(a.rounds) for kind in ("quiet", "attack")]
    if a.breakdown:
        # Which part of the attack costs what: everything but the flood, then the flood alone.
        plan += [("attack-no-flood", 0), ("flood-only", 0)]
    parts_of = {"attack": ("kill", "stall", "drop", "flood"), "attack-no-flood": ("kill", "stall", "drop"),
                "flood-only": ("flood",)}
    deadline += 2 * (a.duration + 60)
    try:
        for kind, r in plan:
            if True:
                if time.monotonic() > deadline:
                    break
                tag = f"{kind}-{r + 1}"
                print(f"\n-- {tag}", flush=True)
                attack = None
                before = snapshot(host, port)
                if kind != "quiet":
                    attack = Attack(a, host, port, r, parts_of[kind])
                    attack.start(a.duration + 4)
                    time.sleep(1.0)
                    desc = {"kill": f"{a.kill_rate:g} killed sources/s", "stall": f"{a.stalled} stalled observers",
                            "drop": f"{a.drop_rate:g} TCP drops/s", "flood": f"1 flood source at nice {a.flood_nice}"}
                    ctx.commands.append(f"({tag} on attack-* sessions: "
                                        + ", ".join(desc[p] for p in parts_of[kind]) + ")")
                res = run_load(ctx, a, server, tag)
                res["phase"], res["round"] = kind, r + 1
                if attack:
                    res["attack"], res["flood"] = attack.finish()
                time.sleep(1.0)
                res["after"] = snapshot(host, port)
                res["metricsDelta"] = delta(before["metrics"], res["after"]["metrics"])
                phases.append(res)
                print(f"   p50 {res['p50']:.2f} ms  p99 {res['p99']:.2f} ms  max {res['max']:.2f} ms  "
                      f"dropped {res['droppedMessages']}  server CPU {res['serverCpuShare']:.0%}  "
                      f"frames {res['framesSent']}/{res['framesScheduled']}", flush=True)
                if attack:
                    print(f"   attack: {json.dumps(res['attack'])}", flush=True)
                    print(f"   flood: {json.dumps(res['flood'])}", flush=True)
                m = res["after"]["metrics"]
                print(f"   /healthz {res['after']['healthzStatus']} {json.dumps(res['after']['healthz'])}", flush=True)
                print(f"   /metrics dropped {m.get('dropped_messages_total')} errors {json.dumps(m.get('errors'))} "
                      f"closes {json.dumps(m.get('closes'))}", flush=True)
                print(f"   /metrics this phase: {json.dumps(res['metricsDelta'])}", flush=True)
    finally:
        t_term = time.monotonic()
        server.stop()
        exit_code = server.proc.returncode
        exit_s = round(time.monotonic() - t_term, 2)
    with open(os.path.join(work, "faults.server.err")) as f:
        stderr = f.read().splitlines()

    def med(kind, key):
        xs = [p[key] for p in phases if p["phase"] == kind]
        return statistics.median(xs) if xs else None

    summary = {}
    for key in ("p50", "p99", "max", "serverCpuShare"):
        q, at = med("quiet", key), med("attack", key)
        summary[key] = {"quiet": q, "attack": at, "ratio": round(at / q, 2) if q and at is not None else None}
        for kind in ("attack-no-flood", "flood-only"):
            v = med(kind, key)
            if v is not None:
                summary[key][kind] = v
                summary[key][kind + "Ratio"] = round(v / q, 2) if q else None
    watched_ok = all(p["droppedMessages"] == 0 and p["connectFailures"] == 0 and not p["serverErrors"]
                     and p["framesSent"] >= 0.99 * p["framesScheduled"] for p in phases)
    ratio = summary["p99"]["ratio"]
    result = {"date": started.isoformat(timespec="seconds"), "host": f"{os.uname().nodename} ({os.cpu_count()} CPUs)",
              "settings": vars(a), "phases": phases, "summary": summary, "goalRatio": GOAL_RATIO,
              "p99WithinGoal": ratio is not None and ratio <= GOAL_RATIO, "watchedLostNothing": watched_ok,
              "sigterm": {"exitCode": exit_code, "seconds": exit_s}, "serverStderrLines": len(stderr),
              "serverStderrTail": stderr[-20:], "commands": ctx.commands}

    print(f"\n== faults result (median over {a.rounds} phases of each kind)")
    extra = [k for k in ("attack-no-flood", "flood-only") if k in summary["p99"]]
    print("| watched latency | quiet | under attack | attack / quiet |" + "".join(f" {k} (ratio) |" for k in extra))
    print("| --- | ---: | ---: | ---: |" + " ---: |" * len(extra))
    for key, label in (("p50", "p50 ms"), ("p99", "p99 ms"), ("max", "max ms"), ("serverCpuShare", "server CPU")):
        s = summary[key]
        f = (lambda v: f"{v:.0%}") if key == "serverCpuShare" else (lambda v: f"{v:.2f}")
        print(f"| {label} | {f(s['quiet'])} | {f(s['attack'])} | {s['ratio']:.2f}x |"
              + "".join(f" {f(s[k])} ({s[k + 'Ratio']:.2f}x) |" for k in extra))
    print("\nper phase:")
    for p in phases:
        print(f"  {p['phase']:15} {p['round']}: p50 {p['p50']:.2f}  p99 {p['p99']:.2f}  max {p['max']:.2f} ms, "
              f"server CPU {p['serverCpuShare']:.0%}, touch-load CPU {p['loadCpuSeconds']} s, "
              f"attack threads CPU {p['attackerThreadsCpuSeconds']} s, flood process CPU {p.get('flood', {}).get('cpuSeconds', 0)} s, "
              f"load average {p['loadAverage'][0]}, dropped {p['droppedMessages']}, "
              f"errors {p['serverErrors']}, failures {p['failures']}")
    print(f"\nwatched sessions lost nothing (no drops, errors or connect failures; >= 99 % of frames sent): {watched_ok}")
    print(f"p99 under attack within {GOAL_RATIO:g}x of quiet: {result['p99WithinGoal']} ({ratio}x)")
    print(f"SIGTERM: exit {exit_code} after {exit_s} s; server stderr {len(stderr)} lines")
    for line in stderr[-5:]:
        print(f"  {line}")
    os.makedirs(a.results, exist_ok=True)
    name = f"faults-{started.strftime('%Y%m%d-%H%M%S')}.json"
    for n in (name, "latest.json"):
        with open(os.path.join(a.results, n), "w") as f:
            json.dump(result, f, indent=2)
    print(f"wrote {ctx.rel(os.path.join(a.results, name))} (and latest.json)")
    sys.exit(0 if watched_ok and exit_code == 0 else 1)


if __name__ == "__main__":
    main()
