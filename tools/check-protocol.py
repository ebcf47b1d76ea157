#!/usr/bin/python3
"""Checks protocol/examples against protocol/schemas (TouchRelay protocol v1).

Run from anywhere:  /usr/bin/python3 tools/check-protocol.py
Needs only the `jsonschema` package (Debian: python3-jsonschema); no network.

- Every schema in protocol/schemas/*.schema.json must be a valid draft 2020-12 schema.
- Every example protocol/examples/<direction>-<type>[-variant].json must be strict JSON
  (no NaN/Infinity, no number overflowing a double) and valid against
  protocol/schemas/<direction>-<type>.schema.json.
- Every example protocol/examples/invalid/<code>[-what].json is a client message that the
  server refuses with error <code>; it must NOT be accepted. How it must be refused depends
  on the code: `bad_json` and `non_finite` must fail strict JSON parsing (or, for
  `bad_json`, exceed the nesting limit of 32); every other code must parse and then fail
  the client schema chosen by its `type` (all three client schemas when `type` is missing
  or unknown) or a rule a schema cannot express (touch ids unique within a frame).
- Every schema must be used by at least one valid example, and a `$defs` entry copied into
  several schemas (they are self-contained) must be identical in each.

Prints one line per file and then `N passed, M failed`; exits 1 if anything failed.
"""

import json
import pathlib
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
from checklib import NonFinite, depth, strict_load  # noqa: E402  (tools/checklib.py, beside this file)

try:
    from jsonschema import Draft202012Validator
except ImportError:  # pragma: no cover
    print("jsonschema is missing: apt-get install -y python3-jsonschema", file=sys.stderr)
    sys.exit(2)

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCHEMAS = ROOT / "protocol" / "schemas"
EXAMPLES = ROOT / "protocol" / "examples"
INVALID = EXAMPLES / "invalid"

CLIENT_TYPES = ("hello", "frame", "frames", "control")
MAX_DEPTH = 32

# Codes a single message can earn from MessageDecoder alone, and how this script must see
# it refused: "parse" (strict JSON parsing or the depth limit) or "schema" (schema or the
# extra rules below).
DECODER_CODES = {
    "bad_json": "parse",
    "non_finite": "parse",
    "missing_field": "schema",
    "wrong_type": "schema",
    "unknown_type": "schema",
    "bad_value": "schema",
    "unknown_phase": "schema",
    "duplicate_touch_id": "schema",
    "too_many_touches": "schema",
    "too_many_frames": "schema",
}


def load_schemas():
    validators, problems = {}, []
    for path in sorted(SCHEMAS.glob("*.schema.json")):
        name = path.name[: -len(".schema.json")]
        try:
            schema = json.loads(path.read_text("utf-8"))
            Draft202012Validator.check_schema(schema)
            validators[name] = Draft202012Validator(schema)
        except Exception as e:  # noqa: BLE001 - report any problem with the schema file
            problems.append((path, f"{type(e).__name__}: {str(e).splitlines()[0]}"))
    # The schemas are self-contained, so a definition used by several of them (the scene
    # states, for one) is copied; the copies must stay identical.
    seen = {}
    for name, validator in sorted(validators.items()):
        for key, definition in validator.schema.get("$defs", {}).items():
            if key in seen and seen[key][1] != definition:
                problems.append((SCHEMAS / f"{name}.schema.json",
                                 f"$defs/{key} differs from the copy in {seen[key][0]}.schema.json"))
            seen.setdefault(key, (name, definition))
    return validators, problems


def first_error(validator, instance):
    errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path))
    if not errors:
        return None
    e = errors[0]
    where = "/".join(str(p) for p in e.absolute_path) or "(message)"
    return f"{where}: {e.message[:100]}"


def extra_rules(message):
    """Rules of protocol/README.md that JSON Schema cannot express, for one message."""
    if message.get("type") == "frame" and isinstance(message.get("touches"), list):
        ids = [t.get("id") for t in message["touches"] if isinstance(t, dict) and "id" in t]
        seen = set()
        for i in ids:
            if i in seen:
                return f"touch id {i} is listed twice"
            seen.add(i)
    return None


def check_valid(path, validators, used):
    parts = path.stem.split("-")
    if len(parts) < 2 or parts[0] not in ("client", "server"):
        return False, "name is not <client|server>-<type>[-variant].json"
    schema_name = f"{parts[0]}-{parts[1]}"
    validator = validators.get(schema_name)
    if validator is None:
        return False, f"no schema {schema_name}.schema.json"
    used.add(schema_name)
    try:
        message = strict_load(path.read_bytes())
    except Exception as e:  # noqa: BLE001
        return False, f"not strict JSON: {e}"
    if not isinstance(message, dict):
        return False, "not a JSON object"
    if depth(message) > MAX_DEPTH:
        return False, f"nested deeper than {MAX_DEPTH}"
    if message.get("type") != parts[1]:
        return False, f"type is {message.get('type')!r}, the name says {parts[1]!r}"
    error = first_error(validator, message)
    if error:
        return False, f"schema {schema_name}: {error}"
    if parts[0] == "client":
        rule = extra_rules(message)
        if rule:
            return False, rule
    return True, f"valid ({schema_name})"


def check_invalid(path, validators):
    code = path.stem.split("-")[0]
    how = DECODER_CODES.get(code)
    if how is None:
        return False, f"{code!r} is not an error code MessageDecoder returns for one message"
    try:
        message = strict_load(path.read_bytes())
    except Exception as e:  # noqa: BLE001
        why = str(e).splitlines()[0][:120]
        if how != "parse":
            return False, f"expected to parse and fail the schema, but JSON parsing failed: {why}"
        if code == "non_finite" and not isinstance(e, NonFinite):
            return False, f"expected a non-finite number, got a syntax error: {why}"
        if code == "bad_json" and isinstance(e, NonFinite):
            return False, f"expected a syntax error, got a non-finite number: {why}"
        return True, f"refused by JSON parsing ({why})"
    if not isinstance(message, dict) or depth(message) > MAX_DEPTH:
        if code != "bad_json":
            return False, "not an object or too deep, which is bad_json"
        return True, "refused: not a JSON object" if not isinstance(message, dict) else (
            f"refused: nested {depth(message)} levels deep (limit {MAX_DEPTH})")
    if how == "parse":
        return False, f"parses as JSON, but {code} should fail parsing"
    kind = message.get("type")
    names = [f"client-{kind}"] if kind in CLIENT_TYPES else [f"client-{t}" for t in CLIENT_TYPES]
    reasons = []
    for name in names:
        validator = validators.get(name)
        if validator is None:
            return False, f"no schema {name}.schema.json"
        error = first_error(validator, message)
        if error is None:
            error = extra_rules(message)
            if error is None:
                return False, f"accepted by {name} although the server refuses it with {code}"
        reasons.append(f"{name}: {error}")
    return True, "refused: " + "; ".join(reasons)[:200]


def main():
    passed = failed = 0

    def report(ok, path, why):
        nonlocal passed, failed
        rel = path.relative_to(ROOT)
        print(f"{'PASS' if ok else 'FAIL'} {rel}: {why}")
        if ok:
            passed += 1
        else:
            failed += 1

    validators, problems = load_schemas()
    for path, why in problems:
        report(False, path, why)
    broken = {path.name for path, _ in problems}
    for name in sorted(validators):
        if f"{name}.schema.json" not in broken:
            report(True, SCHEMAS / f"{name}.schema.json", "valid draft 2020-12 schema")

    used = set()
    examples = sorted(EXAMPLES.glob("*.json"))
    for path in examples:
        ok, why = check_valid(path, validators, used)
        report(ok, path, why)

    invalid = sorted(INVALID.glob("*.json"))
    for path in invalid:
        ok, why = check_invalid(path, validators)
        report(ok, path, why)

    for name in sorted(set(validators) - used):
        report(False, SCHEMAS / f"{name}.schema.json", "no example uses this schema")
    if not examples or not invalid:
        report(False, EXAMPLES, "no examples found")

    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
