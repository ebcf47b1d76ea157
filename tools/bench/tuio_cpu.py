#!/usr/bin/env python3
"""TUIO frames per server CPU-second beside WebSocket frames: the same generated touches
(touch-load's mixed scenario, same seeds) from N senders at R Hz, once as TUIO 1.1 over UDP
(`touch-load --tuio`, the server's --tuio-udp) and once over WebSockets, each against a fresh
server, alternated REPS times. The server's CPU is utime+stime from /proc/PID/stat over the
run; frames are the server's own count (touchrelay_frames_in_total in /metrics; TUIO's idle
heartbeats, a sender's empty alive set, are datagrams but no frames, and their cost counts).
Prints each run and the medians.

usage: tools/bench/tuio_cpu.py [touch-relay] [touch-load] [senders] [rate] [seconds] [reps]
"""
import os, re, statistics, subprocess, sys, time, urllib.request

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from relaytools import free_udp_port, relay_port, start_relay, stop_relay  # noqa: E402

relay = sys.argv[1] if len(sys.argv) > 1 else ".build/release/touch-relay"
load = sys.argv[2] if len(sys.argv) > 2 else ".build/release/touch-load"
senders, rate, seconds, reps = (int(a) for a in (sys.argv[3:7] + ["100", "60", "5", "3"][len(sys.argv[3:7]):]))
TICKS = os.sysconf("SC_CLK_TCK")


def cpu(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def metric(port, name):
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics").read().decode()
    m = re.search(rf"^{re.escape(name)} (\S+)$", text, re.M)
    return float(m.group(1)) if m else 0.0


def one(kind):
    udp = free_udp_port()
    proc = start_relay(relay, "--tuio-udp", f"127.0.0.1:{udp}", "--tuio-max-sources", str(senders))
    try:
        port = relay_port(proc)
        common = ["-c", str(senders), "-r", str(rate), "-d", f"{seconds}s", "--seed", "7", "-q"]
        if kind == "tuio":
            cmd = [load, "--tuio", f"127.0.0.1:{udp}", *common]
        else:
            cmd = [load, "--url", f"ws://127.0.0.1:{port}", "--observers", "0", "--warmup", "0s", *common]
        before, frames_before = cpu(proc.pid), metric(port, "touchrelay_frames_in_total")
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        time.sleep(0.3)
        used = cpu(proc.pid) - before
        frames = metric(port, "touchrelay_frames_in_total") - frames_before
        datagrams = metric(port, "touchrelay_tuio_datagrams_total")
        print(f"{kind:5} frames {frames:8.0f}  datagrams {datagrams:8.0f}  server CPU {used:6.2f} s  "
              f"frames/CPU-s {frames / max(used, 1e-9):9.0f}", flush=True)
        return frames / max(used, 1e-9)
    finally:
        stop_relay(proc)


def main():
    print(f"$ {' '.join(sys.argv)}  ({senders} senders x {rate} Hz, {seconds} s, {reps} pairs)")
    results = {"tuio": [], "ws": []}
    ratios = []
    for _ in range(reps):
        t, w = one("tuio"), one("ws")
        results["tuio"].append(t)
        results["ws"].append(w)
        ratios.append(t / w)
    print(f"median frames per server CPU-second: TUIO {statistics.median(results['tuio']):.0f}, "
          f"WebSocket {statistics.median(results['ws']):.0f}; paired ratio TUIO/WS median "
          f"{statistics.median(ratios):.2f} (each {', '.join(f'{r:.2f}' for r in ratios)})")


main()
