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
  the binary defines lie together at the start of `.text` (not in the list's order: lld can
  place only the functions of modules built with `-function-sections` one by one, and the
  library modules' functions come with their module's section);
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
# Where the head's functions must lie: in the first MiB of `.text` (of some 13 MB; an
# unordered link scatters them over all of it), nearly all of them.
HEAD_SPAN = 1 << 20
HEAD_SHARE = 0.95


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
    text = next(line.split() for line in run("readelf", "-S", "-W", binary).splitlines() if " .text " in line)
    text_start = int(text[text.index(".text") + 2], 16)
    head = [addresses[n] - text_start for n in order.listed_head(order.ORDER) if n in addresses]
    share = sum(1 for offset in head if 0 <= offset < HEAD_SPAN) / max(1, len(head))
    verdict(len(head) > 50 and share >= HEAD_SHARE,
            f"laid out by {os.path.relpath(order.ORDER)}: {len(head)} of its head's names defined, "
            f"{share:.1%} of them in the first {HEAD_SPAN >> 20} MiB of .text (at least {HEAD_SHARE:.0%} wanted)")

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
