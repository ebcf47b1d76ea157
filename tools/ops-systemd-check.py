#!/usr/bin/python3
"""Checks deploy/systemd/: the units, their sandbox, and the environment file.

Run from the repository:  /usr/bin/python3 tools/ops-systemd-check.py [TOUCH_RELAY_BINARY]
(default .build/debug/touch-relay). Needs systemd's systemd-analyze (Debian: systemd; PID 1
need not be systemd) and a built touch-relay; no network, nothing installed or started.

- `systemd-analyze verify` passes on touch-relay.service and touch-relay@.service without a
  word: it exits 0 on an unknown or misspelt directive and only says so, so any output fails.
  verify also wants ExecStart's binary to exist, and /usr/local/bin/touch-relay is where an
  operator puts it, not where CI builds it: the units are copied to a temporary directory with
  that path replaced by the built binary's, and verified there.
- `systemd-analyze security --offline=yes` rates each unit's sandbox: its overall exposure
  must stay at or below EXPOSURE_LIMIT (printed).
- The directives the sandbox rests on are there: DynamicUser, ProtectSystem=strict,
  NoNewPrivileges, LimitNOFILE, the environment file, ExecReload sending SIGHUP to the main
  process; the template runs --reuse-port with a per-instance --node-id and one shared User=
  (SO_REUSEPORT shares a port only among sockets of one user).
- touch-relay.env names every TOUCH_RELAY_* variable of `touch-relay --help` once and no
  other (touch-relay ignores a variable it does not know, so a misspelt one would be silently
  without effect), and the values it shows are accepted by touch-relay (those that are not a
  file or directory path, which may not exist here).

Prints one line per check and then `N passed, M failed`; exits 1 if anything failed.
"""

import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
from checklib import Check  # noqa: E402  (tools/checklib.py, beside this file)

ROOT = pathlib.Path(__file__).resolve().parent.parent
UNITS = ROOT / "deploy" / "systemd"
INSTALLED_BINARY = "/usr/local/bin/touch-relay"
# systemd-analyze security's scale: 0 (safest) to 10; up to 2.0 it calls "OK". The units
# rate 1.1: network access (they serve it) and the host's root directory are what remains.
EXPOSURE_LIMIT = 1.5


def directives(path):
    """[(key, value)] of a unit file, in order (a key may repeat)."""
    out = []
    for line in path.read_text("utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";", "[")):
            continue
        key, _, value = line.partition("=")
        out.append((key.strip(), value.strip()))
    return out


def main(argv):
    check = Check()
    binary = pathlib.Path(argv[1] if len(argv) > 1 else ROOT / ".build" / "debug" / "touch-relay").resolve()
    analyze = shutil.which("systemd-analyze")
    if not binary.is_file() or not os.access(binary, os.X_OK):
        check.report(False, binary, "no touch-relay binary here: build it first (swift build)")
    if analyze is None:
        check.report(False, "systemd-analyze", "missing: apt-get install -y systemd")
    if check.failed:
        print(f"{check.passed} passed, {check.failed} failed")
        return 1
    units = [UNITS / "touch-relay.service", UNITS / "touch-relay@.service"]

    with tempfile.TemporaryDirectory(prefix="touch-relay-units-") as tmp:
        copies = []
        for unit in units:
            text = unit.read_text("utf-8")
            if INSTALLED_BINARY not in text:
                check.report(False, unit.relative_to(ROOT), f"ExecStart does not run {INSTALLED_BINARY}")
            copy = pathlib.Path(tmp) / unit.name
            copy.write_text(text.replace(INSTALLED_BINARY, str(binary)), "utf-8")
            copies.append(copy)
        for unit, copy in zip(units, copies):
            rel = unit.relative_to(ROOT)
            r = subprocess.run([analyze, "verify", "--man=no", str(copy)], capture_output=True, text=True,
                               timeout=120, cwd=tmp)
            said = (r.stdout + r.stderr).strip()
            check.report(r.returncode == 0 and not said, rel,
                         "systemd-analyze verify: no error, no warning" if r.returncode == 0 and not said
                         else f"systemd-analyze verify (exit {r.returncode}): {said}")
            r = subprocess.run([analyze, "security", "--offline=yes", "--no-pager", str(copy)],
                               capture_output=True, text=True, timeout=120, cwd=tmp)
            score = re.search(r"Overall exposure level for \S+: ([0-9.]+) (\S+)", r.stdout)
            if score is None:
                check.report(False, rel, f"systemd-analyze security gave no score: {(r.stdout + r.stderr)[-300:]}")
            else:
                exposure = float(score.group(1))
                check.report(exposure <= EXPOSURE_LIMIT, rel,
                             f"systemd-analyze security --offline=yes: exposure {exposure} {score.group(2)} "
                             f"(limit {EXPOSURE_LIMIT})")

    for unit in units:
        rel = unit.relative_to(ROOT)
        given = directives(unit)
        keys = {k: v for k, v in given}
        wanted = {
            "DynamicUser": "yes", "ProtectSystem": "strict", "NoNewPrivileges": "yes", "PrivateTmp": "yes",
            "ProtectHome": "yes", "CapabilityBoundingSet": "",
        }
        for key, value in wanted.items():
            check.report(keys.get(key) == value, rel, f"{key}={value}" if keys.get(key) == value
                         else f"{key} is {keys.get(key)!r}, not {value!r}")
        nofile = keys.get("LimitNOFILE", "")
        check.report(nofile.isdigit() and int(nofile) >= 20000 + 64, rel,
                     f"LimitNOFILE={nofile}, above --max-connections' default (20000)")
        env_files = [v for k, v in given if k == "EnvironmentFile"]
        check.report("-/etc/touch-relay/touch-relay.env" in env_files, rel,
                     f"EnvironmentFile {env_files}")
        reload = keys.get("ExecReload", "")
        check.report(re.fullmatch(r"/bin/kill -(HUP|s HUP|SIGHUP) \$MAINPID", reload) is not None, rel,
                     f"ExecReload={reload}")
        if unit.name.endswith("@.service"):
            start = keys.get("ExecStart", "")
            ok = "--reuse-port" in start.split() and "--node-id" in start and "%i" in start
            check.report(ok, rel, f"ExecStart runs --reuse-port with a per-instance --node-id: {start}")
            check.report(bool(keys.get("User")), rel, f"User={keys.get('User')}: one user for every node")

    # The environment file against the binary's own table.
    env_file = UNITS / "touch-relay.env"
    r = subprocess.run([str(binary), "--help"], capture_output=True, text=True, timeout=60)
    folded = " ".join(r.stdout.split())
    known = re.findall(r"\[env: (TOUCH_RELAY_[A-Z0-9_]+)\]", folded)
    listed = re.findall(r"^#?\s*(TOUCH_RELAY_[A-Z0-9_]+)=(.*)$", env_file.read_text("utf-8"), re.M)
    names = [n for n, _ in listed]
    rel = env_file.relative_to(ROOT)
    check.report(len(known) > 20, f"{binary.name} --help", f"{len(known)} environment variables")
    unknown = sorted(set(names) - set(known))
    check.report(not unknown, rel, "every variable is touch-relay's" if not unknown
                 else f"touch-relay knows no {', '.join(unknown)} (it would ignore them)")
    missing = sorted(set(known) - set(names))
    check.report(not missing, rel, f"all {len(known)} options listed" if not missing
                 else f"not listed: {', '.join(missing)}")
    twice = sorted({n for n in names if names.count(n) > 1})
    check.report(not twice, rel, "each variable once" if not twice else f"listed twice: {', '.join(twice)}")
    values = {n: v for n, v in listed if not v.startswith("/")}
    environment = {k: v for k, v in os.environ.items() if not k.startswith("TOUCH_RELAY_")}
    environment.update(values)
    # --replay reads the configuration first, then the recording: /dev/null is not one, so a
    # configuration it accepts ends in that complaint and not in one about a variable.
    r = subprocess.run([str(binary), "--replay", "/dev/null"], capture_output=True, text=True, timeout=60,
                       env=environment)
    said = (r.stdout + r.stderr).strip()
    accepted = "not a touch-relay recording" in said
    check.report(accepted, rel, f"touch-relay accepts the {len(values)} values shown (all but paths)" if accepted
                 else f"touch-relay refuses a value shown: {said.splitlines()[0] if said else r.returncode}")

    print(f"{check.passed} passed, {check.failed} failed")
    return 1 if check.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
