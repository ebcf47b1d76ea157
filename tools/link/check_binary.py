#!/usr/bin/env python3
"""Checks that a touch-relay binary was built and linked as the shipped one is (Package.swift,
the touch-relay target and `staticExclusivityInRelease`), so that tests run against it test
what ships:

    tools/link/check_binary.py .build-release-tests/release/touch-relay

- linked by lld (`-use-ld=lld`: its name in `.comment`);
- the Swift runtime and FoundationEssentials linked in (`-static-stdlib`: no libswiftCore.so
  or libFoundationEssentials.so among the shared libraries it needs);
- relative relocations packed (`-z pack-relative-relocs`: a DT_RELR entry);
- its own symbols not exported (`--no-export-dynamic`: none of the server's modules in the
  dynamic symbol table);
- laid out by tools/link/touch-relay.order (`--symbol-ordering-file`): the frame-path names
  the binary defines lie at rising addresses in the list's order;
- exclusive access checked statically only in RelayCore and RelayServer
  (`-enforce-exclusivity=unchecked`): none of their functions calls swift_beginAccess.

Prints each check and exits 1 if one fails. Needs binutils (readelf, nm, objdump).
"""
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import order  # noqa: E402  (listed_head, ORDER)

SERVER_MODULES = ("$s9RelayCore", "$s11RelayServer")
# Some of the head's neighbours in the list may share a section (and so an order) with a name
# listed earlier; nearly all must rise.
RISING_SHARE = 0.95


def run(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.split("\n\n")[1])
    binary = sys.argv[1]
    failures = []

    def verdict(ok, what):
        print(f"  {'ok' if ok else 'FAILED'}: {what}")
        if not ok:
            failures.append(what)

    comment = run("readelf", "-p", ".comment", binary)
    verdict("LLD" in comment, "linked by lld (.comment names it)")
    dynamic = run("readelf", "-d", "-W", binary)
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic)
    swift_shared = [n for n in needed if re.match(r"lib(swiftCore|FoundationEssentials|swift_Concurrency)\.so", n)]
    verdict(not swift_shared, f"the Swift runtime linked in (shared libraries needed: {', '.join(needed)})")
    verdict(re.search(r"\(RELR\)", dynamic) is not None, "relative relocations packed (DT_RELR)")
    dynsyms = run("readelf", "--dyn-syms", "-W", binary)
    exported = [l for l in dynsyms.splitlines() if any(m in l for m in SERVER_MODULES)]
    verdict(not exported, f"the server's symbols not exported ({len(exported)} in .dynsym)")

    addresses = {}
    for line in run("nm", "--defined-only", binary).splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tTwW":
            addresses.setdefault(parts[2], int(parts[0], 16))
    head = [addresses[n] for n in order.listed_head(order.ORDER) if n in addresses]
    rising = sum(1 for a, b in zip(head, head[1:]) if b > a)
    share = rising / max(1, len(head) - 1)
    verdict(len(head) > 50 and share >= RISING_SHARE,
            f"laid out by {os.path.relpath(order.ORDER)}: {len(head)} of its head's names defined, "
            f"{share:.1%} of them after the one listed before (at least {RISING_SHARE:.0%} wanted)")

    calls, function = 0, None
    callers = set()
    disassembly = subprocess.Popen(["objdump", "-d", "--no-show-raw-insn", binary], stdout=subprocess.PIPE,
                                   text=True, errors="replace")
    for line in disassembly.stdout:
        if line.endswith(">:\n"):
            m = re.match(r"^[0-9a-f]+ <(.*)>:$", line.rstrip())
            function = m.group(1) if m and m.group(1).startswith(SERVER_MODULES) else None
        elif function and "call" in line and "<swift_beginAccess" in line:
            calls += 1
            callers.add(function)
    disassembly.wait()
    verdict(calls == 0, f"exclusivity checked statically in RelayCore and RelayServer "
            f"({calls} calls of swift_beginAccess in {len(callers)} of their functions)")
    for name in sorted(callers)[:5]:
        print(f"    e.g. {name}")
    if failures:
        sys.exit(f"{binary} is not linked as the shipped touch-relay: {len(failures)} check(s) failed")
    print(f"{binary}: built and linked as the shipped touch-relay")


if __name__ == "__main__":
    main()
