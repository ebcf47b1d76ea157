"""What tools/check-protocol.py, check-asyncapi.py and ops-systemd-check.py share: JSON read as
the server reads it, its nesting depth, and the PASS / FAIL tally they print."""
import json
import math


class NonFinite(ValueError):
    pass


def _constant(word):
    raise NonFinite(f"non-finite literal {word}")


def _float(text):
    v = float(text)
    if not math.isfinite(v):
        raise NonFinite(f"number {text} overflows a double")
    return v


def _int(text):
    v = int(text)
    try:
        float(v)
    except OverflowError:
        raise NonFinite(f"number {text} overflows a double") from None
    return v


def strict_load(raw):
    """Parses like the server: RFC 8259 JSON, finite numbers only, no trailing data."""
    text = raw.decode("utf-8")
    return json.loads(text, parse_constant=_constant, parse_float=_float, parse_int=_int)


def depth(value):
    if isinstance(value, dict):
        return 1 + max((depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((depth(v) for v in value), default=0)
    return 0


class Check:
    """Counts and prints each check as PASS or FAIL."""

    def __init__(self):
        self.passed = self.failed = 0

    def report(self, ok, what, why):
        print(f"{'PASS' if ok else 'FAIL'} {what}: {why}")
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        return ok
