#!/usr/bin/env python3
"""TouchRelay benchmark scenarios; started by tools/bench/run (which builds the binaries and
raises the open-file limit first). Standard library only.

Scenarios: baseline (kernel cost per loopback message, always first), ingest, fanout,
connections, engine, overhead; each runs touch-load against a fresh server and keeps its
figures in `Bench.results`. The tables and targets are report.py's. See tools/bench/README.md.
"""

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tools/relaytools.py
from relaytools import Lab, Server, pinned_to, proc_cpu  # noqa: E402
import report  # noqa: E402
from report import (  # noqa: E402
    STALL_PERIOD_US, STALL_THRESHOLD_US, TARGET_INGEST_HELD_P99, fmt, ingest_rows, median_run, stalls_text)

# The engine runs right after the baseline: run after the connections scenario, it read
# slower while the kernel was still tearing down 10,000 sockets (PERFORMANCE.md).
SCENARIOS = ["baseline", "engine", "ingest", "fanout", "connections", "overhead", "batched", "floor"]

INGEST_P99_LIMIT = 10.0  # the "held" criterion of the ingest search
# touch-load's --warmup in the loads: frames due before it are not timed.
WARMUP_S = 2


class Bench(Lab):
    """One run of the suite: the arguments, the work directory, every command line run (in
    order, for the report), and the results of each scenario."""

    def __init__(self, a):
        super().__init__(a.relay, tempfile.mkdtemp(prefix="touch-bench-"), a.root)
        self.a = a
        self.quick = a.quick
        # Pairs per row of the paired scenarios (overhead's paired half, batched, floor): more
        # narrow a median when a target is within the ±2 % that runs of 3 pairs move by.
        self.pairs = a.pairs or (1 if a.quick else 3)
        self.pages = []  # (tag, path) of each touch-load run's --html report, in order
        self.results = {}
        self.started = time.time()
        # "Pinned" placement: the server on CPU 0, touch-load with one event loop on CPU 1, so
        # neither preempts the other (three busy threads on two cores cost the server's one
        # thread whole scheduler slices, which showed in the p99 at half load: PERFORMANCE.md).
        self.can_pin = (os.cpu_count() or 1) >= 2 and shutil.which("taskset") is not None

    # MARK: helpers

    def log(self, msg=""):
        print(msg, flush=True)

    def touch_load(self, url, args, tag, cpu=None):
        """Runs touch-load in the background; returns (proc, json path)."""
        out = os.path.join(self.work, f"{tag}.json")
        # Each run's page goes next to latest.md, which links it.
        page = os.path.join(self.a.results, "pages", f"{tag}.html")
        os.makedirs(os.path.dirname(page), exist_ok=True)
        self.pages.append((tag, page))
        cmd = [*pinned_to(cpu), self.a.load, "--url", url, *args, "--json", out, "--html", page, "-q"]
        self.note(cmd)
        proc = subprocess.Popen(cmd, stdout=open(os.path.join(self.work, f"{tag}.out"), "w"),
                                stderr=subprocess.STDOUT)
        return proc, out

    def settle(self, idle=0.9, longest=20.0):
        """Waits (up to `longest` s) until the machine is at least `idle` idle over half a
        second: a scenario must not start while the last one's processes and sockets wind down."""
        def sample():
            with open("/proc/stat") as f:
                v = [int(x) for x in f.readline().split()[1:]]
            return v[3] + v[4], sum(v)  # idle + iowait, total
        t0 = time.monotonic()
        while time.monotonic() - t0 < longest:
            i0, a0 = sample()
            time.sleep(0.5)
            i1, a1 = sample()
            if a1 > a0 and (i1 - i0) / (a1 - a0) >= idle:
                return
        self.log(f"  (machine still busy after {longest:.0f} s; going on)")

    # MARK: baseline

    def baseline(self, when="first"):
        """syscost, first (and again last: this VM's kernel costs drift by 2-3x within minutes,
        so the limits use the median over both measurements' repeats)."""
        self.log(f"\n## baseline ({when}): the kernel's cost per small loopback TCP message (syscost.c)")
        cmd = [self.a.syscost, "--size", "100"]
        cmd += ["--recvs", "6000", "--sends", "60000"] if self.quick else ["--recvs", "15000", "--sends", "150000"]
        self.note(cmd)
        r = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
        r["when"] = when
        b = self.results.setdefault("baseline", {"runs": []})
        b["runs"].append(r)
        send = statistics.median(x for run in b["runs"] for x in run["send_us_all"])
        recv = statistics.median(x for run in b["runs"] for x in run["recv_wake_us_all"])
        batched = statistics.median(x for run in b["runs"] for x in run["send_batched_us_all"])
        b.update({"send_us": round(send, 3), "recv_wake_us": round(recv, 3), "send_batched_us": round(batched, 3),
                  "repeats": sum(run["repeats"] for run in b["runs"]),
                  # The issue's model: fan-out = 1 / send, ingest = 1 / (recv + send), with its 4.7 µs
                  # send being a send to a peer that is already awake (our back-to-back figure) and
                  # its 9 µs recv including the wake-up. The send that wakes an idle peer is reported.
                  "fanout_limit_per_cpu_s": round(1e6 / batched), "ingest_limit_per_cpu_s": round(1e6 / (batched + recv))})
        self.log(f"  this measurement: send {r['send_us']:.2f} µs (waking an idle peer; {r['send_batched_us']:.2f} µs "
                 f"back to back), recv+wake {r['recv_wake_us']:.2f} µs")
        self.log(f"  pooled: send {batched:.2f} µs (back to back), recv+wake {recv:.2f} µs -> fan-out limit "
                 f"{b['fanout_limit_per_cpu_s']:,.0f} deliveries/CPU-s, ingest limit "
                 f"{b['ingest_limit_per_cpu_s']:,.0f} frames/CPU-s")

    def limits(self):
        b = self.results.get("baseline")
        if not b:
            return None, None
        return b["fanout_limit_per_cpu_s"], b["ingest_limit_per_cpu_s"]

    # MARK: one load run against a fresh server

    def load_run(self, tag, server_flags, load_args, expected, duration, window, pinned=False, with_probe=False):
        """Starts a server, runs touch-load, measures the server's CPU over a steady window
        (once all `expected` connections are open, plus a settle second) and its RSS.
        `pinned`: server on CPU 0, touch-load on CPU 1 with one event loop thread; `with_probe`: with
        `StallProbe` running (pinned loads only)."""
        pinned = pinned and self.can_pin
        server = Server(self, server_flags, tag, cpu=0 if pinned else None)
        probe = None
        try:
            base_fds = server.fds()
            rss0 = server.rss_kb()
            load_args = [*load_args, "--threads", "1"] if pinned else load_args
            probe = StallProbe(self, tag) if with_probe and pinned and self.a.stallprobe else None
            proc, out = self.touch_load(server.url, [*load_args, "-d", f"{duration}s"], tag,
                                        cpu=1 if pinned else None)
            t_launch = time.monotonic()
            connected_at = None
            while time.monotonic() - t_launch < 60 and proc.poll() is None:
                if server.fds() >= base_fds + expected:
                    connected_at = time.monotonic()
                    break
                time.sleep(0.05)
            window_cpu = window_s = load_window_cpu = None
            if connected_at is not None:
                time.sleep(1.0)
                c0, l0, w0 = server.cpu(), proc_cpu(proc.pid), time.monotonic()
                # The window must end before touch-load's sources stop.
                left = duration - (time.monotonic() - t_launch) - 0.7
                time.sleep(max(1.0, min(window, left)))
                c1, l1, w1 = server.cpu(), proc_cpu(proc.pid), time.monotonic()
                window_cpu, window_s, load_window_cpu = c1 - c0, w1 - w0, l1 - l0
            rss1 = server.rss_kb()
            proc.wait(timeout=duration + 120)
            total_cpu = server.cpu()
            # Stalls while frames were timed: from the end of touch-load's warm-up (counted from
            # its sources' start, about when the last connection opened, less a margin) to its exit.
            stalls = probe.stop(since=connected_at + WARMUP_S - 0.1 if connected_at else t_launch) if probe else None
            probe = None
        finally:
            if probe:
                probe.stop(since=0)
            server.stop()
        with open(out) as f:
            rep = json.load(f)
        lat = rep["latency"]
        # The rate while every source sends (the CPU window below lies inside it); the average
        # over the whole run is lower by the sources' start spread (touch-load's report says why).
        fps = rep["steadyFramesPerSecond"]
        mps = rep["messagesPerSecond"]
        r = {
            "tag": tag,
            "placement": "pinned" if pinned else "shared",
            "framesPerSecond": round(fps, 1),
            "averageFramesPerSecond": round(rep["framesPerSecond"], 1),
            "messagesPerSecond": round(mps, 1),
            "framesSent": rep["framesSent"],
            "framesScheduled": rep["framesScheduled"],
            "messagesReceived": rep["messagesReceived"],
            "messagesPerObserverMin": rep["messagesPerObserver"]["min"],
            "p50": lat["p50"], "p99": lat["p99"], "p999": lat["p999"], "max": lat["max"],
            # touch-load's own lateness in sending, part of the latency above.
            "sendLagP99": rep["sendLag"]["p99"],
            # touch-load's own warnings (it was behind its schedule: --max-send-lag).
            "loadWarnings": rep.get("warnings", []),
            "droppedMessages": rep["droppedMessages"],
            "errors": sum(rep["serverErrors"].values()) + sum(rep["failures"].values()),
            "connectFailures": rep["sourceConnections"]["failed"] + rep["observerConnections"]["failed"],
            "loadCpuSeconds": round(rep["cpu"]["userSeconds"] + rep["cpu"]["systemSeconds"], 2),
            "loadElapsed": round(rep["elapsed"], 2),
            "serverCpuSecondsTotal": round(total_cpu, 2),
            "windowSeconds": round(window_s, 2) if window_s else None,
            "serverCpuSecondsWindow": round(window_cpu, 2) if window_cpu is not None else None,
            "serverRssKbBefore": rss0, "serverRssKbLoaded": rss1,
            "cpuStalls": stalls,
        }
        # touch-load's share of a CPU over the same window: near 100 % it, not the server, is
        # what limits the run (its send lag and the p99 climb).
        r["loadCpuShare"] = round(load_window_cpu / window_s, 3) if load_window_cpu is not None else None
        if window_cpu:
            r["serverCpuShare"] = round(window_cpu / window_s, 3)
            r["framesPerServerCpuSecond"] = round(fps * window_s / window_cpu)
            r["deliveriesPerServerCpuSecond"] = round(mps * window_s / window_cpu)
        else:
            r["serverCpuShare"] = r["framesPerServerCpuSecond"] = r["deliveriesPerServerCpuSecond"] = None
        return r

    # MARK: ingest

    def ingest_args(self, n):
        return [*ingest_load(n), "--send-idle"]

    def ingest_run(self, n, tag, duration, window, pinned=True):
        """One ingest load of `n` sources, with whether it held."""
        r = self.load_run(tag, [], self.ingest_args(n), 2 * n, duration, window, pinned=pinned, with_probe=True)
        r["sources"] = n
        r["held"] = self.held(r, INGEST_P99_LIMIT)
        return r

    @staticmethod
    def held(r, p99_limit):
        return (r["p99"] < p99_limit and r["droppedMessages"] == 0 and r["errors"] == 0
                and r["connectFailures"] == 0 and r["framesSent"] >= 0.99 * r["framesScheduled"]
                and r["messagesPerObserverMin"] > 0)

    def ingest(self):
        self.log("\n## ingest: N sources x 60 Hz, one raw observer each, gestures on"
                 + (" (server on CPU 0, touch-load on CPU 1)" if self.can_pin else ""))
        steps = [100, 300, 500] if self.quick else [100, 200, 300, 400, 450, 500, 550, 600, 800, 1000]
        duration, window = (7, 4) if self.quick else (11, 7)
        _, limit = self.limits()
        runs = []
        for n in steps:
            # A step that fails is run once more before the search stops: on this VM one run
            # in a few catches a slow spell (the 5 ms claim below needs a median of three).
            # Both runs are in the table.
            for attempt in range(1 if self.quick else 2):
                r = self.ingest_run(n, f"ingest-{n}" + ("-retry" if attempt else ""), duration, window)
                r["fractionOfLimit"] = round(r["framesPerServerCpuSecond"] / limit, 3) if limit and r["framesPerServerCpuSecond"] else None
                runs.append(r)
                self.log(f"    {n} sources: {r['framesPerSecond']:,.0f} frames/s, p99 {r['p99']:.2f} ms "
                         f"(touch-load's send lag p99 {r['sendLagP99']:.2f} ms), "
                         f"dropped {r['droppedMessages']}, server CPU {fmt(r['serverCpuShare'], '.0%')}, "
                         f"{fmt(r['framesPerServerCpuSecond'], ',.0f')} frames/server-CPU-s "
                         f"({fmt(r['fractionOfLimit'], '.2f')} of limit), touch-load CPU {fmt(r['loadCpuShare'], '.0%')}, "
                         f"CPU stalls {stalls_text(r.get('cpuStalls'))}"
                         f" -> {'held' if r['held'] else 'NOT held'}"
                         + (" (touch-load was behind its schedule)" if r.get("loadWarnings") else ""))
                if r["held"]:
                    break
            if not r["held"]:
                break
        held = [r for r in runs if r["held"]]
        best = max(held, key=lambda r: r["framesPerSecond"]) if held else None
        # One run's p99 is luck either way on this VM (a burst of late frames in it or not), so the 5 ms
        # claim rests on the median of three runs: the highest held steps (p99 under 10 ms in
        # their first run) are each run twice more, highest first, and the first whose median
        # p99 is under 5 ms counts: trying only steps whose first run was already under 5 ms
        # would check a lucky first run and leave an unlucky one final.
        # (A step is run again only when its first run failed, so `held` has one run per step.)
        best5 = None
        candidates = sorted(held, key=lambda r: -r["framesPerSecond"])
        for cand in candidates[:1 if self.quick else 3]:
            n = cand["sources"]
            repeats = [cand]
            for k in range(0 if self.quick else 2):
                repeats.append(self.ingest_run(n, f"ingest-{n}-again{k}", duration, window))
            med = statistics.median(r["p99"] for r in repeats)
            self.log(f"    {n} sources again: p99 " + ", ".join(f"{r['p99']:.2f}" for r in repeats)
                     + f" ms -> median {med:.2f} ms; CPU stalls "
                     + ", ".join(stalls_text(r.get("cpuStalls")) for r in repeats))
            cand["repeatP99s"] = [r["p99"] for r in repeats]
            cand["repeatStalls"] = [r.get("cpuStalls") for r in repeats]
            cand["medianP99"] = med
            if med < TARGET_INGEST_HELD_P99 and all(r["held"] for r in repeats):
                best5 = cand
                break
        # The same load with both processes free to run anywhere (touch-load's default threads),
        # to show what the placement is worth.
        shared = None
        if self.can_pin and (best5 or best):
            n = (best5 or best)["sources"]
            shared = self.ingest_run(n, f"ingest-{n}-shared", duration, window, pinned=False)
            shared["fractionOfLimit"] = None
            self.log(f"    {n} sources, unpinned: {shared['framesPerSecond']:,.0f} frames/s, p99 {shared['p99']:.2f} ms, "
                     f"server CPU {fmt(shared['serverCpuShare'], '.0%')}, touch-load CPU {fmt(shared['loadCpuShare'], '.0%')}")
        self.results["ingest"] = {"steps": runs, "best": best, "bestP99Under5": best5, "shared": shared,
                                  "limit": limit}

    # MARK: fan-out

    def fanout(self):
        self.log("\n## fan-out: 1 source x 120 Hz, 1,000 raw observers")
        fan_limit, _ = self.limits()
        duration, window = (7, 4) if self.quick else (10, 6)
        repeats = 1 if self.quick else 2
        by_threads = {}
        for threads in [1, 2]:
            runs = []
            for k in range(repeats):
                args = [*fanout_load(1000), "--send-idle", "--threads", str(threads)]
                r = self.load_run(f"fanout-t{threads}-{k}", [], args, 1001, duration, window)
                r["threads"] = threads
                r["fractionOfLimit"] = round(r["deliveriesPerServerCpuSecond"] / fan_limit, 3) if fan_limit and r["deliveriesPerServerCpuSecond"] else None
                runs.append(r)
                self.log(f"    --threads {threads}: {r['messagesPerSecond']:,.0f} deliveries/s, p99 {r['p99']:.2f} ms, "
                         f"dropped {r['droppedMessages']}, server CPU {fmt(r['serverCpuShare'], '.0%')}, "
                         f"{fmt(r['deliveriesPerServerCpuSecond'], ',.0f')} deliveries/server-CPU-s "
                         f"({fmt(r['fractionOfLimit'], '.2f')} of limit), touch-load CPU {fmt(r['loadCpuShare'], '.0%')}")
            by_threads[threads] = median_run(runs, "deliveriesPerServerCpuSecond")
        # The fair choice: the generator setting under which the server is not starved
        # (no drops, lower p99); among those, the better server throughput.
        def score(r):
            ok = r["droppedMessages"] == 0 and r["errors"] == 0 and r["p99"] < INGEST_P99_LIMIT
            return (ok, r["deliveriesPerServerCpuSecond"] or 0)
        chosen = max(by_threads.values(), key=score)
        self.results["fanout"] = {"byThreads": by_threads, "chosen": chosen, "limit": fan_limit,
                                  "repeats": repeats}
        self.log(f"    chosen: --threads {chosen['threads']} (median of {repeats})")

    # MARK: connections

    def connections(self):
        n = 2000 if self.quick else 10000
        sessions = 100
        self.log(f"\n## connections: {n:,} idle observers over {sessions} sessions")
        rows = []
        # touch-load's client (no permessage-deflate), server without compression.
        rows.append(self.idle_touch_load(n, sessions))
        # A plain-socket client that offers permessage-deflate, server as default (offers it).
        rows.append(self.idle_python(n, sessions, deflate=True))
        if not self.quick:
            # The same plain-socket client without deflate, for a like-for-like comparison.
            rows.append(self.idle_python(n, sessions, deflate=False))
        self.results["connections"] = {"count": n, "rows": rows}

    def idle_touch_load(self, n, sessions):
        server = Server(self, ["--no-compression"], "conn-touch-load")
        try:
            time.sleep(0.3)
            base_fds, rss0 = server.fds(), server.rss_kb()
            proc, out = self.touch_load(
                server.url, ["-c", "0", "--observers", str(n // sessions), "--sessions", str(sessions),
                             "--session-prefix", "idle", "-d", "120s"], "connections")
            ok = self.wait_fds(server, base_fds + n, proc)
            time.sleep(1.0)
            rss1 = server.rss_kb()
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=60)
        finally:
            server.stop()
        with open(out) as f:
            rep = json.load(f)
        got = rep["observerConnections"]["connected"]
        return self.conn_row("touch-load (SwiftNIO), no compression", "--no-compression", got, n,
                             rss0, rss1, ok, rep["observerConnections"]["failures"], None)

    def idle_python(self, n, sessions, deflate):
        flags = [] if deflate else ["--no-compression"]
        server = Server(self, flags, f"conn-py-{deflate}")
        try:
            time.sleep(0.3)
            base_fds, rss0 = server.fds(), server.rss_kb()
            cmd = [sys.executable, os.path.join(self.a.bench, "idle_ws.py"), "--url", server.url,
                   "--count", str(n), "--sessions", str(sessions)] + (["--deflate"] if deflate else [])
            self.note(cmd)
            proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            line = proc.stdout.readline()
            info = json.loads(line) if line.strip() else {"connected": 0, "failures": {"no report": 1}}
            ok = self.wait_fds(server, base_fds + info["connected"], proc, timeout=10)
            time.sleep(1.0)
            rss1 = server.rss_kb()
            proc.stdin.close()
            proc.wait(timeout=60)
        finally:
            server.stop()
        label = "plain socket, permessage-deflate" if deflate else "plain socket, no compression"
        return self.conn_row(label, " ".join(flags) or "(default: deflate offered, --deflate-mem-level 4)", info["connected"], n,
                             rss0, rss1, ok, info.get("failures", {}),
                             info.get("deflate_accepted") if deflate else None)

    def wait_fds(self, server, want, proc, timeout=90):
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            if server.fds() >= want:
                return True
            if proc.poll() is not None:
                return False
            time.sleep(0.1)
        return False

    def conn_row(self, client, flags, got, n, rss0, rss1, ok, failures, deflate_accepted):
        per = (rss1 - rss0) * 1024 / got if got else None
        r = {"client": client, "serverFlags": flags, "connections": got, "wanted": n,
             "allOpen": ok and got == n, "serverRssKbBefore": rss0, "serverRssKbAfter": rss1,
             "bytesPerConnection": round(per) if per is not None else None, "failures": failures,
             "deflateAccepted": deflate_accepted}
        self.log(f"    {client}: {got:,}/{n:,} open, RSS {rss0:,} -> {rss1:,} kB, "
                 f"{fmt(per, ',.0f')} bytes/connection"
                 + (f", deflate accepted on {deflate_accepted:,}" if deflate_accepted is not None else "")
                 + (f", failures {failures}" if failures else ""))
        return r

    # MARK: engine

    def engine(self):
        self.log("\n## engine: ns per touch point through SourceEngine.process; decoder ns per frame")
        cmd = [self.a.engine_timed, "--seconds", "0.7" if self.quick else "2"]
        self.note(cmd)
        timed = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
        self.log(f"    timed loop: {timed['engineNsPerTouchPoint']} ns/touch point "
                 f"({timed.get('engineNsPerTouchPointInterleaved')} with {timed.get('interleavedEngines')} engines taking turns) "
                 f"({timed['frames']} frames, {timed['touchPoints']} touch points); MessageDecoder "
                 f"{timed['messageDecoderNsPerFrame']} ns/frame, JSONDecoder {timed['jsonDecoderNsPerFrame']} "
                 f"ns/frame (x{timed['jsonDecoderOverMessageDecoder']}); a shape judged against "
                 f"{timed.get('shapeTemplates')} templates in {timed.get('shapeJudgementUs')} µs "
                 f"({timed.get('shapeComparisonUs')} µs per comparison)")
        ordo = self.ordo_one(timed)
        self.results["engine"] = {"timed": timed, "ordoOne": ordo}

    def ordo_one(self, timed):
        """ordo-one/benchmark's run of the same work; None (with the reason) if the plugin fails."""
        outdir = os.path.join(self.work, "ordo")
        os.makedirs(outdir, exist_ok=True)
        env = None
        cmd = ["swift", "package", "--package-path", self.a.engine_pkg, "--scratch-path", self.a.engine_scratch,
               "--allow-writing-to-directory", outdir, "benchmark", "--no-progress",
               "--format", "histogramPercentiles", "--path", outdir, "--metric", "wallClock"]
        self.note(cmd, env)
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            why = (p.stderr or p.stdout).strip().splitlines()[-3:]
            self.log(f"    ordo-one/benchmark failed (exit {p.returncode}): {' | '.join(why)}")
            return {"error": " | ".join(why)}
        medians, spreads = {}, {}
        for name in os.listdir(outdir):
            if not name.endswith(".tsv"):
                continue
            p10, p50, p90 = read_percentile_tsv(os.path.join(outdir, name), 10.0, 50.0, 90.0)
            if p50 is not None:
                medians[name] = p50
                spreads[name] = (p10, p90)
        out = {"files": medians}
        for name, ns in medians.items():
            if "engine:" in name:
                out["engineNsPerTouchPoint"] = round(ns / timed["touchPoints"], 1)
                # The spread too: on this VM the iterations fall into a fast and a slow mode
                # (PERFORMANCE.md, "Reading these numbers"), and the p50 lands in either.
                for v, key in zip(spreads[name], ("engineNsPerTouchPointP10", "engineNsPerTouchPointP90")):
                    if v is not None:
                        out[key] = round(v / timed["touchPoints"], 1)
            elif "MessageDecoder" in name:
                out["messageDecoderNsPerFrame"] = round(ns / timed["decoderFrames"], 1)
            elif "JSONDecoder" in name:
                out["jsonDecoderNsPerFrame"] = round(ns / timed["decoderFrames"], 1)
        if "messageDecoderNsPerFrame" in out and "jsonDecoderNsPerFrame" in out:
            out["jsonDecoderOverMessageDecoder"] = round(out["jsonDecoderNsPerFrame"] / out["messageDecoderNsPerFrame"], 2)
        self.log(f"    ordo-one/benchmark (wall clock p50): {fmt(out.get('engineNsPerTouchPoint'), '')} ns/touch point "
                 f"(p10 {fmt(out.get('engineNsPerTouchPointP10'), '')}, p90 {fmt(out.get('engineNsPerTouchPointP90'), '')}); "
                 f"MessageDecoder {fmt(out.get('messageDecoderNsPerFrame'), '')} ns/frame, JSONDecoder "
                 f"{fmt(out.get('jsonDecoderNsPerFrame'), '')} ns/frame (x{fmt(out.get('jsonDecoderOverMessageDecoder'), '')})")
        return out

    # MARK: overhead

    def overhead(self):
        n = 200 if self.quick else 400
        # Three rounds: the ratios are judged on the paired runs below; these give each setting's
        # own figures under the ingest load (five rounds and the pairs made the suite too long).
        repeats = 1 if self.quick else 3
        duration, window = (7, 4) if self.quick else (10, 6)
        self.log(f"\n## overhead: {n} sources x 60 Hz (one raw observer each), gestures on vs --no-gestures"
                 " (and metrics on vs --no-metrics)")
        on, off, nometrics = [], [], []
        for k in range(repeats):
            for flags, runs, label in [([], on, "on"), (["--no-gestures"], off, "off"),
                                       (["--no-metrics"], nometrics, "no-metrics")]:
                r = self.load_run(f"overhead-{label}-{k}", flags, self.ingest_args(n), 2 * n, duration, window,
                                  pinned=True)
                runs.append(r)
                self.log(f"    gestures {label}: {r['framesPerSecond']:,.0f} frames/s, p99 {r['p99']:.2f} ms, "
                         f"server CPU {fmt(r['serverCpuShare'], '.0%')}, "
                         f"{fmt(r['framesPerServerCpuSecond'], ',.0f')} frames/server-CPU-s")
        f_on = statistics.median([r["framesPerServerCpuSecond"] for r in on if r["framesPerServerCpuSecond"]] or [0])
        f_off = statistics.median([r["framesPerServerCpuSecond"] for r in off if r["framesPerServerCpuSecond"]] or [0])
        f_nm = statistics.median([r["framesPerServerCpuSecond"] for r in nometrics if r["framesPerServerCpuSecond"]] or [0])
        paired = self.overhead_paired()
        self.results["overhead"] = {
            "sources": n, "repeats": repeats, "on": on, "off": off, "noMetrics": nometrics, "paired": paired,
            "framesPerServerCpuSecondOn": f_on, "framesPerServerCpuSecondOff": f_off,
            "framesPerServerCpuSecondNoMetrics": f_nm,
            "ratio": round(f_on / f_off, 3) if f_off else None,
            "metricsRatio": round(f_on / f_nm, 3) if f_nm else None,
        }

    def overhead_paired(self, sources=200):
        """The same comparisons paired (`paired_rates`): both servers on CPU 0 at once, so the
        VM's drift, as large as these costs between sequential runs, cancels out. Each
        pair's on / off; their medians decide both checks (see `report`)."""
        pairs = self.pairs
        out = {"sources": sources, "pairs": pairs}
        for key, off_flags in (("gestures", ["--no-gestures"]), ("metrics", ["--no-metrics"])):
            ratios = []
            for k in range(pairs):
                self.settle()
                f_off, f_on = paired_rates(self, self.a.load, k, (self.a.relay, off_flags), (self.a.relay, []),
                                           sources, ["--send-idle"], f"overhead-paired-{key}")
                ratios.append(round(f_on / f_off, 3))
                self.log(f"    paired {key} on / off, pair {k + 1}: {f_on:,.0f} / {f_off:,.0f} frames per "
                         f"server CPU-second = {ratios[-1]:.3f}")
            out[key] = {"ratios": ratios, "median": round(statistics.median(ratios), 3),
                        "sd": round(statistics.pstdev(ratios), 3)}
        return out

    # MARK: batched

    def batched(self, sources=50, rate=240, per_message=4):
        """Ingest with `per_message` samples per `frames` message beside one sample per
        message, at the same sample rate (`rate` Hz, a pen's) with one raw observer per source,
        paired (`paired_runs`): both servers on CPU 0 at once, so the VM's drift cancels. Per
        side: frames per server CPU-second and the server's user and kernel µs per frame; the
        target is the ratio of the first (issue 24: at least 2.5)."""
        pairs = self.pairs
        self.log(f"\n## batched: {sources} sources x {rate} Hz, one raw observer each, {per_message} samples "
                 f"per frames message beside 1 per message (paired, {pairs} pairs)")
        rows = []
        for k in range(pairs):
            self.settle()
            one, many = paired_runs(self, self.a.load, k, (self.a.relay, []), (self.a.relay, []), sources,
                                    ["--send-idle"], "batched", rate=rate,
                                    extra_b=["--send-idle", "--samples-per-message", str(per_message)])
            row = {}
            for key, r in (("one", one), ("many", many)):
                frames = r["rate"] * r["window"]
                rep = r["report"]
                row[key] = {"framesPerSecond": round(r["rate"], 1),
                            "framesPerServerCpuSecond": round(r["perServerCpuSecond"]),
                            "userUsPerFrame": round(r["userSeconds"] / frames * 1e6, 2),
                            "systemUsPerFrame": round(r["systemSeconds"] / frames * 1e6, 2),
                            "p99": rep["latency"]["p99"], "droppedMessages": rep["droppedMessages"],
                            "errors": sum(rep["serverErrors"].values()) + sum(rep["failures"].values())}
            row["ratio"] = round(row["many"]["framesPerServerCpuSecond"] / row["one"]["framesPerServerCpuSecond"], 3)
            rows.append(row)
            self.log(f"    pair {k + 1}: 1/message {row['one']['framesPerServerCpuSecond']:,} frames per server CPU-s "
                     f"(user {row['one']['userUsPerFrame']} + kernel {row['one']['systemUsPerFrame']} µs/frame), "
                     f"{per_message}/message {row['many']['framesPerServerCpuSecond']:,} "
                     f"(user {row['many']['userUsPerFrame']} + kernel {row['many']['systemUsPerFrame']} µs/frame): "
                     f"x{row['ratio']:.2f}")

        def med(key, field):
            return round(statistics.median(r[key][field] for r in rows), 2)

        self.results["batched"] = {
            "sources": sources, "rate": rate, "samplesPerMessage": per_message, "pairs": rows,
            "ratioMedian": round(statistics.median(r["ratio"] for r in rows), 3),
            "median": {key: {f: med(key, f) for f in ("framesPerServerCpuSecond", "userUsPerFrame", "systemUsPerFrame")}
                       for key in ("one", "many")}}

    # MARK: floor

    def floor(self, sources=200, observers=250):
        """touch-relay against `floor-relay.c` (the raw-mirror part of protocol v1 on the same
        libwebsockets, written as lean as C servers on it are), paired as `paired_runs` pairs:
        ingest (`sources` x 60 Hz, one raw observer each) and fan-out (1 source x 120 Hz to
        `observers` raw observers: two servers with 500 each overloaded the one core they
        share, p99 in seconds, which is not the load to judge a server by), each against
        touch-relay `--no-gestures` and with gestures on. Per pair: deliveries per server CPU-second of both, touch-relay's fraction of the
        floor's, p99. Then each server's RSS idle (median of 3 starts) and, where `perf` can
        read syscall tracepoints, its syscalls per delivery (alone, pinned; 4 s)."""
        pairs = self.pairs
        self.log(f"\n## floor: touch-relay against the libwebsockets floor (floor-relay.c), paired, {pairs} pairs each")
        floor = (self.a.floor, [])
        settings = {"no-gestures": (self.a.relay, ["--no-gestures"]), "gestures": (self.a.relay, [])}
        workloads = {"ingest": {"sources": sources, "fanout": None}, "fanout": {"sources": 1, "fanout": observers}}
        # Syscalls are counted with one server alone, at the issue's 500 observers.
        alone = {"ingest": workloads["ingest"], "fanout": {"sources": 1, "fanout": 500}}
        out = {"sources": sources, "observers": observers, "rows": {}, "rss": {}, "syscalls": {}}
        for wl, w in workloads.items():
            for name, relay in settings.items():
                rows, stalled = [], []
                k = 0
                while len(rows) < pairs and k < pairs + 2:
                    self.settle()
                    f, t = paired_runs(self, self.a.load, k, floor, relay, w["sources"], ["--send-idle"],
                                       f"floor-{wl}-{name}", fanout=w["fanout"])
                    k += 1
                    # Deliveries of `touches` only: with gestures on, fan-out observers also get
                    # gesture messages, which the floor does not make.
                    share = [touches_share(r["report"]) if w["fanout"] else 1.0 for r in (f, t)]
                    fr, tr = (sh * r["perServerCpuSecond"] for sh, r in zip(share, (f, t)))
                    row = {"floor": round(fr), "relay": round(tr), "fraction": round(tr / fr, 3),
                           "floorP99": f["report"]["latency"]["p99"], "relayP99": t["report"]["latency"]["p99"],
                           "floorRssKb": f["rssKb"], "relayRssKb": t["rssKb"],
                           "dropped": f["report"]["droppedMessages"] + t["report"]["droppedMessages"]}
                    # Where each one's CPU goes: user and kernel µs per delivery of `touches`.
                    for side, r, sh in (("floor", f, share[0]), ("relay", t, share[1])):
                        n = sh * r["rate"] * r["window"]
                        row[f"{side}UserUs"] = round(r["userSeconds"] / n * 1e6, 2)
                        row[f"{side}SystemUs"] = round(r["systemSeconds"] / n * 1e6, 2)
                    # Every delivery is at least one sendto, over a microsecond of kernel time on
                    # any machine (syscost.c: 3-5 µs here). Less means the VM did not run the
                    # servers for much of the CPU window while touch-load's rate counts the whole
                    # run (seen once: 1.1 million "deliveries per CPU-second", p99 6 s): such a
                    # pair is kept in the JSON, left out of the medians, and run again.
                    if min(row["floorSystemUs"], row["relaySystemUs"]) < 1.0:
                        stalled.append(row)
                        self.log(f"    {wl}, touch-relay {name}, pair {k}: left out, the servers hardly ran in the "
                                 f"window (kernel µs per delivery {row['floorSystemUs']} / {row['relaySystemUs']})")
                        continue
                    rows.append(row)
                    self.log(f"    {wl}, touch-relay {name}, pair {k}: floor {row['floor']:,} and touch-relay "
                             f"{row['relay']:,} deliveries per server CPU-s: {row['fraction']:.3f} "
                             f"(p99 {row['floorP99']:.2f} / {row['relayP99']:.2f} ms, RSS "
                             f"{row['floorRssKb'] / 1024:.1f} / {row['relayRssKb'] / 1024:.1f} MB; µs per delivery user + "
                             f"kernel {row['floorUserUs']} + {row['floorSystemUs']} / {row['relayUserUs']} + {row['relaySystemUs']})")
                if not rows:
                    continue
                out["rows"][f"{wl}/{name}"] = {
                    "pairs": rows, "stalledPairs": stalled, "fractionMedian": round(statistics.median(r["fraction"] for r in rows), 3),
                    "floorMedian": round(statistics.median(r["floor"] for r in rows)),
                    "relayMedian": round(statistics.median(r["relay"] for r in rows)),
                    "floorP99Median": round(statistics.median(r["floorP99"] for r in rows), 2),
                    "relayP99Median": round(statistics.median(r["relayP99"] for r in rows), 2),
                    # RSS under the load, at the end of the pair's window.
                    "floorRssKbMedian": statistics.median(r["floorRssKb"] for r in rows),
                    "relayRssKbMedian": statistics.median(r["relayRssKb"] for r in rows),
                    **{f"{k}Median": round(statistics.median(r[k] for r in rows), 2)
                       for k in ("floorUserUs", "floorSystemUs", "relayUserUs", "relaySystemUs")}}
        for name, (binary, flags) in (("floor", floor), ("touch-relay", (self.a.relay, []))):
            samples = []
            for k in range(3):
                server = Server(self, flags, f"floor-rss-{name}-{k}", binary=binary)
                time.sleep(1)
                samples.append(server.rss_kb())
                server.stop()
            out["rss"][name] = statistics.median(samples)
            self.log(f"    idle RSS {name}: {out['rss'][name] / 1024:.1f} MB (median of {samples} kB)")
        if shutil.which("perf"):
            for wl, w in alone.items():
                for name, (binary, flags) in (("floor", floor), ("touch-relay --no-gestures", settings["no-gestures"])):
                    self.settle()
                    counts = self.syscalls_per_delivery(binary, flags, w, f"floor-sys-{wl}-{name.split()[0]}")
                    out["syscalls"][f"{wl}/{name}"] = counts
                    self.log(f"    syscalls per delivery, {wl}, {name}: "
                             + ", ".join(f"{k} {v:.2f}" for k, v in counts.items()))
        self.results["floor"] = out

    # "all" is raw_syscalls:sys_enter: every syscall, so one that the list does not name shows too.
    SYSCALLS = ("sendto", "recvfrom", "epoll_wait", "epoll_ctl", "poll", "all")

    def syscalls_per_delivery(self, binary, flags, w, tag, seconds=4):
        """`perf stat` on syscall tracepoints for `seconds` of one server (pinned to CPU 0, its
        touch-load on CPU 1): each syscall's count per delivery (`strace -c` would slow the
        server enough to change what it does)."""
        server = Server(self, flags, tag, cpu=0 if self.can_pin else None, binary=binary)
        try:
            args = ingest_load(w["sources"]) if w["fanout"] is None else fanout_load(w["fanout"])
            proc, report = self.touch_load(server.url, [*args, "--send-idle", "-d", f"{seconds + 6}s", "--threads", "1"],
                                           tag, cpu=1 if self.can_pin else None)
            time.sleep(4)
            events = ["raw_syscalls:sys_enter" if c == "all" else f"syscalls:sys_enter_{c}" for c in self.SYSCALLS]
            counts = perf_syscalls(server.pid, events, seconds, note=self.note)
            proc.wait(timeout=60)
            with open(report) as f:
                rep = json.load(f)
        finally:
            server.stop()
        rate = rep["steadyFramesPerSecond"] if w["fanout"] is None else rep["messagesPerSecond"]
        return {name: n / (rate * seconds) for name, n in counts.items()}

    def refraction(self):
        """Fractions of the limits, against the pooled baseline (first and last)."""
        fan_limit, ing_limit = self.limits()
        ing = self.results.get("ingest")
        if ing:
            ing["limit"] = ing_limit
            for r in ingest_rows(ing):
                if r["framesPerServerCpuSecond"]:
                    r["fractionOfLimit"] = round(r["framesPerServerCpuSecond"] / ing_limit, 3)
        fo = self.results.get("fanout")
        if fo:
            fo["limit"] = fan_limit
            for r in fo["byThreads"].values():
                if r["deliveriesPerServerCpuSecond"]:
                    r["fractionOfLimit"] = round(r["deliveriesPerServerCpuSecond"] / fan_limit, 3)
        for name in ("overhead",):
            ov = self.results.get(name)
            if ov:
                ov["ingestLimit"] = ing_limit

    # MARK: report

class StallProbe:
    """`stallprobe.c` on CPUs 0 and 1 for the length of one load: how often and how long each
    CPU did not run at all (a real-time thread woke late), which no change to the server or
    touch-load could help."""

    def __init__(self, bench, tag):
        cmd = [bench.a.stallprobe, "--cpus", "0,1", "--period-us", str(STALL_PERIOD_US),
               "--threshold-us", str(STALL_THRESHOLD_US)]
        bench.note(cmd)
        self.err = open(os.path.join(bench.work, f"{tag}.stallprobe.err"), "w")
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=self.err, text=True)

    def stop(self, since):
        """Ends the probe; the episodes that started after `since` (time.monotonic()), per CPU."""
        self.proc.send_signal(signal.SIGTERM)
        try:
            out, _ = self.proc.communicate(timeout=10)
            r = json.loads(out)
        except (subprocess.TimeoutExpired, ValueError):
            self.proc.kill()
            return None
        summary = {"periodUs": r["periodUs"], "thresholdUs": r["thresholdUs"], "realtime": r["realtime"],
                   "probeCpuSeconds": r["cpuSeconds"]}
        for c in r["cpus"]:
            eps = [e for e in c["episodes"] if e[0] / 1000 >= since]
            summary[f"cpu{c['cpu']}"] = {"count": len(eps), "totalMs": round(sum(e[1] for e in eps), 1),
                                         "maxMs": round(max((e[1] for e in eps), default=0), 1)}
        return summary


def touches_share(report):
    """The share of `touches` among the messages a run's observers got."""
    total = sum(report["messagesByType"].values())
    return report["messagesByType"].get("touches", 0) / total if total else 1.0


def fanout_load(n):
    """touch-load's arguments for the fan-out load: 1 source x 120 Hz to `n` raw observers
    (the scenarios add their own flags)."""
    return ["-c", "1", "-r", "120", "--observers", str(n), "--raw", "--warmup", f"{WARMUP_S}s"]


def perf_syscalls(pid, events, seconds, note=None):
    """`perf stat` on the syscall tracepoints `events` (e.g. `syscalls:sys_enter_*`) of process
    `pid` for `seconds`: each one's count by syscall name, `all` for `raw_syscalls:sys_enter`
    (every syscall). `strace -c` would slow the process enough to change what it does."""
    cmd = ["perf", "stat", "-x", ",", "-e", ",".join(events), "-p", str(pid), "--", "sleep", str(seconds)]
    if note:
        note(cmd)
    stat = subprocess.run(cmd, capture_output=True, text=True).stderr
    counts = {}
    for line in stat.splitlines():
        parts = line.split(",")
        if len(parts) > 2 and parts[0].strip().isdigit():
            name = "all" if parts[2] == "raw_syscalls:sys_enter" else parts[2].split("sys_enter_", 1)[-1]
            counts[name] = int(parts[0])
    return counts


def ingest_load(n, rate=60):
    """touch-load's arguments for the ingest load: `n` sources x `rate` Hz, each in its own
    session with one raw observer (the ingest, overhead and paired runs add their own flags)."""
    return ["-c", str(n), "-r", str(rate), "--sessions", str(n), "--observers", "1", "--raw",
            "--warmup", f"{WARMUP_S}s"]


def paired_rates(lab, load, k, a, b, sources, extra, tag, window=5.5, fanout=None):
    """One pair of a paired A/B: servers A and B, each `(binary, flags)`, run at the same
    time, both pinned to CPU 0, each under its own touch-load (the same load, both on CPU 1),
    so a slow spell of the VM hits both alike. Returns frames per server CPU-second of A and B
    over the same window (with `fanout`, 1 source x 120 Hz to that many raw observers:
    deliveries per server CPU-second). The starting order alternates with `k`. `lab` is what
    `Server` reads of the suite (`work`, `note`, `a.relay`)."""
    runs = paired_runs(lab, load, k, a, b, sources, extra, tag, window=window, fanout=fanout)
    return [r["perServerCpuSecond"] for r in runs]


def paired_runs(lab, load, k, a, b, sources, extra, tag, window=5.5, fanout=None, rate=60, extra_b=None):
    """`paired_rates`' pair with each side's figures: its rate (`steadyFramesPerSecond`, or
    with `fanout` `messagesPerSecond`) per server CPU-second, the server's user and system
    CPU seconds over the window apart, and touch-load's report. `extra_b`, if given, replaces
    `extra` (touch-load's flags) for B: the same server under two loads."""
    load_args = ingest_load(sources, rate) if fanout is None else [*fanout_load(fanout), "--send-idle"]
    rate_key = "steadyFramesPerSecond" if fanout is None else "messagesPerSecond"
    order = [(0, a), (1, b)] if k % 2 == 0 else [(1, b), (0, a)]
    servers, loads, outs = {}, [], []
    try:
        for i, (binary, flags) in order:
            servers[i] = Server(lab, flags, f"{tag}-{k}-{i}", cpu=0, binary=binary)
        for i in (0, 1):
            outs.append(os.path.join(lab.work, f"{tag}-{k}-{i}.json"))
            flags = extra_b if i == 1 and extra_b is not None else extra
            cmd = [*pinned_to(1), load, "--url", servers[i].url, *load_args, "-d", "11s",
                   "--threads", "1", "--json", outs[i], "-q", *flags]
            lab.note(cmd)
            loads.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        time.sleep(5)
        c0 = [servers[i].cpu_split() for i in (0, 1)]
        time.sleep(window)
        c1 = [servers[i].cpu_split() for i in (0, 1)]
        rss = [servers[i].rss_kb() for i in (0, 1)]
        for p in loads:
            p.wait(timeout=60)
    finally:
        for p in loads:
            if p.poll() is None:
                p.kill()
        for server in servers.values():
            server.stop()
    runs = []
    for i in (0, 1):
        with open(outs[i]) as f:
            rep = json.load(f)
        user, system = c1[i][0] - c0[i][0], c1[i][1] - c0[i][1]
        runs.append({"perServerCpuSecond": rep[rate_key] * window / (user + system), "rate": rep[rate_key],
                     "userSeconds": user, "systemSeconds": system, "window": window, "rssKb": rss[i], "report": rep})
    return runs


def read_percentile_tsv(path, *pcts):
    """ordo-one's histogramPercentiles file: a header line naming the unit, e.g.
    `Percentile<TAB>Time (wall clock) (μs) *`, then `percentile<TAB>value` rows. The value
    at each of `pcts`, in ns (None where the file has none), from one read of the file."""
    try:
        with open(path) as f:
            rows = [line.strip().split("\t") for line in f if line.strip()]
    except OSError:
        return tuple(None for _ in pcts)
    header = "\t".join(rows[0]) if rows else ""
    scale = 1.0
    for unit, k in (("(ns)", 1.0), ("(\u03bcs)", 1e3), ("(\u00b5s)", 1e3), ("(us)", 1e3), ("(ms)", 1e6), ("(s)", 1e9)):
        if unit in header:
            scale = k
            break
    points = []
    for row in rows:
        try:
            points.append((float(row[0]), float(row[1]) * scale))
        except (ValueError, IndexError):
            continue
    # The value at the highest listed percentile not above each one asked for.
    return tuple(next((v for p, v in reversed(points) if p <= pct), None) for pct in pcts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--bench", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--relay", required=True)
    ap.add_argument("--load", required=True)
    ap.add_argument("--syscost", required=True)
    ap.add_argument("--floor", help="tools/bench/floor/floor-relay.c, built (the floor scenario)")
    ap.add_argument("--stallprobe", help="tools/bench/stallprobe.c, built; left out, no stall column")
    ap.add_argument("--engine-timed", required=True)
    ap.add_argument("--engine-pkg", required=True)
    ap.add_argument("--engine-scratch", required=True)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--pairs", type=int, help="pairs per row of the paired scenarios (default 3, 1 with --quick)")
    ap.add_argument("--only", choices=SCENARIOS)
    a = ap.parse_args()
    if a.pairs is not None and a.pairs < 1:
        ap.error("--pairs must be at least 1")
    b = Bench(a)
    wanted = SCENARIOS if not a.only else [a.only]
    needs_limits = {"ingest", "fanout", "overhead"}
    with_limits = "baseline" in wanted or bool(needs_limits & set(wanted))
    if with_limits:
        b.baseline("first")
    for name in wanted:
        if name != "baseline":
            b.settle()
            getattr(b, name)()
    if with_limits:
        b.baseline("last")
        b.refraction()
    report.write(b)


if __name__ == "__main__":
    main()
