"""What the smoke scripts share: checks counted and printed, and a touch-relay binary started
on a free loopback port and stopped with SIGTERM."""
import re, subprocess, sys

results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else f": {detail}"))


def start_relay(binary):
    return subprocess.Popen([binary, "--port", "0", "--log-level", "error"], stdout=subprocess.PIPE, text=True)


def relay_port(proc):
    """The port from the server's first line ('... listening on ws://127.0.0.1:PORT ...')."""
    return int(re.search(r":(\d+) ", proc.stdout.readline()).group(1))


def stop_relay(proc):
    proc.terminate()
    proc.wait(timeout=10)


def finish():
    """Prints 'N passed, M failed' and exits 0 only if every check passed."""
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    sys.exit(0 if passed == len(results) else 1)
