#!/usr/bin/env python3
"""TouchRelay soak: a steady touch-load plus churn for N minutes against one release server;
samples its RSS and open descriptors every 10 s and compares the end with the level after the
first minute (goal: within 10 %). Started by tools/soak/run (which builds and raises the
open-file limit). Standard library only.

Churn: --slots client threads, each one after another: connect as a source (hello, maybe a
`resume` of a source it dropped a moment ago, then a pan or tap now and then at 30 Hz) or as an
observer (raw or not, on a churn session or on one of touch-load's; one in ten never reads), stay
a random 0.5-15 s, then leave at random: a clean close (1000), a TCP FIN without a close frame,
or a reset (SO_LINGER 0); then pause up to 2 s.
"""

import argparse
import datetime
import json
import os
import random
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tools/relaytools.py

import relaytools as rt  # noqa: E402

GOAL = 0.10


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.c = {}
        self.open = 0

    def add(self, key, n=1):
        with self.lock:
            self.c[key] = self.c.get(key, 0) + n

    def opened(self, d):
        with self.lock:
            self.open += d


class Churn:
    def __init__(self, host, port, slots, seed, load_sessions, stats):
        self.host, self.port = host, port
        self.slots = slots
        self.seed = seed
        self.load_sessions = load_sessions
        self.stats = stats
        self.stop = threading.Event()
        self.dropped_ids = []  # (source id, session, time) of sources that went away without 1000
        self.ids_lock = threading.Lock()
        self.threads = []

    def start(self):
        for i in range(self.slots):
            t = threading.Thread(target=self.slot, args=(i,), daemon=True)
            t.start()
            self.threads.append(t)

    def join(self, timeout=30):
        self.stop.set()
        end = time.monotonic() + timeout
        for t in self.threads:
            t.join(max(0.1, end - time.monotonic()))
        return sum(t.is_alive() for t in self.threads)

    def slot(self, i):
        rng = random.Random(self.seed * 1000 + i)
        time.sleep(rng.uniform(0, 2))
        while not self.stop.is_set():
            try:
                if rng.random() < 0.6:
                    self.source(rng)
                else:
                    self.observer(rng)
            except (OSError, ValueError) as e:
                self.stats.add("failure: " + type(e).__name__ + ": " + str(e)[:50])
            self.stop.wait(rng.uniform(0, 2))

    def leave(self, rng, sock, role, source_id=None, session=None):
        r = rng.random()
        if r < 0.5:
            rt.close_cleanly(sock)
            self.stats.add(f"{role} left: close 1000")
        else:
            rt.drop(sock, rst=r >= 0.75)
            self.stats.add(f"{role} left: " + ("TCP reset" if r >= 0.75 else "TCP FIN, no close frame"))
            if source_id:
                with self.ids_lock:
                    self.dropped_ids.append((source_id, session, time.monotonic()))
                    del self.dropped_ids[:-50]
        self.stats.opened(-1)

    def read_available(self, sock, reader, counts=True):
        """Non-blocking drain; returns False once the server closed."""
        while True:
            r, _, _ = select.select([sock], [], [], 0)
            if not r:
                return True
            data = sock.recv(65536)
            if not data:
                return False
            reader.feed(data)
            for op, payload in reader.frames():
                if op == 0x8:
                    code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
                    self.stats.add(f"closed by server: {code}")
                    return False
                if op == 0x9:  # ping -> pong
                    sock.sendall(rt.encode(0xA, payload))
                elif op == 0x1 and counts:
                    self.stats.add("messages received")
                    if payload.startswith(b'{"type":"error"') or b'"type":"error"' in payload[:40]:
                        try:
                            self.stats.add("error " + json.loads(payload).get("code", "?"))
                        except ValueError:
                            pass

    def source(self, rng):
        session = f"churn-{rng.randrange(8)}"
        resume = None
        if rng.random() < 0.3:
            with self.ids_lock:
                fresh = [d for d in self.dropped_ids if time.monotonic() - d[2] < 8]
                if fresh:
                    d = rng.choice(fresh)
                    self.dropped_ids.remove(d)
                    resume, session = d[0], d[1]
        sock, rest = rt.connect(self.host, self.port, f"/v1/source/{session}")
        self.stats.add("source connects")
        self.stats.opened(1)
        try:
            self.stream(rng, sock, rest, session, resume)
        except BaseException:
            self.stats.opened(-1)
            rt.drop(sock)
            raise

    def stream(self, rng, sock, rest, session, resume):
        reader = rt.Reader(rest)
        hello = {"type": "hello", "device": {"name": "soak", "width": 412, "height": 915}}
        if resume:
            hello["resume"] = resume
        sock.sendall(rt.text(hello))
        sock.settimeout(5)
        welcome = None
        while welcome is None:
            data = sock.recv(65536)
            if not data:
                raise ConnectionError("closed before welcome")
            reader.feed(data)
            for op, payload in reader.frames():
                if op == 0x1 and b'"welcome"' in payload:
                    welcome = json.loads(payload)
        sid = welcome.get("source")
        if resume:
            self.stats.add("resumed" if welcome.get("resumed") else "resume refused (window over)")
        lifetime = rng.uniform(0.5, 15)
        end = time.monotonic() + lifetime
        seq, t0 = 0, rng.uniform(0, 1e6)
        gesture = []  # pending frames of the current gesture
        next_due = time.monotonic()
        alive = True
        while time.monotonic() < end and not self.stop.is_set() and alive:
            if not gesture and rng.random() < 0.05:
                x, y = rng.uniform(20, 390), rng.uniform(20, 890)
                n = rng.randint(1, 40)
                dx, dy = rng.uniform(-8, 8), rng.uniform(-8, 8)
                gesture = [("began", x, y)] + [("moved", x + dx * k, y + dy * k) for k in range(1, n)] + \
                          [("ended", x + dx * n, y + dy * n)]
            seq += 1
            touches = []
            if gesture:
                phase, x, y = gesture.pop(0)
                touches = [{"id": 1, "phase": phase, "x": round(x, 1), "y": round(y, 1)}]
            if touches or rng.random() < 0.2:
                sock.sendall(rt.text({"type": "frame", "seq": seq, "t": round(t0 + seq * 33.3, 1),
                                      "touches": touches}))
                self.stats.add("frames sent")
            alive = self.read_available(sock, reader)
            next_due += 1 / 30
            time.sleep(max(0, next_due - time.monotonic()))
        if not alive:
            self.stats.opened(-1)
            sock.close()
            return
        self.leave(rng, sock, "source", sid, session)

    def observer(self, rng):
        if rng.random() < 0.5 and self.load_sessions:
            session = f"load-{rng.randrange(self.load_sessions)}"
        else:
            session = f"churn-{rng.randrange(8)}"
        query = "?raw=1" if rng.random() < 0.5 else ""
        stalled = rng.random() < 0.1
        sock, rest = rt.connect(self.host, self.port, f"/v1/observe/{session}{query}",
                                rcvbuf=4096 if stalled else None)
        self.stats.add("observer connects" + (" (never reading)" if stalled else ""))
        self.stats.opened(1)
        try:
            self.watch(rng, sock, rest, stalled)
        except BaseException:
            self.stats.opened(-1)
            rt.drop(sock)
            raise

    def watch(self, rng, sock, rest, stalled):
        reader = rt.Reader(rest)
        end = time.monotonic() + rng.uniform(0.5, 15)
        alive = True
        while time.monotonic() < end and not self.stop.is_set() and alive:
            if stalled:
                self.stop.wait(min(0.5, max(0, end - time.monotonic())))
                continue
            alive = self.read_available(sock, reader)
            time.sleep(0.02)
        if not alive:
            self.stats.opened(-1)
            sock.close()
            return
        self.leave(rng, sock, "observer")


def median(xs):
    return statistics.median(xs) if xs else None


def pct(a, b):
    return None if a is None or b is None or not a else round(100.0 * (b - a) / a, 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--relay", required=True)
    ap.add_argument("--load", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--minutes", type=float, default=30)
    ap.add_argument("--interval", type=float, default=10)
    ap.add_argument("--slots", type=int, default=24, help="churn clients at once")
    ap.add_argument("--sources", type=int, default=20, help="touch-load's steady sources (60 Hz)")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()

    total = a.minutes * 60
    first = min(60.0, total / 2)
    work = tempfile.mkdtemp(prefix="touch-soak-")
    ctx = rt.Lab(a.relay, work, a.root)
    started = datetime.datetime.now()
    print(f"== soak: {a.minutes:g} min, touch-load {a.sources} sources x 60 Hz + {a.slots} churn clients; "
          f"samples every {a.interval:g} s", flush=True)
    server = rt.Server(ctx, [], "soak")
    host, port = rt.parse_url(server.url)
    stats = Stats()
    samples = []
    t_start = time.monotonic()

    def sample(phase):
        try:
            st, body = rt.http_get(host, port, "/healthz", timeout=5)
            h = json.loads(body) if st == 200 else {"status": st}
        except (OSError, ValueError) as e:
            h = {"error": str(e)}
        s = {"t": round(time.monotonic() - t_start, 1), "phase": phase, "rssKb": server.rss_kb(),
             "fds": server.fds(), "threads": rt.proc_threads(server.pid), "cpuSeconds": round(server.cpu(), 2),
             "churnOpen": stats.open, "healthz": {k: h.get(k) for k in ("status", "connections", "sessions",
                                                                         "sources", "observers", "error") if k in h}}
        if isinstance(s["healthz"].get("connections"), int):
            # Descriptors that no open connection accounts for: constant unless something leaks.
            s["fdsNotConnections"] = s["fds"] - s["healthz"]["connections"]
        samples.append(s)
        print(f"  t={s['t']:7.1f}s {phase:8} RSS {s['rssKb']:7,} kB  fds {s['fds']:4}  threads {s['threads']}  "
              f"CPU {s['cpuSeconds']:8.2f} s  churn open {s['churnOpen']:3}  healthz {s['healthz']}", flush=True)
        return s

    time.sleep(0.5)
    before = sample("before")
    load_sessions = 5
    load_json = os.path.join(work, "load.json")
    load_cmd = [a.load, "--url", server.url, "-c", str(a.sources), "-r", "60", "--sessions", str(load_sessions),
                "--observers", "2", "--raw", "--send-idle", "-d", f"{int(total + 20)}s", "--json", load_json, "-q"]
    ctx.note(load_cmd)
    load = subprocess.Popen(load_cmd, stdout=open(os.path.join(work, "load.out"), "w"), stderr=subprocess.STDOUT)
    churn = Churn(host, port, a.slots, a.seed, load_sessions, stats)
    churn.start()
    print(f"  churn: {a.slots} client threads (tools/soak/soak.py), sessions churn-0..7 and load-0..{load_sessions - 1}",
          flush=True)
    ctx.commands.append(f"(churn: {a.slots} Python client threads in tools/soak/soak.py)")

    interrupted = False

    def on_int(*_):
        nonlocal interrupted
        interrupted = True

    signal.signal(signal.SIGINT, on_int)
    signal.signal(signal.SIGTERM, on_int)
    k = 1
    while not interrupted:
        due = t_start + 0.5 + k * a.interval
        if due - t_start > total + 0.6:
            break
        while time.monotonic() < due and not interrupted:
            time.sleep(min(0.5, max(0, due - time.monotonic())))
        if interrupted:
            break
        sample("load")
        if load.poll() is not None:
            print("  touch-load ended early", flush=True)
            break
        k += 1

    # Stop the churn, let touch-load finish, then look at the server with nobody connected.
    stuck = churn.join()
    try:
        load.wait(timeout=60 + 30)
    except subprocess.TimeoutExpired:
        load.send_signal(signal.SIGINT)
        load.wait(timeout=30)
    time.sleep(3)
    after = sample("drained")
    try:
        st, body = rt.http_get(host, port, "/healthz", timeout=5)
        healthz_end = {"status": st, "body": json.loads(body) if st == 200 else body}
    except (OSError, ValueError) as e:
        healthz_end = {"status": None, "error": str(e)}
    try:
        st, body = rt.http_get(host, port, "/metrics", timeout=5)
        metrics_end = rt.metrics_summary(body) if st == 200 else {"status": st}
    except OSError as e:
        metrics_end = {"error": str(e)}
    t_term = time.monotonic()
    server.stop()
    exit_code = server.proc.returncode
    exit_seconds = round(time.monotonic() - t_term, 2)
    with open(os.path.join(work, "soak.server.err")) as f:
        server_stderr = f.read().splitlines()

    load_rep = None
    try:
        with open(load_json) as f:
            rep = json.load(f)
        load_rep = {"framesSent": rep["framesSent"], "framesScheduled": rep["framesScheduled"],
                    "messagesReceived": rep["messagesReceived"], "droppedMessages": rep["droppedMessages"],
                    "latencyMs": {k: rep["latency"][k] for k in ("p50", "p99", "p999", "max")},
                    "serverErrors": rep["serverErrors"], "failures": rep["failures"],
                    "sourceConnections": rep["sourceConnections"], "observerConnections": rep["observerConnections"]}
    except (OSError, ValueError, KeyError) as e:
        load_rep = {"error": str(e)}

    loaded = [s for s in samples if s["phase"] == "load"]
    at_first = [s for s in loaded if abs(s["t"] - first) <= a.interval * 1.5]
    at_end = loaded[-3:]
    first_one = min(loaded, key=lambda s: abs(s["t"] - first)) if loaded else None
    end_one = loaded[-1] if loaded else None
    rows = []
    verdicts = []
    for key, label in (("rssKb", "RSS (VmRSS), kB"), ("fds", "open descriptors"),
                       ("fdsNotConnections", "descriptors minus /healthz connections"), ("threads", "threads")):
        if any(key not in s for s in loaded + [before, after]):
            continue
        f1 = median([s[key] for s in at_first])
        e1 = median([s[key] for s in at_end])
        row = {"what": label, "before": before[key], "firstMinute": f1, "end": e1, "changePct": pct(f1, e1),
               "firstMinuteSample": first_one[key] if first_one else None, "endSample": end_one[key] if end_one else None,
               "changePctSamples": pct(first_one[key], end_one[key]) if first_one else None,
               "max": max((s[key] for s in loaded), default=None), "drained": after[key]}
        if key in ("rssKb", "fds"):
            row["withinGoal"] = row["changePct"] is not None and abs(row["changePct"]) <= GOAL * 100
            verdicts.append(row["withinGoal"])
        rows.append(row)
    ok_health = healthz_end.get("status") == 200
    ok_exit = exit_code == 0
    result = {
        "date": started.isoformat(timespec="seconds"), "minutes": a.minutes, "intervalSeconds": a.interval,
        "slots": a.slots, "steadySources": a.sources, "host": f"{os.uname().nodename} ({os.cpu_count()} CPUs)",
        "levels": "firstMinute = median of the samples within 1.5 intervals of t=60 s; end = median of the last 3 "
                  "samples under load; drained = after every client left",
        "rows": rows, "samples": samples, "churn": dict(sorted(stats.c.items())), "churnThreadsStuck": stuck,
        "touchLoad": load_rep, "healthzEnd": healthz_end, "metricsEnd": metrics_end,
        "sigterm": {"exitCode": exit_code, "seconds": exit_seconds},
        "serverStderrLines": len(server_stderr), "serverStderrTail": server_stderr[-20:],
        "serverCpuSeconds": samples[-1]["cpuSeconds"], "commands": ctx.commands,
        "passed": all(verdicts) and ok_health and ok_exit, "interrupted": interrupted,
    }

    print(f"\n== soak result ({a.minutes:g} min; levels: median of samples around t={first:.0f} s vs last 3 under load)")
    print("| measure | before load | after 1st minute | end | change | single samples (1 min -> end) | max | drained |")
    print("| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: |")
    for r in rows:
        ch = "n/a" if r["changePct"] is None else f"{r['changePct']:+.1f} %"
        single = "n/a" if r["changePctSamples"] is None else \
            f"{r['firstMinuteSample']:,} -> {r['endSample']:,} ({r['changePctSamples']:+.1f} %)"
        print(f"| {r['what']} | {r['before']:,} | {r['firstMinute']:,.0f} | {r['end']:,.0f} | {ch} | {single} | "
              f"{r['max']:,} | {r['drained']:,} |")
    print(f"\nchurn: {json.dumps(result['churn'])}")
    print(f"touch-load: {json.dumps(load_rep)}")
    print(f"/healthz at the end: {json.dumps(healthz_end)}")
    print(f"/metrics at the end: {json.dumps(metrics_end)}")
    print(f"SIGTERM: exit code {exit_code} after {exit_seconds} s; server stderr: {len(server_stderr)} lines")
    for line in server_stderr[-5:]:
        print(f"  {line}")
    print(f"server CPU total {result['serverCpuSeconds']} s")
    print("RESULT: " + ("PASS" if result["passed"] else "FAIL") +
          f" (RSS and fds within {GOAL:.0%}: {all(verdicts)}, /healthz 200: {ok_health}, exit 0: {ok_exit})")
    os.makedirs(a.results, exist_ok=True)
    name = f"soak-{started.strftime('%Y%m%d-%H%M%S')}.json"
    for n in (name, "latest.json"):
        with open(os.path.join(a.results, n), "w") as f:
            json.dump(result, f, indent=2)
    print(f"wrote {ctx.rel(os.path.join(a.results, name))} (and latest.json)")
    sys.exit(0 if result["passed"] else 1)


if __name__ == "__main__":
    main()
