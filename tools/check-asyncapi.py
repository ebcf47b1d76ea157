#!/usr/bin/python3
"""Checks protocol/asyncapi.yaml, the AsyncAPI 3.0 document of protocol v1.

Run from anywhere:  /usr/bin/python3 tools/check-asyncapi.py [DOCUMENT]
Needs python3-yaml and python3-jsonschema (Debian); no network.

- The document is valid against the AsyncAPI project's own JSON Schema of 3.0.0
  (protocol/vendor/asyncapi-3.0.0/, vendored from asyncapi/spec-json-schemas), with jsonschema's
  draft-07 validator: the independent check. YAML keys given twice are an error (PyYAML would
  keep the last one silently).
- Every `$ref` resolves: a `#/...` pointer to a node of the document, a relative file (the
  payloads: protocol/schemas/...) to a file that exists and holds the fragment it names.
  The JSON Schema only checks that a `$ref` is a string.
- What AsyncAPI 3.0.0 requires in words, not in its JSON Schema: a channel's `parameters` are
  exactly its address's `{names}`; an operation's (and its reply's) messages are messages of
  its channel; a WebSocket binding's `query` and `headers` are schemas of type object with
  `properties`.
- What this repository requires: the channels' addresses are the WebSocket URLs of
  protocol/README.md §1, the observer's query parameters those of its table, and the close
  codes of §3 are all listed; every JSON message's payload is a schema of protocol/schemas/,
  and every schema there is some message's payload; every message is on a channel and in an
  operation.
- Every example protocol/examples/<client|server>-<type>[-variant].json matches exactly one
  message of the document (its payload schema, with the draft 2020-12 validator), that message
  is named <type>, and it is one the server receives (client-*) or sends (server-*). Every
  example written in the document (a message's `examples[].payload`) is valid against that
  message's payload schema, which AsyncAPI's own JSON Schema does not check. Every
  example of protocol/examples/invalid/ that is JSON matches no message the server receives,
  but those refused for a rule no schema expresses (duplicate_touch_id).

Prints one line per check and then `N passed, M failed`; exits 1 if anything failed.
"""

import json
import pathlib
import re
import sys
import urllib.parse

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
from checklib import Check, depth, strict_load  # noqa: E402  (tools/checklib.py, beside this file)

try:
    import yaml
except ImportError:  # pragma: no cover
    print("PyYAML is missing: apt-get install -y python3-yaml", file=sys.stderr)
    sys.exit(2)
try:
    from jsonschema import Draft7Validator, Draft202012Validator
except ImportError:  # pragma: no cover
    print("jsonschema is missing: apt-get install -y python3-jsonschema", file=sys.stderr)
    sys.exit(2)

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROTOCOL = ROOT / "protocol"
DOCUMENT = PROTOCOL / "asyncapi.yaml"
ASYNCAPI_SCHEMA = PROTOCOL / "vendor" / "asyncapi-3.0.0" / "asyncapi-3.0.0.schema.json"
SCHEMAS = PROTOCOL / "schemas"
EXAMPLES = PROTOCOL / "examples"
README = PROTOCOL / "README.md"

# Refused for a rule a JSON Schema cannot express (protocol/schemas/README.md).
BEYOND_SCHEMA = {"duplicate_touch_id"}
# The server's JSON nesting limit (welcome.limits.maxDepth).
MAX_DEPTH = 32


class UniqueKeyLoader(yaml.SafeLoader):
    """SafeLoader that refuses a mapping key given twice."""


def _mapping(loader, node, deep=False):
    seen = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"key {key!r} given twice", key_node.start_mark)
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)


def asyncapi_validator(meta):
    """Draft-07 validator of the AsyncAPI schema. jsonschema 4.10 (Debian 12) takes every
    subschema with a "$id" key for an identified schema, and the draft-07 meta-schema the
    AsyncAPI bundle embeds has a property named "$id" (a dict): its resolver then fails with
    "unhashable type". That resolver is given only the subschemas whose "$id" is a string; later
    jsonschema releases resolve with the `referencing` library and need nothing."""
    import functools
    import jsonschema

    resolver_class = getattr(jsonschema.validators, "_RefResolver", None) or vars(jsonschema).get("RefResolver")
    if resolver_class is None or not hasattr(resolver_class, "_get_subschemas_cache"):
        return Draft7Validator(meta)

    class Resolver(resolver_class):
        @functools.lru_cache()  # noqa: B019 - as the base class caches it
        def _get_subschemas_cache(self):
            cache = super()._get_subschemas_cache()
            return {k: [s for s in v if k != "$id" or isinstance(s.get("$id"), str)] for k, v in cache.items()}

    return Draft7Validator(meta, resolver=Resolver.from_schema(meta))


def load_json(path):
    """Strict JSON, as the server reads it (checklib.strict_load)."""
    return strict_load(path.read_bytes())


def pointer(document, fragment):
    """The node at JSON pointer `fragment` (without '#'), or raise KeyError."""
    node = document
    if fragment in ("", "/"):
        return node
    for raw in fragment.lstrip("/").split("/"):
        part = urllib.parse.unquote(raw).replace("~1", "/").replace("~0", "~")
        if isinstance(node, list):
            if not part.isdigit() or int(part) >= len(node):
                raise KeyError(fragment)
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            raise KeyError(fragment)
    return node


def refs(node, where="#"):
    """Every ($ref value, location) in the document."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value, where
            else:
                yield from refs(value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from refs(value, f"{where}/{i}")


def resolve(document, ref, base):
    """(node, file) that `ref` names, from a document in directory `base`; raises on failure."""
    target, _, fragment = ref.partition("#")
    if not target:
        return pointer(document, fragment), None
    path = (base / target).resolve()
    if not path.is_file():
        raise FileNotFoundError(f"no file {target}")
    return pointer(load_json(path), fragment), path


def readme_facts():
    """From protocol/README.md: WebSocket paths (§1), observer query parameters, close codes (§3)."""
    text = README.read_text("utf-8")
    paths = set(re.findall(r"`ws://HOST:PORT(/v1/[^`]+)`", text))
    table = text.split("### Observer query parameters", 1)[1].split("\n## ", 1)[0]
    query = set(re.findall(r"^\| `([a-z_]+)=", table, re.M))
    errors = text.split("## 3. Errors", 1)[1].split("\n## ", 1)[0]
    closes = {int(c) for c in re.findall(r"close `(\d{4})`", errors)}
    closes |= {int(c) for c in re.findall(r"see `(\d{4})`", errors)}
    return paths, query, closes


def main(argv):
    document_path = pathlib.Path(argv[1]).resolve() if len(argv) > 1 else DOCUMENT
    base = document_path.parent
    check = Check()
    name = document_path.relative_to(ROOT) if document_path.is_relative_to(ROOT) else document_path

    try:
        document = yaml.load(document_path.read_text("utf-8"), Loader=UniqueKeyLoader)
    except (OSError, yaml.YAMLError) as e:
        check.report(False, name, "not readable YAML: " + " ".join(str(e).split()))
        print(f"{check.passed} passed, {check.failed} failed")
        return 1

    # 1. The AsyncAPI project's JSON Schema.
    meta = load_json(ASYNCAPI_SCHEMA)
    Draft7Validator.check_schema(meta)
    errors = sorted(asyncapi_validator(meta).iter_errors(document), key=lambda e: list(e.absolute_path))
    for e in errors[:20]:
        # The deepest cause says more than "is not valid under any of the given schemas".
        deepest = max([e] + list(e.context or []), key=lambda c: len(list(c.absolute_path)))
        where = "/".join(str(p) for p in deepest.absolute_path) or "(document)"
        check.report(False, name, f"AsyncAPI 3.0.0 schema: {where}: {deepest.message[:160]}")
    if not errors:
        check.report(True, name, "valid against the AsyncAPI 3.0.0 JSON Schema (asyncapi/spec-json-schemas)")

    # 2. Every $ref resolves.
    broken = 0
    for ref, where in refs(document):
        try:
            resolve(document, ref, base)
        except (KeyError, FileNotFoundError, ValueError) as e:
            broken += 1
            check.report(False, name, f"{where}: $ref {ref!r} does not resolve ({e})")
    if not broken:
        check.report(True, name, "every $ref resolves")

    channels = document.get("channels") or {}
    operations = document.get("operations") or {}
    components = (document.get("components") or {}).get("messages") or {}

    def deref(node):
        seen = 0
        while isinstance(node, dict) and "$ref" in node and seen < 10:
            try:
                node, _ = resolve(document, node["$ref"], base)
            except (KeyError, FileNotFoundError, ValueError):
                return None
            seen += 1
        return node

    # 3. AsyncAPI 3.0.0's rules in words.
    for cname, channel in channels.items():
        channel = deref(channel) or {}
        address = channel.get("address") or ""
        wanted = set(re.findall(r"{([^}]+)}", address))
        given = set((channel.get("parameters") or {}).keys())
        check.report(wanted == given, f"channel {cname}",
                     f"parameters {sorted(given)} are the address's {sorted(wanted)}" if wanted == given
                     else f"parameters {sorted(given)} differ from the address's {sorted(wanted)} ({address})")
        ws = ((channel.get("bindings") or {}).get("ws")) or {}
        for part in ("query", "headers"):
            schema = deref(ws.get(part))
            if schema is not None:
                ok = isinstance(schema, dict) and schema.get("type") == "object" and "properties" in schema
                check.report(ok, f"channel {cname}", f"ws binding {part} is an object schema with properties"
                             if ok else f"ws binding {part} must be of type object with properties")
    for oname, operation in operations.items():
        channel_ref = (operation.get("channel") or {}).get("$ref", "")
        for part, holder in (("messages", operation), ("reply messages", operation.get("reply") or {})):
            own = (holder.get("channel") or {}).get("$ref", channel_ref) if part != "messages" else channel_ref
            for m in holder.get("messages") or []:
                ref = m.get("$ref", "")
                ok = ref.startswith(own + "/messages/")
                if not ok:
                    check.report(False, f"operation {oname}",
                                 f"{part}: {ref} is not a message of its channel {own}")

    # 4. This repository's rules.
    paths, query, closes = readme_facts()
    addresses = {deref(c).get("address") for c in channels.values() if deref(c)}
    check.report(addresses == paths, "channels",
                 f"addresses {sorted(addresses)} are protocol/README.md §1's WebSocket URLs" if addresses == paths
                 else f"addresses {sorted(addresses)} differ from protocol/README.md §1's {sorted(paths)}")
    observe = next((deref(c) for c in channels.values()
                    if deref(c) and (deref(c).get("address") or "").startswith("/v1/observe/")), None)
    documented = set((deref(((observe or {}).get("bindings") or {}).get("ws", {}).get("query")) or {})
                     .get("properties", {}).keys())
    check.report(documented == query, "channel observe",
                 f"query parameters {sorted(documented)} are protocol/README.md's" if documented == query
                 else f"query parameters {sorted(documented)} differ from protocol/README.md's {sorted(query)}")
    listed = set()
    for c in channels.values():
        for entry in deref((deref(c) or {}).get("x-close-codes")) or []:
            listed.add(entry.get("code"))
    missing = closes - listed
    check.report(not missing and bool(listed), "x-close-codes",
                 f"every close code of protocol/README.md §3 is listed ({sorted(closes)})" if not missing
                 else f"close codes of protocol/README.md §3 not listed: {sorted(missing)}")

    # Messages: where each is, what its payload is.
    messages = {}  # "#/components/messages/NAME" -> (name, validator or None)
    referred = set()
    for mname, message in components.items():
        message = deref(message) or {}
        where = f"#/components/messages/{mname}"
        payload = message.get("payload") or {}
        content = message.get("contentType", document.get("defaultContentType"))
        if content != "application/json":
            messages[where] = (message.get("name", mname), None)
            continue
        schema_ref = ((payload.get("schema") or {}).get("$ref")) if isinstance(payload, dict) else None
        target = (base / schema_ref.partition("#")[0]).resolve() if schema_ref else None
        if not target or target.parent != SCHEMAS.resolve():
            check.report(False, f"message {mname}", "a JSON message's payload must be a $ref to protocol/schemas/")
            messages[where] = (message.get("name", mname), None)
            continue
        try:
            schema, _ = resolve(document, schema_ref, base)
            Draft202012Validator.check_schema(schema)
        except Exception as e:  # noqa: BLE001 - any problem with the payload's schema
            check.report(False, f"message {mname}", f"payload {schema_ref}: {str(e).splitlines()[0][:120]}")
            messages[where] = (message.get("name", mname), None)
            continue
        referred.add(target.name)
        messages[where] = (message.get("name", mname), Draft202012Validator(schema))
    for mname, message in components.items():
        validator = messages[f"#/components/messages/{mname}"][1]
        for i, example in enumerate((deref(message) or {}).get("examples") or []):
            if validator is None or "payload" not in example:
                continue
            errors = sorted(validator.iter_errors(example["payload"]), key=lambda e: list(e.path))
            check.report(not errors, f"message {mname} example {example.get('name', i)}",
                         "valid against its payload schema" if not errors
                         else f"{'/'.join(map(str, errors[0].path)) or '(message)'}: {errors[0].message}")
    for path in sorted(SCHEMAS.glob("*.schema.json")):
        check.report(path.name in referred, path.relative_to(ROOT),
                     "is a message's payload" if path.name in referred else "no message of the document refers to it")

    on_channel, in_operation = set(), {"receive": set(), "send": set()}
    for cname, channel in channels.items():
        for m in ((deref(channel) or {}).get("messages") or {}).values():
            on_channel.add(m.get("$ref"))
    for operation in operations.values():
        for m in (operation.get("messages") or []) + ((operation.get("reply") or {}).get("messages") or []):
            node_ref = m.get("$ref", "")
            try:
                target = pointer(document, node_ref.partition("#")[2]).get("$ref")
            except (KeyError, AttributeError):
                continue
            action = operation.get("action") if m in (operation.get("messages") or []) else (
                "send" if operation.get("action") == "receive" else "receive")
            in_operation.setdefault(action, set()).add(target)
    for where, (mname, _) in sorted(messages.items()):
        used = where in on_channel and (where in in_operation["receive"] or where in in_operation["send"])
        check.report(used, f"message {mname}", "on a channel and in an operation" if used
                     else "not on any channel, or in no operation")

    def matching(instance, among):
        return [(where, mname) for where, (mname, v) in messages.items()
                if where in among and v is not None and v.is_valid(instance)]

    every = set(messages)
    for path in sorted(EXAMPLES.glob("*.json")):
        rel = path.relative_to(ROOT)
        parts = path.stem.split("-")
        try:
            instance = load_json(path)
        except ValueError as e:
            check.report(False, rel, f"not JSON: {e}")
            continue
        found = matching(instance, every)
        if len(found) != 1:
            check.report(False, rel, f"matches {len(found)} messages of the document "
                                     f"({', '.join(m for _, m in found) or 'none'}), not exactly one")
            continue
        where, mname = found[0]
        action = {"client": "receive", "server": "send"}.get(parts[0])
        if mname != parts[1]:
            check.report(False, rel, f"matches message {mname}, its name says {parts[1]}")
        elif action is None or where not in in_operation[action]:
            check.report(False, rel, f"matches {mname}, which the server does not {action or '?'}")
        else:
            check.report(True, rel, f"matches message {mname} (the server {action}s it)")

    received = in_operation["receive"]
    for path in sorted((EXAMPLES / "invalid").glob("*.json")):
        rel = path.relative_to(ROOT)
        try:
            instance = load_json(path)
        except ValueError:
            continue  # Not JSON to the server: check-protocol.py holds these to their codes.
        if depth(instance) > MAX_DEPTH:
            continue  # Refused before any schema (bad_json), as check-protocol.py checks.
        found = matching(instance, received)
        code = path.stem.split("-")[0]
        ok = not found or code in BEYOND_SCHEMA
        check.report(ok, rel, "matches no message the server receives" if not found
                     else f"matches {found[0][1]} (refused by a rule beyond the schema: {code})" if ok
                     else f"matches {found[0][1]}, although the server refuses it ({code})")

    print(f"{check.passed} passed, {check.failed} failed")
    return 1 if check.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
