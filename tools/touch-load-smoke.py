#!/usr/bin/env python3
"""touch-load end to end, as a user runs it: a short load against a real touch-relay binary,
then the JSON report and the .hgrm file are checked. Prints 'N passed, M failed'.

usage: tools/touch-load-smoke.py [path/to/touch-relay] [path/to/touch-load]
"""
import json, os, re, subprocess, sys, tempfile

from relaytools import check, finish, relay_port, start_relay, stop_relay

relay = sys.argv[1] if len(sys.argv) > 1 else ".build/debug/touch-relay"
load = sys.argv[2] if len(sys.argv) > 2 else ".build/debug/touch-load"


def run_load(port, args, tmp, tag):
    report, hgrm = os.path.join(tmp, f"{tag}.json"), os.path.join(tmp, f"{tag}.hgrm")
    cmd = [load, "--url", f"ws://127.0.0.1:{port}", *args, "--json", report, "--hgrm", hgrm, "-q"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    check(f"{tag}: exit status 0", p.returncode == 0, p.stderr[-500:])
    with open(report) as f:
        r = json.load(f)
    with open(hgrm) as f:
        h = f.read()
    return r, h, p.stdout


def check_report(tag, r, h, sources, observers, every_slot):
    check(f"{tag}: every connection made",
          r["sourceConnections"]["connected"] == sources and r["observerConnections"]["connected"] == observers,
          (r["sourceConnections"], r["observerConnections"]))
    # With --send-idle every slot of the schedule carries a frame; without it, only slots with
    # fingers down do.
    sent, scheduled = r["framesSent"], r["framesScheduled"]
    check(f"{tag}: frames sent on schedule", (sent == scheduled if every_slot else 0 < sent <= scheduled) and sent > 0,
          (sent, scheduled))
    check(f"{tag}: every observer received messages", r["messagesPerObserver"]["min"] > 0, r["messagesPerObserver"])
    check(f"{tag}: no errors, drops, misorderings or unmatched messages",
          not r["failures"] and not r["serverErrors"] and r["droppedMessages"] == 0
          and r["outOfOrderMessages"] == 0 and r["unmatchedMessages"] == 0,
          {k: r[k] for k in ("failures", "serverErrors", "droppedMessages", "outOfOrderMessages", "unmatchedMessages")})
    lat = r["latency"]
    check(f"{tag}: latency measured and ordered", lat["count"] > 0 and 0 <= lat["p50"] <= lat["p99"] <= lat["max"], lat)
    # No warm-up here, so every frame's send lag is in; each message comes after its frame
    # was sent, so the typical lag is below the typical latency.
    lag = r["sendLag"]
    check(f"{tag}: send lag of every frame, below the latency", lag["count"] == sent and lag["p50"] <= lat["p50"],
          (lag, sent, lat["p50"]))
    check(f"{tag}: a per-second series", len(r["series"]) >= 2 and sum(s["framesSent"] for s in r["series"]) > 0,
          r["series"][:2])
    check(f"{tag}: .hgrm in HdrHistogram's percentile format",
          "Value" in h and "Percentile" in h and "#[Mean" in h and "#[Max" in h, h[:200])


def main():
    proc = start_relay(relay)
    try:
        port = relay_port(proc)
        with tempfile.TemporaryDirectory() as tmp:
            # Generated traces: 12 sources over 4 sessions, 2 raw observers per session.
            r, h, _ = run_load(port, ["-c", "12", "-r", "60", "--sessions", "4", "--observers", "2", "--raw",
                                      "--scenario", "mixed", "--send-idle", "-d", "3s", "--warmup", "0s"], tmp, "mixed")
            check_report("mixed", r, h, 12, 8, every_slot=True)
            check("mixed: the report has its list of warnings", isinstance(r.get("warnings"), list), r.get("warnings"))
            check("mixed: gestures recognized", sum(r["gestures"].values()) > 0, r["gestures"])
            # Every slot carries a frame, so the rate while all sources send is 12 x 60 (each
            # source counts its own intervals). The average over the run counts the same frames
            # over a span at least as long, so it is not higher (up to rounding).
            check("mixed: steady rate is the sources' own rates summed",
                  abs(r["steadyFramesPerSecond"] - 720) < 0.5 and r["framesPerSecond"] < r["steadyFramesPerSecond"] + 0.5,
                  (r["steadyFramesPerSecond"], r["framesPerSecond"]))
            # The conformance vectors replayed as traces. With --max-send-lag 0 any lag at all (it
            # is at least 1 µs) must bring the warning that the generator was behind.
            r, h, out = run_load(port, ["-c", "4", "-r", "60", "--sessions", "2", "--observers", "1",
                                        "--scenario", "vectors", "--vectors", "protocol/vectors", "-d", "2s",
                                        "--warmup", "0s", "--max-send-lag", "0ms"], tmp, "vectors")
            check_report("vectors", r, h, 4, 2, every_slot=False)
            lag99 = f"{r['sendLag']['p99']:.2f} ms"
            check("vectors: --max-send-lag 0ms warns that touch-load was behind, with its send lag p99",
                  len(r["warnings"]) == 1 and "touch-load was behind" in r["warnings"][0] and lag99 in r["warnings"][0]
                  and "  warning       touch-load was behind" in out, (r["warnings"], out[-400:]))
        helptext = subprocess.run([load, "--help"], capture_output=True, text=True).stdout
        flags = re.findall(r"^\s+(?:-\w, )?(--[\w-]+)", helptext, re.M)
        check("--help lists the flags the issue names",
              all(f in flags for f in ["--connections", "--rate", "--duration", "--observers", "--sessions",
                                       "--scenario", "--url", "--json", "--hgrm"]), flags)
    finally:
        stop_relay(proc)
    finish()


main()
