#!/usr/bin/python3
"""Checks that the README's install command provides every program the test suites start.

Run from anywhere:  /usr/bin/python3 tools/check-test-deps.py [--list]
Needs dpkg and apt-cache (Debian); no network.

A new user runs the README's first command and then `swift test`. The tests start programs
of the system (redis-server, openssl, curl, /usr/bin/python3 with PyJWT, ...): each must come
from a package that command installs, or the second command fails on a fresh machine. This
reads what the tests start and what the command installs, and fails on any gap:

- programs: every absolute path of a program (`"/usr/bin/NAME"`, `/usr/sbin`, `/bin`, `/sbin`)
  written in a Swift file under Tests/;
- Python modules: the imports of every script the tests hand to /usr/bin/python3: the
  `import`/`from` statements in string literals of Swift files under Tests/ that mention
  python3, and those of every tools/*.py file a test names;
- each is mapped to its Debian package with `dpkg -S` (a module through the file Debian's
  python3 imports it from); the module must be importable by /usr/bin/python3 at all;
- the README's command installs the packages it names (the first `apt-get install` of the
  README's first sh block) and what they depend on (`apt-cache depends --recurse`, without
  Recommends: .ci/run installs with --no-install-recommends, so nothing may rest on one); an
  Essential package is on every Debian system.

--list prints the README's package list and exits (.ci/run installs exactly that).
Prints one line per program or module and then `N passed, M failed`; exits 1 on a gap.
"""

import ast
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
PYTHON = "/usr/bin/python3"


def readme_packages():
    """The packages of the first `apt-get install` in the README's first sh block."""
    text = (ROOT / "README.md").read_text()
    block = re.search(r"```sh\n(.*?)```", text, re.S)
    if not block:
        sys.exit("README.md has no ```sh block with the install command")
    command = re.search(r"apt-get install ([^&|;\n]*)", block.group(1))
    if not command:
        sys.exit("the README's first sh block has no apt-get install")
    packages = [w for w in command.group(1).split() if not w.startswith("-")]
    if not packages:
        sys.exit("the README's apt-get install names no package")
    return packages


def installed_closure(packages):
    """The packages, and all they depend on (Depends and Pre-Depends, recursively)."""
    out = subprocess.run(
        ["apt-cache", "depends", "--recurse", "--no-recommends", "--no-suggests", "--no-conflicts",
         "--no-breaks", "--no-replaces", "--no-enhances", *packages],
        capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"apt-cache depends failed (run apt-get update first?): {out.stderr.strip()}")
    names = set(packages)
    for line in out.stdout.splitlines():
        line = line.strip()
        if ":" in line and not line.startswith("<"):
            kind, _, line = line.partition(":")
            if kind not in ("Depends", "PreDepends", "|Depends", "|PreDepends"):
                continue
            line = line.strip()
        names.add(line.strip("<>").split(":")[0])
    return names


def essential_packages():
    out = subprocess.run(["dpkg-query", "-W", "-f=${Package} ${Essential}\n"], capture_output=True, text=True)
    return {line.split()[0] for line in out.stdout.splitlines() if line.endswith(" yes")}


def package_of(path):
    """The Debian package that owns `path` (usrmerge: /bin and /usr/bin are one)."""
    candidates = [path, str(pathlib.Path(path).resolve())]
    for p in list(candidates):
        if p.startswith("/usr/"):
            candidates.append(p[len("/usr"):])
        else:
            candidates.append("/usr" + p)
    for p in candidates:
        out = subprocess.run(["dpkg", "-S", p], capture_output=True, text=True)
        if out.returncode == 0:
            # "pkg[:arch][, pkg2]: /path" (diversions print more lines; the owner is last).
            owner = out.stdout.strip().splitlines()[-1].rsplit(": ", 1)[0]
            return owner.split(",")[0].split(":")[0].strip()
    return None


STRING_LITERAL = re.compile(r'#*"""(.*?)"""#*|"((?:[^"\\\n]|\\.)*)"', re.S)
PY_IMPORT = re.compile(r"(?:^|[\n;])\s*import\s+([A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*)")
PY_FROM = re.compile(r"(?:^|[\n;])\s*from\s+([A-Za-z_][\w.]*)\s+import\b")
PROGRAM = re.compile(r'"(/(?:usr/)?s?bin/[\w.+-]+)"')
TOOL_SCRIPT = re.compile(r"tools/[\w./-]+\.py")


def what_the_tests_start():
    programs, modules = {}, {}
    for swift in sorted((ROOT / "Tests").rglob("*.swift")):
        # Comments name tools the tests do not run.
        text = "\n".join(l for l in swift.read_text().splitlines() if not l.lstrip().startswith("//"))
        where = swift.relative_to(ROOT)
        for m in PROGRAM.finditer(text):
            programs.setdefault(m.group(1), str(where))
        for script in TOOL_SCRIPT.findall(text):
            path = ROOT / script
            if path.exists():
                for name in script_imports(path.read_text()):
                    modules.setdefault(name, script)
        if "python3" not in text:
            continue
        for literal in STRING_LITERAL.finditer(text):
            body = literal.group(1) if literal.group(1) is not None else literal.group(2)
            for m in PY_IMPORT.finditer(body):
                for name in m.group(1).split(","):
                    modules.setdefault(name.strip().split(".")[0], str(where))
            for m in PY_FROM.finditer(body):
                modules.setdefault(m.group(1).split(".")[0], str(where))
    return programs, modules


def script_imports(source):
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def module_file(name):
    """Where /usr/bin/python3 imports `name` from; "" for a built-in; None if it cannot."""
    code = (
        "import importlib.util, sys\n"
        f"s = importlib.util.find_spec({name!r})\n"
        "print('builtin' if s and s.origin in (None, 'built-in', 'frozen') else (s.origin if s else 'missing'))\n"
        f"print({name!r} in sys.stdlib_module_names)\n")
    out = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True)
    if out.returncode != 0:
        return None, False
    origin, stdlib = out.stdout.split("\n")[:2]
    return (None if origin == "missing" else origin), stdlib == "True"


def main():
    packages = readme_packages()
    if "--list" in sys.argv[1:]:
        print(" ".join(packages))
        return 0
    provided = installed_closure(packages) | essential_packages()
    programs, modules = what_the_tests_start()
    passed = failed = 0

    def verdict(what, where, package, problem=None):
        nonlocal passed, failed
        if problem is None and package in provided:
            passed += 1
            how = "named" if package in packages else "a dependency or Essential"
            print(f"ok    {what} ({where}): {package}, {how}")
            return
        failed += 1
        print(f"FAIL  {what} ({where}): {problem or f'package {package} is not installed by the README command'}")

    for program, where in sorted(programs.items()):
        package = package_of(program)
        verdict(program, where, package, None if package else "no Debian package owns it (is it installed?)")
    for name, where in sorted(modules.items()):
        origin, stdlib = module_file(name)
        if origin is None:
            verdict(f"python module {name}", where, None, f"{PYTHON} cannot import it")
        elif origin == "builtin" or (stdlib and "/dist-packages/" not in origin):
            package = package_of(origin) if origin != "builtin" else None
            verdict(f"python module {name}", where, package or "python3-minimal")
        else:
            package = package_of(origin)
            verdict(f"python module {name}", where, package, None if package else f"{origin} is in no Debian package")
    print(f"README's command installs: {' '.join(packages)}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
