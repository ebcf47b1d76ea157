#!/usr/bin/python3
"""Builds contexts-probe.c and checks that several libwebsockets contexts, each on its own
thread and libev loop, serve one port side by side in one process (issue 39's first question).

  tools/threads/check.py [--threads 2] [--connections 64] [--messages 500] [--serial]

Opens CONNECTIONS WebSockets (Python websockets, an independent client) until every thread has
some, then: one connection on each thread sends MESSAGES numbered "all" messages; every
connection on every thread must get every message of every sender, each sender's in order (the
link between threads is the contract's per-source order); "stats" counters must add up (no
"dropped"); SIGTERM with every connection still open must stop the process with status 0
within 5 s. Exits 1 with the reason on the first failure. Needs cc, libwebsockets-dev, libev
and python3-websockets."""
import argparse, asyncio, os, re, signal, subprocess, sys, tempfile, time

import websockets

HERE = os.path.dirname(os.path.abspath(__file__))


def fail(why):
    print(f"FAIL: {why}", file=sys.stderr)
    sys.exit(1)


def build(tmp):
    binary = os.path.join(tmp, "contexts-probe")
    subprocess.run(["cc", "-std=c11", "-D_GNU_SOURCE", "-O2", "-Wall", "-Wextra", "-Werror", "-o", binary,
                    os.path.join(HERE, "contexts-probe.c"), "-lwebsockets", "-lev", "-lpthread"], check=True)
    return binary


async def session(url, args):
    conns = []
    by_thread = {}
    for _ in range(args.connections):
        ws = await websockets.connect(url, max_queue=None)
        m = re.fullmatch(r"hello thread=(\d+)", await asyncio.wait_for(ws.recv(), 5))
        if not m:
            fail("no greeting")
        t = int(m.group(1))
        conns.append((t, ws))
        by_thread.setdefault(t, []).append(ws)
    counts = {t: len(v) for t, v in sorted(by_thread.items())}
    print(f"{args.connections} connections over threads: {counts}")
    if len(by_thread) != args.threads:
        fail(f"the kernel spread connections over {len(by_thread)} of {args.threads} threads")
    senders = {t: v[0] for t, v in by_thread.items()}
    start = time.monotonic()
    for i in range(args.messages):
        for t, ws in senders.items():
            await ws.send(f"all m{i}")

    async def collect(thread, ws):
        seen = {t: 0 for t in senders}
        want = args.messages * len(senders)
        for _ in range(want):
            text = await asyncio.wait_for(ws.recv(), 10)
            m = re.fullmatch(r"thread=(\d+) m(\d+)", text)
            if not m:
                fail(f"connection on thread {thread} got {text!r}")
            sender, n = int(m.group(1)), int(m.group(2))
            if n != seen[sender]:
                fail(f"connection on thread {thread}: message {n} of thread {sender} came after {seen[sender]}")
            seen[sender] += 1
    await asyncio.gather(*(collect(t, ws) for t, ws in conns))
    elapsed = time.monotonic() - start
    delivered = args.messages * len(senders) * len(conns)
    print(f"{delivered} deliveries ({args.messages} x {len(senders)} senders x {len(conns)} connections), "
          f"every sender's in order, in {elapsed:.2f} s")
    total = 0
    for t, v in sorted(by_thread.items()):
        await v[0].send("stats")
        text = await asyncio.wait_for(v[0].recv(), 5)
        m = re.fullmatch(r"stats thread=(\d+) connections=(\d+) delivered=(\d+) wakes=(\d+) dropped=(\d+)", text)
        if not m or int(m.group(1)) != t:
            fail(f"stats: {text!r}")
        if int(m.group(5)):
            fail(f"thread {t} dropped {m.group(5)}")
        total += int(m.group(3))
        print(f"thread {t}: {m.group(2)} connections, {m.group(3)} delivered, {m.group(4)} wake-ups")
    if total != delivered:
        fail(f"the threads count {total} deliveries, the clients got {delivered}")
    return conns


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--connections", type=int, default=64)
    ap.add_argument("--messages", type=int, default=500)
    ap.add_argument("--serial", action="store_true", help="create the contexts one at a time")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        binary = build(tmp)
        cmd = [binary, "--threads", str(args.threads), "--port", "0"] + (["--serial"] if args.serial else [])
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = proc.stdout.readline()
        m = re.search(r"ws://([\d.]+):(\d+)", line)
        if not m:
            proc.kill()
            fail(f"probe did not start: {line!r} {proc.stderr.read()!r}")
        print(line.strip())
        loop = asyncio.new_event_loop()
        conns = loop.run_until_complete(session(f"ws://{m.group(1)}:{m.group(2)}/", args))
        # Stop with every connection open: each thread must destroy its context and return.
        proc.send_signal(signal.SIGTERM)
        try:
            rc = proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            fail("SIGTERM did not stop the probe within 5 s")
        err = proc.stderr.read()
        sys.stderr.write(err)
        async def close_all():
            await asyncio.gather(*(ws.close() for _, ws in conns), return_exceptions=True)
        loop.run_until_complete(close_all())
        if rc != 0:
            fail(f"probe exited {rc}")
        print(f"PASS: {args.threads} libwebsockets contexts on {args.threads} libev loops served one port in one process")


if __name__ == "__main__":
    main()
