#!/usr/bin/env python3
"""An independent valid-instance oracle for gcd's JSON Schema compiler.

For every schema gcd compiles (MaskBench and the JSON-Schema-Test-Suite in
the shared data), hypothesis-jsonschema generates instances; those that two
independent validators accept (the `jsonschema` package with its format
checker, and `jsonschema_rs`, whose regexes are ECMA-262) are serialized
three ways (compact with raw UTF-8; `json.dumps` defaults, non-ASCII as
\\uXXXX; indent=2 with raw UTF-8) and must be accepted by gcd's grammar
(whitespace="json", byte-level vocabulary) under any member order and, for
instances whose members clearly come in schema order (see SchemaOrder),
under schema order. One-edit mutations (a changed value, a dropped key, an
extra key, a type swap, a character inserted into the text) that both
validators reject, or that are no longer JSON, must be refused. Nothing
here shares code or expectations with gcd: the validators decide.

Every refusal of a valid text and every acceptance of an invalid one is a
disagreement. A refusal is filed under one of gcd's documented restrictions
(exponents under numeric bounds, canonical escapes in constrained strings
and keys, plain integers, the format subsets) only when that restriction
explains it where it happened and, where a respelling exists, the respelled
text is accepted; else it is "valid-refused-*". Each category keeps its own
count, so it drops to 0 when a restriction is lifted; none is filtered.

Exit status: 1 on any disagreement (all categories fail unless named with
--allow CATEGORY), 3 if the self-check (which proves that the checks can
fail) fails, 2 on missing data.

    python python/oracle/hypothesis_oracle.py --sample 100 --seed 1 --json out.json
    python python/oracle/hypothesis_oracle.py --self-check
"""

from __future__ import annotations

import argparse
import collections
import copy
import decimal
import hashlib
import json
import multiprocessing
import multiprocessing.connection
import os
import random
import re
import signal
import sys
import time
import traceback
import urllib.parse
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# Hypothesis caches Unicode tables in ./.hypothesis unless told otherwise:
# keep the work tree clean.
os.environ.setdefault(
    "HYPOTHESIS_STORAGE_DIRECTORY",
    os.path.join(os.environ.get("TMPDIR", "/tmp"), "gcd-oracle-hypothesis"),
)

# ---------------------------------------------------------------------------
# Disagreement categories (the keys of the figures' "disagreements").

VALID_ANY = "valid-refused-any-order"
VALID_SCHEMA = "valid-refused-schema-order"
INVALID_ANY = "invalid-accepted-any-order"
INVALID_SCHEMA = "invalid-accepted-schema-order"
# Documented restrictions of gcd's language, each kept apart so that its
# count goes to 0 once the restriction is lifted.
EXPONENT = "exponent-under-bounds-refused"  # gcd-schema/src/decimal.rs
ESCAPE = "escaped-string-refused"  # Escapes::Canonical (options.rs, spell.rs)
INTEGRAL_FLOAT = "integral-float-refused"  # Integers::Plain (options.rs)
FORMAT_SUBSET = "format-subset-refused"  # the subsets gcd-schema/src/format.rs documents
GCD_CRASH = "gcd-crashed"  # a panic or an unexpected exception from gcd
# Not gcd's: both validators accept a string (or a patternProperties key)
# that ECMA-262 matches differently, because their `.`, `$`, \s, \d, \w
# are not ECMA's (`.` matching \r or U+2028, \s matching U+0085, ...). gcd
# follows ECMA-262, so the oracle's verdict is wrong there: counted and
# shown, never failing.
ECMA_REGEX = "oracle-wrong-ecma-regex"
CAVEATS = [ECMA_REGEX]

CATEGORIES = [
    VALID_ANY,
    VALID_SCHEMA,
    INVALID_ANY,
    INVALID_SCHEMA,
    EXPONENT,
    ESCAPE,
    INTEGRAL_FLOAT,
    FORMAT_SUBSET,
    GCD_CRASH,
]

ANY, SCHEMA = "any_order", "schema_order"

# Serializations of each kept instance. ensure_ascii=True (json.dumps'
# default) escapes non-ASCII as \uXXXX, which gcd's canonical spellings
# refuse in constrained strings by design: only the "dumps" form uses it,
# and refusals that the raw-UTF-8 spelling of the same text clears are
# filed under ESCAPE.
FORMS = [
    ("compact", dict(separators=(",", ":"), ensure_ascii=False)),
    ("dumps", dict()),
    ("indent2", dict(indent=2, ensure_ascii=False)),
]

BOUND_KEYWORDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")

# ---------------------------------------------------------------------------
# Corpus


def load_cases(data: Path, sources):
    """Every schema as {id, schema}, in a stable order."""
    cases = []
    if "maskbench" in sources:
        for f in sorted((data / "maskbench").glob("*.json")):
            doc = json.loads(f.read_text(encoding="utf-8"))
            cases.append({"id": f"maskbench/{f.name}", "schema": doc["schema"]})
    if "suite" in sources:
        for draft, uri in [
            ("draft2020-12", "https://json-schema.org/draft/2020-12/schema"),
            ("draft7", "http://json-schema.org/draft-07/schema#"),
        ]:
            for f in suite_files(data / "json-schema-test-suite" / "tests" / draft):
                groups = json.loads(f.read_text(encoding="utf-8"))
                rel = f.relative_to(data / "json-schema-test-suite" / "tests")
                for i, g in enumerate(groups):
                    schema = g["schema"]
                    # gcd's Python API has no draft option: a root $schema
                    # says which draft (as the Rust suite test's Options do).
                    if isinstance(schema, dict) and "$schema" not in schema:
                        schema = {"$schema": uri, **schema}
                    cases.append({"id": f"suite/{rel}#{i}", "schema": schema})
    return cases


def suite_files(d: Path):
    """As gcd-schema/tests/suite.rs picks them: the core files but
    format.json (which checks format is *not* asserted), every
    optional/format file (formats gcd does not support fail to compile and
    are counted so), and four optional files."""
    if not d.is_dir():
        return []
    out = [p for p in d.glob("*.json") if p.name != "format.json"]
    out += list((d / "optional" / "format").glob("*.json"))
    for name in ["ecmascript-regex", "non-bmp-regex", "bignum", "unknownKeyword"]:
        p = d / "optional" / f"{name}.json"
        if p.exists():
            out.append(p)
    return sorted(out)


def stable_int(*parts) -> int:
    h = hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(h[:8], "big")


# ---------------------------------------------------------------------------
# gcd


class Gcd:
    """gcd's side: grammars over a byte-level vocabulary, texts checked with
    advance_bytes. Imported lazily so that --help works without gcd."""

    def __init__(self):
        import gcd

        self.gcd = gcd
        self.vocab = gcd.Vocabulary.from_tokens(
            [bytes([b]) for b in range(256)] + [b"<eos>"], eos_ids=[256]
        )

    def compile(self, schema, any_order: bool):
        """A grammar, or ("refused", message) for a SchemaError, or
        ("crash", message) for anything else."""
        try:
            return self.gcd.Grammar.from_json_schema(
                schema, self.vocab, whitespace="json", any_order=any_order
            )
        except self.gcd.SchemaError as e:
            return ("refused", str(e))
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as e:  # pyo3's PanicException is a BaseException
            return ("crash", f"{type(e).__name__}: {e}")

    def check(self, grammar, data: bytes):
        """(accepted, detail, offset): accepted is None when gcd crashed;
        offset is the first byte no sentence continues with, len(data)
        when every byte was taken but the output cannot end there."""
        m = grammar.matcher()
        try:
            m.advance_bytes(data)
        except self.gcd.MatchError:
            at = self._first_bad(grammar, data)
            return False, f"refused at byte {at}", at
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as e:
            return None, f"crash: {type(e).__name__}: {e}", None
        if not m.is_complete():
            return False, "incomplete at the end", len(data)
        return True, "", None

    def _first_bad(self, grammar, data: bytes) -> int:
        """Offset of the first byte the grammar refuses (prefixes are
        closed: a viable prefix's prefixes are viable)."""
        lo, hi = 0, len(data)  # data[:lo] viable, data[:hi] not
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if grammar.matcher().accepts_bytes(data[:mid]):
                lo = mid
            else:
                hi = mid
        return lo


# ---------------------------------------------------------------------------
# Validators


class Validators:
    """Both validators for one schema; an instance counts as valid when both
    accept it, invalid when both reject it, and is left out otherwise."""

    def __init__(self, schema):
        import jsonschema
        import jsonschema_rs

        cls = jsonschema.validators.validator_for(
            schema, default=jsonschema.Draft202012Validator
        )
        rs = {
            jsonschema.Draft4Validator: jsonschema_rs.Draft4Validator,
            jsonschema.Draft6Validator: jsonschema_rs.Draft6Validator,
            jsonschema.Draft7Validator: jsonschema_rs.Draft7Validator,
            jsonschema.Draft201909Validator: jsonschema_rs.Draft201909Validator,
            jsonschema.Draft202012Validator: jsonschema_rs.Draft202012Validator,
        }.get(cls)
        if rs is None:
            raise ValueError(f"no jsonschema_rs validator for {cls.__name__}")
        self.draft2020 = cls is jsonschema.Draft202012Validator
        self.py = cls(schema, format_checker=cls.FORMAT_CHECKER)
        self.rs = rs(schema, validate_formats=True, offline=True)

    def verdict(self, instance):
        """True (both accept), False (both reject), "disagree", or "error"."""
        try:
            a = self.py.is_valid(instance)
        except Exception:
            return "error"
        try:
            b = self.rs.is_valid(instance)
        except Exception:
            return "error"
        return a if a == b else "disagree"


# ---------------------------------------------------------------------------
# Generation with hypothesis-jsonschema


class GenTimeout(BaseException):
    """Raised by SIGALRM: a BaseException, so hypothesis does not take it
    for a failing test and passes it straight through."""


def _alarm(signum, frame):
    raise GenTimeout()


def custom_formats():
    """Strategies for the formats gcd enforces that hypothesis-jsonschema
    does not know (it generates plain text for them, which the validators
    then reject): uuid and duration."""
    import jsonschema
    from hypothesis import strategies as st

    checker = jsonschema.Draft202012Validator.FORMAT_CHECKER
    n = st.integers(0, 999).map(str)
    opt = st.one_of(st.none(), n)

    def duration(p):
        y, mo, d, h, mi, s, w = p
        if w is not None:
            return f"P{w}W"
        date = "".join(f"{v}{u}" for v, u in [(y, "Y"), (mo, "M"), (d, "D")] if v)
        tm = "".join(f"{v}{u}" for v, u in [(h, "H"), (mi, "M"), (s, "S")] if v)
        return "P" + date + ("T" + tm if tm else "")

    durations = (
        st.tuples(opt, opt, opt, opt, opt, opt, st.one_of(st.none(), st.none(), n))
        .map(duration)
        .filter(lambda x: x not in ("P", "PT") and checker.conforms(x, "duration"))
    )
    return {"uuid": st.uuids().map(str), "duration": durations}


def generate(schema, n: int, seed: int, time_limit: float):
    """(instances, skip_reason or None, timed_out): up to n distinct
    instances, deterministic for a seed while the time bound is not hit."""
    from hypothesis import HealthCheck, Phase, Verbosity, given, settings
    from hypothesis import seed as hseed
    from hypothesis_jsonschema import from_schema

    out, seen = [], set()
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, time_limit)
    try:
        # A copy: hypothesis-jsonschema rewrites the schema it is given in
        # place (resolving $refs), which the validators and the
        # schema-order check still read.
        strategy = from_schema(copy.deepcopy(schema), custom_formats=custom_formats())

        @hseed(seed)
        @settings(
            max_examples=n,
            database=None,
            deadline=None,
            derandomize=False,
            phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
            verbosity=Verbosity.quiet,
            print_blob=False,
            report_multiple_bugs=False,
        )
        @given(strategy)
        def collect(x):
            key = json.dumps(x, ensure_ascii=False)
            if key not in seen:
                seen.add(key)
                out.append(x)

        collect()
        return out, None, False
    except GenTimeout:
        return out, (None if out else "timeout"), True
    except Exception as e:  # hypothesis re-raises what the strategy raised
        return out, (None if out else skip_reason(e)), False
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def skip_reason(e: Exception) -> str:
    name, msg = type(e).__name__, str(e).lower()
    if "recursive" in msg:
        return "recursive $ref"
    if name == "Unsatisfiable" or "unable to satisfy" in msg or "nothing" in msg:
        return "nothing generated (unsatisfiable to hypothesis)"
    if name in ("InvalidArgument", "NotImplementedError") and "format" in msg:
        return "unsupported format"
    if name in ("InvalidArgument", "NotImplementedError"):
        return "unsupported schema (InvalidArgument)"
    if "schemaerror" in name.lower() or name == "SchemaError":
        return "schema invalid for hypothesis-jsonschema"
    if name in ("RefResolutionError", "Unresolvable", "PointerToNowhere"):
        return "unresolvable $ref"
    if name == "FailedHealthCheck":
        return "health check"
    return f"error: {name}"


# ---------------------------------------------------------------------------
# Serializations and their variants


def serialize(value, opts) -> str:
    return json.dumps(value, allow_nan=False, **opts)


def _replace_floats(value, fmt):
    """json.dumps(value) with each float written as fmt(f): floats become
    unique marker strings, replaced in the text afterwards."""
    table = {}

    def walk(v):
        if isinstance(v, float):
            key = f"\u2063F{len(table)}\u2063"
            table[key] = fmt(v)
            return key
        if isinstance(v, list):
            return [walk(x) for x in v]
        if isinstance(v, dict):
            return {k: walk(x) for k, x in v.items()}
        return v

    return walk(value), table


def serialize_floats(value, opts, fmt) -> str:
    v, table = _replace_floats(value, fmt)
    text = json.dumps(v, **opts)
    for key, s in table.items():
        text = text.replace(json.dumps(key, ensure_ascii=opts.get("ensure_ascii", True)), s)
    return text


def render(value, opts, raw: bool, plain: bool, ints: bool) -> str:
    """value serialized with opts, where raw spells non-ASCII as UTF-8,
    plain writes floats without an exponent, ints writes integral floats
    as integers."""
    if raw:
        opts = {**opts, "ensure_ascii": False}
    if not (plain or ints):
        return serialize(value, opts)

    def fmt(f):
        if ints and f.is_integer():
            return str(int(f))
        return plain_decimal(f) if plain else repr(f)

    return serialize_floats(value, opts, fmt)


def plain_decimal(f: float) -> str:
    """A float without an exponent: 1e-05 -> 0.00001."""
    return format(decimal.Decimal(repr(f)), "f")


def int_if_integral(f: float) -> str:
    return str(int(f)) if f.is_integer() else repr(f)


def has_exponent(value) -> bool:
    if isinstance(value, float):
        return "e" in repr(value)
    if isinstance(value, list):
        return any(has_exponent(x) for x in value)
    if isinstance(value, dict):
        return any(has_exponent(x) for x in value.values())
    return False


def has_integral_float(value) -> bool:
    if isinstance(value, float):
        return value.is_integer()
    if isinstance(value, list):
        return any(has_integral_float(x) for x in value)
    if isinstance(value, dict):
        return any(has_integral_float(x) for x in value.values())
    return False


def mentions(schema, keywords) -> bool:
    if isinstance(schema, dict):
        return any(k in schema for k in keywords) or any(
            mentions(v, keywords) for v in schema.values()
        )
    if isinstance(schema, list):
        return any(mentions(v, keywords) for v in schema)
    return False


# ---------------------------------------------------------------------------
# Schema order: which instances clearly fall inside PropertyOrder::Schema.
#
# gcd-schema's docs (lib.rs, options.rs): declared properties first, in
# `properties` order, then `required` names not declared (in `required`
# order), then any other keys; no key twice; where allOf, $ref beside
# keywords or a union branch adds properties, the order depends on where
# that keyword is written. We only vouch for the plain cases: every object
# with two or more members sits under a schema reached through `properties`,
# `additionalProperties`, `items`/`prefixItems`/`additionalItems`, a `$ref`
# standing alone (in drafts 6-7 its siblings are ignored anyway), or the one
# `anyOf`/`oneOf` branch that can hold its JSON type; any other keyword that
# can shape objects (allOf, patternProperties, dependencies, if, not, enum,
# const, ...) puts the instance outside what we check.

REF_SIBLINGS_THAT_MERGE = {
    "type", "enum", "const", "properties", "required", "additionalProperties",
    "patternProperties", "propertyNames", "minProperties", "maxProperties",
    "dependencies", "dependentRequired", "dependentSchemas", "items",
    "prefixItems", "additionalItems", "minItems", "maxItems", "uniqueItems",
    "contains", "unevaluatedItems", "unevaluatedProperties", "allOf", "anyOf",
    "oneOf", "not", "if", "then", "else", "$dynamicRef", "$recursiveRef",
}  # fmt: skip
OBJECT_SHAPING = {
    "allOf", "not", "if", "then", "else", "dependencies", "dependentRequired",
    "dependentSchemas", "patternProperties", "unevaluatedProperties",
    "unevaluatedItems", "propertyNames", "enum", "const", "$dynamicRef",
    "$recursiveRef", "contains",
}  # fmt: skip
OBJECT_KEYWORDS = {
    "properties", "required", "additionalProperties", "patternProperties",
    "minProperties", "maxProperties", "propertyNames",
}  # fmt: skip


def _pointer(root, frag: str):
    if frag == "":
        return root
    if not frag.startswith("/"):
        return None  # an anchor
    node = root
    for part in frag[1:].split("/"):
        part = urllib.parse.unquote(part).replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def _has_nested_id(s, depth=0) -> bool:
    if isinstance(s, dict):
        if depth > 0 and isinstance(s.get("$id"), str):
            return True
        return any(_has_nested_id(v, depth + 1) for v in s.values())
    if isinstance(s, list):
        return any(_has_nested_id(v, depth + 1) for v in s)
    return False


def _multikey(v) -> bool:
    if isinstance(v, dict):
        return len(v) > 1 or any(_multikey(x) for x in v.values())
    if isinstance(v, list):
        return any(_multikey(x) for x in v)
    return False


def _json_type(v) -> str:
    if isinstance(v, bool):
        return "boolean"
    if v is None:
        return "null"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    return "array" if isinstance(v, list) else "object"


class SchemaOrder:
    def __init__(self, root, draft2020: bool, draft_le7: bool):
        self.root = root
        self.draft2020 = draft2020
        self.draft_le7 = draft_le7
        self.nested_id = _has_nested_id(root)

    def resolve(self, s, depth=0):
        while isinstance(s, dict) and "$ref" in s:
            ref = s["$ref"]
            if depth > 32 or not isinstance(ref, str) or not ref.startswith("#"):
                return None
            if not self.draft_le7 and set(s) & REF_SIBLINGS_THAT_MERGE:
                return None
            s = _pointer(self.root, ref[1:])
            depth += 1
        return s

    def holds(self, instance) -> bool:
        """Whether every object's members come in the order
        PropertyOrder::Schema certainly accepts."""
        if not _multikey(instance):
            return True
        if self.nested_id:
            return False
        return self._ok(self.root, instance, 0)

    def _could_hold(self, branch, t) -> bool:
        b = self.resolve(branch)
        if b is None:
            return True  # unknown: counts as a candidate (so: ambiguous)
        if b is False:
            return False
        if not isinstance(b, dict) or "type" not in b:
            return True
        types = b["type"] if isinstance(b["type"], list) else [b["type"]]
        return t in types or (t == "integer" and "number" in types)

    def _ok(self, s, v, depth) -> bool:
        if not _multikey(v):
            return True
        if depth > 64:
            return False
        s = self.resolve(s)
        if s is True or (isinstance(s, dict) and not s):
            return True  # unconstrained: every key is an extra key
        if not isinstance(s, dict):
            return False
        unions = [k for k in ("anyOf", "oneOf") if k in s]
        if unions:
            if len(unions) > 1 or set(s) & (OBJECT_KEYWORDS | OBJECT_SHAPING):
                return False
            if "items" in s or "prefixItems" in s or "additionalItems" in s:
                return False
            t = _json_type(v)
            cands = [b for b in s[unions[0]] if self._could_hold(b, t)]
            return len(cands) == 1 and self._ok(cands[0], v, depth + 1)
        if set(s) & OBJECT_SHAPING:
            return False
        if isinstance(v, dict):
            props = s.get("properties", {})
            if not isinstance(props, dict):
                return False
            index = {k: i for i, k in enumerate(props)}
            keys = list(v)
            i, last = 0, -1
            while i < len(keys) and keys[i] in index:
                if index[keys[i]] < last:
                    return False
                last = index[keys[i]]
                i += 1
            rest = keys[i:]
            if any(k in index for k in rest):
                return False
            req = s.get("required", [])
            undeclared = []
            for r in req if isinstance(req, list) else []:
                if isinstance(r, str) and r not in index and r not in undeclared:
                    undeclared.append(r)
            if rest[: len(undeclared)] != undeclared:
                return False
            extra = s.get("additionalProperties", True)
            return all(
                self._ok(props[k] if k in index else extra, x, depth + 1)
                for k, x in v.items()
            )
        if isinstance(v, list):
            if self.draft2020:
                prefix = s.get("prefixItems", [])
                rest = s.get("items", True)
            else:
                items = s.get("items", True)
                if isinstance(items, list):
                    prefix, rest = items, s.get("additionalItems", True)
                else:
                    prefix, rest = [], items
            if not isinstance(prefix, list):
                return False
            return all(
                self._ok(prefix[i] if i < len(prefix) else rest, x, depth + 1)
                for i, x in enumerate(v)
            )
        return True


# ---------------------------------------------------------------------------
# Mutations


def _paths(v, path=()):
    yield path, v
    if isinstance(v, list):
        for i, x in enumerate(v):
            yield from _paths(x, path + (i,))
    elif isinstance(v, dict):
        for k, x in v.items():
            yield from _paths(x, path + (k,))


def _replace(v, path, new):
    """A copy of v with the node at path replaced (new is None-able: use
    the _DROP marker to delete a member)."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(v, list):
        out = list(v)
        out[head] = _replace(v[head], rest, new)
        return out
    out = {}
    for k, x in v.items():
        if k == head:
            if rest or new is not _DROP:
                out[k] = _replace(x, rest, new)
        else:
            out[k] = x
    return out


_DROP = object()
_UNPARSED = object()
SWAP_POOL = [0, 1.5, "s", True, None, [], {}]
INSERT_CHARS = list('{}[],:"\\ x0-.e') + ["\n", "é"]


def _changed(x, rng):
    if isinstance(x, bool):
        return not x
    if isinstance(x, int):
        return rng.choice([x + 1, x - 1, -x - 1, x * 10 + 7, 2**53 + 1])
    if isinstance(x, float):
        return rng.choice([x * 2 + 0.5, -x - 0.25, x + 1e-3])
    if isinstance(x, str):
        return rng.choice([x + "x", x[:-1], "", x + "0", "é" + x, x + " "])
    if isinstance(x, list):
        return x[:-1] if x and rng.random() < 0.5 else x + [x[0] if x else 0]
    return None  # objects and null: no same-type change


def mutations(instance, compact: str, rng):
    """One mutant of each kind: (kind, value or _UNPARSED, text)."""
    nodes = list(_paths(instance))
    objects = [(p, x) for p, x in nodes if isinstance(x, dict)]
    out = []
    # a changed value
    cands = [(p, x) for p, x in nodes if _changed(x, random.Random(0)) is not None]
    if cands:
        p, x = rng.choice(cands)
        out.append(("change", _replace(instance, p, _changed(x, rng))))
    # a dropped key
    members = [(p + (k,)) for p, x in objects for k in x]
    if members:
        out.append(("drop-key", _replace(instance, rng.choice(members), _DROP)))
    # an extra key
    if objects:
        p, x = rng.choice(objects)
        extra = {**x, rng.choice(["oracleExtra", "x", ""]): rng.choice(SWAP_POOL)}
        if len(extra) > len(x):
            out.append(("extra-key", _replace(instance, p, extra)))
    # a type swap
    p, x = rng.choice(nodes)
    others = [y for y in SWAP_POOL if _json_type(y) != _json_type(x)]
    out.append(("type-swap", _replace(instance, p, rng.choice(others))))
    result = []
    for k, v in out:
        try:
            result.append((k, v, serialize(v, FORMS[0][1])))
        except ValueError:  # a float doubled past the largest finite one
            pass
    # a character inserted into the compact text (its value: parse it)
    at = rng.randrange(len(compact) + 1)
    result.append(("insert-char", _UNPARSED, compact[:at] + rng.choice(INSERT_CHARS) + compact[at:]))
    return result


class DuplicateKey(ValueError):
    pass


def _no_dups(pairs):
    d = {}
    for k, v in pairs:
        if k in d:
            raise DuplicateKey(k)
        d[k] = v
    return d


def _no_constant(name):
    raise ValueError(f"{name} is not JSON")


class InexactNumber(ValueError):
    pass


def _float_exact(lit: str) -> float:
    f = float(lit)
    if f != f or f in (float("inf"), float("-inf")) or decimal.Decimal(repr(f)) != decimal.Decimal(lit):
        raise InexactNumber(lit)
    return f


def parse_strict(text: str):
    """RFC 8259 JSON, or ValueError (Python's json also takes NaN and
    Infinity, which are not JSON); DuplicateKey for a repeated key;
    InexactNumber for a number whose value is not the double the
    validators would compare (1.10000000000000003 reads as 1.1, so they
    would judge another number than the text says; 1e999 as infinity)."""
    return json.loads(
        text, object_pairs_hook=_no_dups, parse_constant=_no_constant, parse_float=_float_exact
    )


# ---------------------------------------------------------------------------
# One schema


class Run:
    """Counters and disagreements of one schema (merged by the parent)."""

    def __init__(self, case_id, max_repros):
        self.case = case_id
        self.counts = collections.Counter()
        self.skips = collections.Counter()
        self.disagreements = collections.Counter()
        self.repros = []
        self.max_repros = max_repros
        self.per_cat = collections.Counter()

    def disagree(self, category, **repro):
        self.disagreements[category] += 1
        self.per_cat[category] += 1
        if self.per_cat[category] <= self.max_repros:
            self.repros.append({"category": category, "case": self.case, **repro})


def locate(text: str, off: int):
    """Where character offset off of a JSON text falls: (path, what,
    lexeme, start) with what "key", "string" (a string value), "number"
    or "other"."""
    stack = []  # [kind, key or index, expecting a key]
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            top = stack[-1] if stack else None
            is_key = top is not None and top[0] == "obj" and top[2]
            if i <= off <= j:
                path = tuple(e[1] for e in stack[:-1]) if is_key else tuple(e[1] for e in stack)
                return path, ("key" if is_key else "string"), text[i : j + 1], i
            if is_key:
                top[1], top[2] = json.loads(text[i : j + 1]), False
            i = j + 1
            continue
        if c in "-0123456789":
            j = i
            while j < n and text[j] in "+-.eE0123456789":
                j += 1
            if i <= off < j:
                return tuple(e[1] for e in stack), "number", text[i:j], i
            i = j
            continue
        if i >= off:  # a closing bracket: the container's path
            inner = stack[:-1] if c in "}]" else stack
            return tuple(e[1] for e in inner), "other", c, i
        if c == "{":
            stack.append(["obj", None, True])
        elif c == "[":
            stack.append(["arr", 0, False])
        elif c in "}]" and stack:
            stack.pop()
        elif c == "," and stack:
            if stack[-1][0] == "arr":
                stack[-1][1] += 1
            else:
                stack[-1][2] = True
        i += 1
    return tuple(e[1] for e in stack), "other", "", off


def _in_unicode_escape(lexeme: str, rel: int) -> bool:
    """Whether a string lexeme has, at or before its position rel, a
    \\uXXXX escape of a character that has a raw spelling (not a control
    character): where a spelling restriction can refuse it (at the escape,
    or at the closing quote when only then the key turns out to be one
    whose spellings are restricted)."""
    j = 1
    while j < len(lexeme) - 1 and j <= rel:
        if lexeme[j] != "\\":
            j += 1
        elif lexeme[j + 1] != "u":
            j += 2
        else:
            if int(lexeme[j + 2 : j + 6], 16) >= 0x20:
                return True
            j += 6
    return False


def _expand(root, s):
    """s and the subschemas that apply at the same location ($ref, allOf,
    anyOf, oneOf, then, else, dependent schemas): an over-approximation."""
    out, stack, seen = [], [s], set()
    while stack:
        x = stack.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        out.append(x)
        if not isinstance(x, dict):
            continue
        ref = x.get("$ref")
        if isinstance(ref, str) and ref.startswith("#"):
            t = _pointer(root, ref[1:])
            if t is not None:
                stack.append(t)
        for kw in ("allOf", "anyOf", "oneOf"):
            if isinstance(x.get(kw), list):
                stack.extend(x[kw])
        for kw in ("then", "else"):
            if kw in x:
                stack.append(x[kw])
        for kw in ("dependentSchemas", "dependencies"):
            if isinstance(x.get(kw), dict):
                stack.extend(v for v in x[kw].values() if isinstance(v, (dict, bool)))
    return out


def schemas_at(root, path):
    """Every subschema that may apply at path (keys and array indices)."""
    import re

    cur = _expand(root, root)
    for step in path:
        nxt = []
        for s in cur:
            if not isinstance(s, dict):
                continue
            if isinstance(step, int):
                prefix = s.get("prefixItems")
                items = s.get("items")
                rest = items
                if isinstance(items, list):
                    prefix, rest = items, s.get("additionalItems")
                if isinstance(prefix, list) and step < len(prefix):
                    nxt.append(prefix[step])
                elif rest is not None:
                    nxt.append(rest)
            else:
                props = s.get("properties")
                matched = False
                if isinstance(props, dict) and step in props:
                    nxt.append(props[step])
                    matched = True
                for pat, sub in (s.get("patternProperties") or {}).items():
                    try:
                        hit = re.search(pat, step) is not None
                    except re.error:
                        hit = True
                    if hit:
                        nxt.append(sub)
                        matched = True
                if not matched and "additionalProperties" in s:
                    nxt.append(s["additionalProperties"])
        cur = [y for x in nxt for y in _expand(root, x)]
    return [x for x in cur if isinstance(x, dict)]


STRING_CONSTRAINTS = ("pattern", "format", "enum", "const", "minLength", "maxLength")
KEY_CONSTRAINTS = (
    "properties", "patternProperties", "propertyNames", "required",
    "dependentRequired", "dependentSchemas", "dependencies",
)  # fmt: skip


HOSTNAME_SLOTS = (63, 63, 63, 24, 12, 8, 6, 4)


def _domain_gap(labels, slots) -> bool:
    """Outside the hostname subset format.rs documents: more labels than
    slots, a label longer than its slot, a last label not starting with a
    letter, or "--" in a label's 3rd-4th position."""
    if slots and len(labels) > len(slots):
        return True
    for i, lab in enumerate(labels):
        if len(lab) > (slots[i] if slots else 63) or lab[2:4] == "--":
            return True
    return not (labels and labels[-1][:1].isascii() and labels[-1][:1].isalpha())


def format_gap(fmt: str, s: str, legacy: bool) -> bool:
    """Whether a valid string of this format lies in what gcd's format
    table (gcd-schema/src/format.rs, lib.rs) says it refuses, by the
    documented rules alone (not gcd's regexes)."""
    import re

    if fmt == "hostname":
        labels = s.split(".")
        if legacy and any(not (lab[:1].isascii() and lab[:1].isalpha()) for lab in labels):
            return False  # RFC 1034 wants that anyway: no documented gap
        return len(s) > 250 or _domain_gap(labels, HOSTNAME_SLOTS)
    if fmt == "email":
        domain = s.rsplit("@", 1)[-1]
        if domain.startswith("["):
            return not (re.fullmatch(r"\[[0-9.]+\]", domain) or domain.startswith("[IPv6:"))
        return _domain_gap(domain.split("."), None)
    if fmt == "duration":
        return s != s.upper()
    if fmt == "uri-template":
        return re.search(r"\{[=,!@|]", s) is not None
    if fmt == "relative-json-pointer":
        return re.match(r"[0-9]+[+-]", s) is not None
    if fmt in ("time", "date-time"):
        return re.search(r":60(\.[0-9]+)?([zZ]|[+-]00:00)$", s) is None and ":60" in s
    return False


# ECMA-262's classes, which Python's re (and the validators) read
# differently: \s without U+001C-U+001F and U+0085 but with U+FEFF, \d and
# \w ASCII only, `.` refusing all four line terminators, `$` the end only.
ECMA_SPACE = "\t\n\x0b\x0c\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
ECMA_IN_CLASS = {"s": ECMA_SPACE, "d": "0-9", "w": "A-Za-z0-9_"}
ECMA_OUTSIDE = {
    "s": f"[{ECMA_SPACE}]", "S": f"[^{ECMA_SPACE}]", "d": "[0-9]", "D": "[^0-9]",
    "w": "[A-Za-z0-9_]", "W": "[^A-Za-z0-9_]",
}  # fmt: skip


def ecma_rejects(pattern: str, s: str) -> bool:
    """Whether ECMA-262 rejects s for pattern where Python's re accepts it
    only because of how they read `.`, `$`, \\s, \\d or \\w: the pattern
    with those spelled as ECMA's, searched with re. False when unsure."""
    import re

    out, i, in_class = [], 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            e = pattern[i + 1]
            if in_class and e in ECMA_IN_CLASS:
                out.append(ECMA_IN_CLASS[e])
            elif in_class and e in "SDW":
                return False  # a negated class inside a class: not inlined
            elif not in_class and e in ECMA_OUTSIDE:
                out.append(ECMA_OUTSIDE[e])
            else:
                out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if pattern[i + 1 : i + 2] == "]":  # ECMA's [] and []...]: leave
                return False
        elif c == ".":
            c = "[^\n\r\u2028\u2029]"
        elif c == "$":
            c = "\\Z"
        out.append(c)
        i += 1
    try:
        return re.search(pattern, s) is not None and re.search("".join(out), s) is None
    except re.error:
        return False


def _cause(root, text, off, what, lexeme, start, path, done):
    """Which documented restriction explains a refusal at character
    offset off, checked where it happened; None if none does."""
    cands = schemas_at(root, path)
    if what == "key":
        key = json.loads(lexeme)
        for c in cands:
            for pat in c.get("patternProperties") or {}:
                if ecma_rejects(pat, key):
                    return ECMA_REGEX, None
    if "raw" not in done and what in ("key", "string") and _in_unicode_escape(lexeme, off - start):
        if what == "string":
            constrained = any(k in c for c in cands for k in STRING_CONSTRAINTS)
        else:
            constrained = any(
                k in c for c in cands for k in KEY_CONSTRAINTS
            ) or any(c.get("additionalProperties") is False for c in cands)
        if constrained:
            return ESCAPE, "raw"
    if what == "string":
        value = json.loads(lexeme)
        for c in cands:
            if isinstance(c.get("pattern"), str) and ecma_rejects(c["pattern"], value):
                return ECMA_REGEX, None
        legacy = str(root.get("$schema", "")).rstrip("#").endswith(("draft-04/schema", "draft-06/schema")) if isinstance(root, dict) else False
        for c in cands:
            if isinstance(c.get("format"), str) and format_gap(c["format"], value, legacy):
                return FORMAT_SUBSET, None
    if what == "number":
        if "plain" not in done and "e" in lexeme.lower():
            if any(k in c for c in cands for k in BOUND_KEYWORDS):
                return EXPONENT, "plain"
        try:
            integral = ("." in lexeme or "e" in lexeme.lower()) and float(lexeme).is_integer()
        except ValueError:
            integral = False
        types = [c.get("type") for c in cands]
        if "ints" not in done and integral and any(
            t == "integer" or (isinstance(t, list) and "integer" in t and "number" not in t)
            for t in types
        ):
            return INTEGRAL_FLOAT, "ints"
    # In a union of object shapes, an escape that one branch refuses shows
    # only where the last other branch dies, at a later member (JSON
    # Patch: an escaped "from" leaves the branches without a "from"
    # pattern, and "op": "move" then ends them). The respelling decides.
    if "raw" not in done and _escape_before(text, off) and _union_above(root, path):
        return ESCAPE, "raw"
    return None


def _escape_before(text: str, off: int) -> bool:
    """Whether text has, before character offset off, a \\uXXXX escape of
    a character with a raw spelling."""
    for m in re.finditer(r"(?<!\\)(?:\\\\)*\\u([0-9a-fA-F]{4})", text[:off]):
        if int(m.group(1), 16) >= 0x20:
            return True
    return False


def _union_above(root, path) -> bool:
    """Whether an anyOf or oneOf applies at path or at a container above it."""
    return any(
        kw in c for i in range(len(path) + 1) for c in schemas_at(root, path[:i]) for kw in ("anyOf", "oneOf")
    )


def check_valid(run, g: Gcd, grammar, mode, schema, instance, form, opts):
    """A valid instance serialized with opts must be accepted. A refusal
    is filed under a documented restriction only when the restriction
    explains it where it happened (a \\u escape in a constrained string or
    key, an exponent under numeric bounds, an integral float where an
    integer is required) and the text, spelled without it, is accepted
    (up to three restrictions fixed in turn); else it is a disagreement."""
    text = serialize(instance, opts)
    ok, detail, at = g.check(grammar, text.encode("utf-8"))
    run.counts[f"serializations checked ({mode})"] += 1
    if ok:
        return
    if ok is None:
        run.disagree(GCD_CRASH, mode=mode, form=form, text=text, detail=detail)
        return
    done, causes, cur, notes = set(), [], text, []
    while True:
        data = cur.encode("utf-8")
        off = len(data[:at].decode("utf-8", "ignore"))
        path, what, lexeme, start = locate(cur, off)
        where = f"at /{'/'.join(map(str, path))}: {what} {lexeme[:60]}"
        cause = _cause(schema, cur, off, what, lexeme, start, path, done)
        if cause is None:
            notes.append(f"refused {where}")
            category = VALID_ANY if mode == ANY else VALID_SCHEMA
            break
        causes.append(cause[0])
        notes.append(f"{cause[0]} {where}")
        if cause[1] is None:  # no respelling clears it: filed as it is
            category = causes[0]
            break
        done.add(cause[1])
        cur = render(instance, opts, "raw" in done, "plain" in done, "ints" in done)
        ok, _, at = g.check(grammar, cur.encode("utf-8"))
        if ok:
            category = causes[0]
            fixes = {"raw": "raw UTF-8", "plain": "plain decimals", "ints": "integral floats as integers"}
            notes.append("accepted once respelled with " + ", ".join(fixes[d] for d in sorted(done)))
            break
        if ok is None:
            category = GCD_CRASH
            break
    run.disagree(category, mode=mode, form=form, text=text, detail=detail, note="; ".join(notes))


def check_invalid(run, g: Gcd, grammar, mode, kind, text, why):
    ok, detail, _ = g.check(grammar, text.encode("utf-8"))
    run.counts[f"mutations checked ({mode})"] += 1
    if ok is False:
        return
    if ok is None:
        run.disagree(GCD_CRASH, mode=mode, form=kind, text=text, detail=detail)
        return
    category = INVALID_ANY if mode == ANY else INVALID_SCHEMA
    run.disagree(category, mode=mode, form=kind, text=text, detail=why)


INSTANCE_VERDICTS = {
    False: "instances invalid (both validators)",
    "disagree": "instances: validators disagree",
    "error": "instances: validator error",
}


def process(case, cfg, g: Gcd, phase=lambda p: None):
    """Everything about one schema: compile, generate, check."""
    run = Run(case["id"], cfg["max_repros"])
    schema = case["schema"]
    run.counts["schemas seen"] += 1

    phase("compile")
    grammars = {}
    for mode in (ANY, SCHEMA):
        r = g.compile(schema, any_order=(mode == ANY))
        if isinstance(r, tuple):
            if r[0] == "crash":
                run.disagree(GCD_CRASH, mode=mode, form="compile", text="", detail=r[1])
            continue
        grammars[mode] = r
        run.counts[f"compiled by gcd ({mode})"] += 1
    if not grammars:
        run.counts["not compiled by gcd"] += 1
        return result(run, schema)
    run.counts["compiled by gcd (either mode)"] += 1

    phase("validators")
    warnings.simplefilter("ignore")
    try:
        validators = Validators(schema)
    except Exception as e:
        run.skips[f"validators: {type(e).__name__}"] += 1
        return result(run, schema)
    import jsonschema

    draft_le7 = validators.py.__class__ in (
        jsonschema.Draft4Validator,
        jsonschema.Draft6Validator,
        jsonschema.Draft7Validator,
    )
    order = SchemaOrder(schema, validators.draft2020, draft_le7)

    phase("generate")
    seed = stable_int(cfg["seed"], case["id"]) % (2**32)
    instances, reason, timed_out = generate(
        schema, cfg["instances"], seed, cfg["time_per_schema"]
    )
    if timed_out:
        run.counts["generation hit the time bound"] += 1
        run.restart = True  # hypothesis was interrupted mid-run
    if reason:
        run.skips[reason] += 1
        return result(run, schema)
    run.counts["instances generated"] += len(instances)

    phase("check")
    rng = random.Random(seed)
    kept = 0
    for inst in instances:
        v = validators.verdict(inst)
        if v is not True:
            run.counts[INSTANCE_VERDICTS[v]] += 1
            continue
        try:
            compact = serialize(inst, FORMS[0][1])
            compact.encode("utf-8")
        except (ValueError, UnicodeEncodeError):
            run.counts["instances: not serializable"] += 1
            continue
        kept += 1
        run.counts["instances kept"] += 1
        in_order = order.holds(inst)
        if in_order:
            run.counts["instances in schema order"] += 1
        for mode, grammar in grammars.items():
            if mode == SCHEMA and not in_order:
                continue
            for form, opts in FORMS:
                check_valid(run, g, grammar, mode, schema, inst, form, opts)
        for kind, value, text in mutations(inst, compact, rng):
            run.counts["mutations made"] += 1
            if value is _UNPARSED:
                try:
                    value = parse_strict(text)
                except DuplicateKey:
                    run.counts["mutations: duplicate key (left out)"] += 1
                    continue
                except InexactNumber:
                    run.counts["mutations: number no double spells exactly (left out)"] += 1
                    continue
                except ValueError:
                    pass  # not JSON: must be refused
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                run.counts["mutations: not encodable"] += 1
                continue
            if value is _UNPARSED:
                verdict, why = False, f"{kind}: not JSON"
            else:
                verdict, why = validators.verdict(value), f"{kind}: both validators reject"
            if verdict is True:
                run.counts["mutations: still valid (left out)"] += 1
                continue
            if verdict != False:
                run.counts[f"mutations: validators {verdict} (left out)"] += 1
                continue
            run.counts["mutations must-refuse"] += 1
            for mode, grammar in grammars.items():
                check_invalid(run, g, grammar, mode, kind, text, why)
    if kept == 0:
        run.skips["no instance both validators accept"] += 1
    else:
        run.counts["schemas with kept instances"] += 1
    return result(run, schema)


def result(run, schema):
    return {
        "counts": dict(run.counts),
        "skips": dict(run.skips),
        "disagreements": dict(run.disagreements),
        "repros": run.repros,
        "schema": schema if run.repros else None,
        "restart": getattr(run, "restart", False),
    }


# ---------------------------------------------------------------------------
# Workers: one schema at a time each, killed past a hard time bound.


def worker_main(conn, cfg):
    warnings.simplefilter("ignore")
    g = Gcd()
    while True:
        msg = conn.recv()
        if msg is None:
            return
        idx, case = msg
        t0 = time.monotonic()
        try:
            res = process(case, cfg, g, phase=lambda p: conn.send(("phase", idx, p)))
        except BaseException as e:  # a bug of ours: report it, do not hide it
            res = {
                "counts": {"schemas seen": 1},
                "skips": {},
                "disagreements": {},
                "repros": [],
                "schema": None,
                "restart": True,
                "oracle_error": f"{type(e).__name__}: {e}\n{traceback.format_exc()}",
            }
        res["elapsed_s"] = round(time.monotonic() - t0, 2)
        conn.send(("done", idx, res))
        if res.get("restart"):
            return


class Pool:
    def __init__(self, jobs, cfg):
        self.ctx = multiprocessing.get_context("fork")
        self.cfg = cfg
        self.slots = [self._spawn() for _ in range(jobs)]

    def _spawn(self):
        parent, child = self.ctx.Pipe()
        p = self.ctx.Process(target=worker_main, args=(child, self.cfg), daemon=True)
        p.start()
        child.close()
        return {"proc": p, "conn": parent, "job": None, "start": 0.0, "phase": ""}

    def run(self, cases, on_result, deadline=None):
        """Runs every case (in order) unless the deadline (monotonic time)
        passes: then no new case starts. Returns the number not started."""
        todo = list(enumerate(cases))[::-1]
        hard = self.cfg["hard_timeout"]
        not_started = 0
        while todo or any(s["job"] is not None for s in self.slots):
            if deadline is not None and time.monotonic() > deadline and todo:
                not_started = len(todo)
                todo.clear()
            for i, s in enumerate(self.slots):
                if s["job"] is None and todo:
                    if not s["proc"].is_alive():
                        s = self.slots[i] = self._spawn()
                    idx, case = todo.pop()
                    s["job"], s["start"], s["phase"] = idx, time.monotonic(), "sent"
                    s["conn"].send((idx, case))
            conns = [s["conn"] for s in self.slots if s["job"] is not None]
            ready = multiprocessing.connection.wait(conns, timeout=1.0)
            for i, s in enumerate(self.slots):
                if s["job"] is None:
                    continue
                if s["conn"] in ready:
                    try:
                        kind, idx, payload = s["conn"].recv()
                    except (EOFError, OSError):
                        on_result(cases[s["job"]], died(s, "worker died"))
                        self._replace(i)
                        continue
                    if kind == "phase":
                        s["phase"] = payload
                    else:
                        on_result(cases[idx], payload)
                        s["job"] = None
                        if payload.get("restart"):
                            s["proc"].join(5)
                            self._replace(i)
                elif time.monotonic() - s["start"] > hard:
                    on_result(cases[s["job"]], died(s, "killed past the hard time bound"))
                    self._replace(i)
        return not_started

    def _replace(self, i):
        s = self.slots[i]
        if s["proc"].is_alive():
            s["proc"].kill()
        s["proc"].join()
        s["conn"].close()
        self.slots[i] = self._spawn()

    def close(self):
        for s in self.slots:
            try:
                s["conn"].send(None)
            except OSError:
                pass
            s["proc"].join(5)
            if s["proc"].is_alive():
                s["proc"].kill()


def died(slot, why):
    phase = slot["phase"]
    counts = {"schemas seen": 1}
    if phase not in ("sent", "compile"):
        counts["compiled by gcd (either mode)"] = 1
    return {
        "counts": counts,
        "skips": {f"{why} (during {phase})": 1},
        "disagreements": {},
        "repros": [],
        "schema": None,
    }


# ---------------------------------------------------------------------------
# Self-check: the machinery must flag known refusals.


def self_check(g: Gcd) -> list:
    """Checks, on tiny schemas with deliberately wrong expectations, that a
    refused "valid" text, an accepted "invalid" text and an out-of-order
    instance are each flagged, and that true expectations are not.
    Returns the failures (empty when the machinery works)."""
    failures = []

    def expect(cond, what):
        if not cond:
            failures.append(what)

    def grammar(schema, any_order=True):
        gr = g.compile(schema, any_order)
        expect(not isinstance(gr, tuple), f"gcd compiles {schema}: {gr}")
        return None if isinstance(gr, tuple) else gr

    # 1. A "valid" text gcd must refuse (1.5 is no integer): flagged.
    s1 = {"type": "integer"}
    gr = grammar(s1)
    if gr:
        run = Run("self-check/1", 5)
        check_valid(run, g, gr, ANY, s1, 1.5, "compact", FORMS[0][1])
        expect(run.disagreements[VALID_ANY] == 1, "a refused text is flagged as valid-refused")
        run = Run("self-check/1b", 5)
        check_valid(run, g, gr, ANY, s1, 7, "compact", FORMS[0][1])
        expect(not run.disagreements, "an accepted valid text is not flagged")
    # 2. An "invalid" text gcd must accept (any string is a string): flagged;
    #    a text it refuses is not.
    s2 = {"type": "string", "maxLength": 3}
    gr = grammar(s2)
    if gr:
        run = Run("self-check/2", 5)
        check_invalid(run, g, gr, ANY, "test", '"abc"', "deliberately wrong")
        expect(run.disagreements[INVALID_ANY] == 1, "an accepted text is flagged as invalid-accepted")
        run = Run("self-check/2b", 5)
        check_invalid(run, g, gr, ANY, "test", '"abcd"', "too long")
        check_invalid(run, g, gr, ANY, "test", '"ab', "not JSON")
        expect(not run.disagreements, "refused invalid texts are not flagged")
    # 3. Schema order: the predicate tells the orders apart, and an
    #    out-of-order instance forced through the schema-order grammar is
    #    flagged; an escaped key is filed under ESCAPE.
    s3 = {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "é": {"type": "integer"}},
        "required": ["a"],
    }
    order = SchemaOrder(s3, True, False)
    expect(order.holds({"a": 1, "é": 2}), "declared order is schema order")
    expect(not order.holds({"é": 2, "a": 1}), "reversed order is not schema order")
    expect(order.holds({"a": 1, "é": 2, "z": 3}), "extra keys after declared ones")
    expect(not order.holds({"z": 3, "a": 1}), "extra keys before declared ones")
    gr = grammar(s3, any_order=False)
    if gr:
        run = Run("self-check/3", 5)
        check_valid(run, g, gr, SCHEMA, s3, {"é": 2, "a": 1}, "compact", FORMS[0][1])
        expect(run.disagreements[VALID_SCHEMA] == 1, "an out-of-order instance is flagged")
        run = Run("self-check/3b", 5)
        check_valid(run, g, gr, SCHEMA, s3, {"a": 1, "é": 2}, "dumps", FORMS[1][1])
        expect(run.disagreements[ESCAPE] == 1, '"\\u00e9" as a declared key is filed under escapes')
    # 4. The mutation parser: not-JSON and duplicate keys are told apart.
    for bad in ['{"a":1,}', "NaN", "[1,2"]:
        try:
            parse_strict(bad)
            failures.append(f"{bad!r} parses as JSON")
        except DuplicateKey:
            failures.append(f"{bad!r} taken for a duplicate key")
        except ValueError:
            pass
    try:
        parse_strict('{"a":1,"a":2}')
        failures.append("a duplicate key goes unnoticed")
    except DuplicateKey:
        pass
    for inexact in ["1.10000000000000003", "1e999"]:
        try:
            parse_strict(inexact)
            failures.append(f"{inexact} taken as exact")
        except InexactNumber:
            pass
    expect(parse_strict("[1.1, 1e-05, 12]") == [1.1, 1e-05, 12], "exact numbers parse")
    expect(ecma_rejects("^[0-9].[0-9]$", "9\r9"), "ECMA's dot refuses \\r")
    expect(not ecma_rejects("^[0-9].[0-9]$", "9x9"), "ECMA's dot takes x")
    expect(not ecma_rejects("^[.\\r]$", "\r"), "a dot in a class is no dot")
    expect(ecma_rejects("^a\\s$", "a\x85"), "ECMA's \\s has no U+0085")
    expect(ecma_rejects("^a$", "a\n"), "ECMA's $ is the end")
    expect(ecma_rejects("^[\\d]+$", "\u0663"), "ECMA's \\d is ASCII")
    expect(not ecma_rejects("^[\\s,]+$", " ,"), "\\s in a class")
    expect(format_gap("hostname", "a.b.c.d.e.f.g.abcde", False), "hostname gap: 5 characters in the 8th label")
    expect(not format_gap("hostname", "example.com", False), "hostname: no gap")
    expect(serialize_floats({"x": [1e-05, 2.5]}, FORMS[0][1], plain_decimal) == '{"x":[0.00001,2.5]}', "plain decimals")
    return failures


# ---------------------------------------------------------------------------
# Main


def merge(total, res, case, repros, schemas):
    for k, v in res["counts"].items():
        total["counts"][k] += v
    for k, v in res["skips"].items():
        total["skips"][k] += v
    for k, v in res["disagreements"].items():
        total["disagreements"][k] += v
    if res.get("oracle_error"):
        total["oracle_errors"].append({"case": case["id"], "error": res["oracle_error"]})
    if res["repros"]:
        repros.extend(res["repros"])
        schemas[case["id"]] = res["schema"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default_data = os.environ.get("GCD_SHARED_DATA") or str(REPO.parent / "shared" / "data")
    ap.add_argument("--data", default=default_data, help="shared data folder (default: $GCD_SHARED_DATA or ../shared/data)")
    ap.add_argument("--sources", default="maskbench,suite", help="comma-separated: maskbench, suite")
    ap.add_argument("--sample", type=int, default=0, help="a seeded subset of K schemas (0: all)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--instances", type=int, default=20, help="hypothesis examples per schema")
    ap.add_argument("--time-per-schema", type=float, default=10.0, help="generation time bound per schema (s)")
    ap.add_argument("--hard-timeout", type=float, default=0, help="kill a schema's worker past this (s; default 4x the time bound + 60)")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes")
    ap.add_argument("--json", dest="json_out", help="write figures and reproductions here")
    ap.add_argument("--jsonl", help="append each schema's result here as it completes")
    ap.add_argument("--max-minutes", type=float, default=0, help="start no schema after this long (0: no bound); schemas run in a seeded random order, so those done are a random sample")
    ap.add_argument("--allow", action="append", default=[], choices=CATEGORIES, help="do not fail on this category (repeatable)")
    ap.add_argument("--max-repros", type=int, default=3, help="reproductions kept per schema and category")
    ap.add_argument("--show", type=int, default=4, help="reproductions printed per category")
    ap.add_argument("--only", action="append", default=[], help="only cases whose id contains this (repeatable)")
    ap.add_argument("--self-check", action="store_true", help="only run the self-check")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")

    g = Gcd()
    failures = self_check(g)
    if failures:
        print("self-check FAILED: the oracle's own machinery is broken:", file=sys.stderr)
        for f in failures:
            print("  -", f, file=sys.stderr)
        return 3
    print("self-check: ok (wrong expectations are flagged, right ones are not)")
    if args.self_check:
        return 0

    data = Path(args.data)
    if not data.is_dir():
        print(f"no shared data at {data}", file=sys.stderr)
        return 2
    sources = {s.strip() for s in args.sources.split(",") if s.strip()}
    cases = load_cases(data, sources)
    if args.only:
        cases = [c for c in cases if any(o in c["id"] for o in args.only)]
    if args.sample and args.sample < len(cases):
        cases = random.Random(args.seed).sample(cases, args.sample)
    else:
        random.Random(args.seed).shuffle(cases)
    cfg = {
        "seed": args.seed,
        "instances": args.instances,
        "time_per_schema": args.time_per_schema,
        "hard_timeout": args.hard_timeout or 4 * args.time_per_schema + 60,
        "max_repros": args.max_repros,
    }
    print(
        f"oracle: {len(cases)} schemas from {data} ({', '.join(sorted(sources))}), "
        f"seed {args.seed}, {args.instances} instances each, "
        f"{args.time_per_schema:g}s generation bound, {args.jobs} job(s)",
        flush=True,
    )
    total = {
        "counts": collections.Counter(),
        "skips": collections.Counter(),
        "disagreements": collections.Counter(),
        "oracle_errors": [],
    }
    repros, schemas = [], {}
    start = time.monotonic()
    done = [0]

    jsonl = open(args.jsonl, "a", encoding="utf-8") if args.jsonl else None

    def on_result(case, res):
        merge(total, res, case, repros, schemas)
        if jsonl:
            jsonl.write(json.dumps({"case": case["id"], **res}, ensure_ascii=False) + "\n")
            jsonl.flush()
        done[0] += 1
        if done[0] % 100 == 0 or done[0] == len(cases):
            dis = sum(total["disagreements"].values())
            print(
                f"  {done[0]}/{len(cases)} schemas, {time.monotonic() - start:.0f}s, "
                f"{total['counts']['instances kept']} instances kept, {dis} disagreements",
                file=sys.stderr,
                flush=True,
            )

    pool = Pool(max(1, args.jobs), cfg)
    deadline = start + 60 * args.max_minutes if args.max_minutes else None
    try:
        not_started = pool.run(cases, on_result, deadline)
    finally:
        pool.close()
        if jsonl:
            jsonl.close()
    elapsed = time.monotonic() - start

    counts = total["counts"]
    figures = {
        "config": {**cfg, "data": str(data), "sources": sorted(sources), "sample": args.sample, "jobs": args.jobs},
        "elapsed_s": round(elapsed, 1),
        "schemas_selected": len(cases),
        "schemas_not_started": not_started,
        "schemas_seen": counts["schemas seen"],
        "compiled_by_gcd": {
            "either mode": counts["compiled by gcd (either mode)"],
            ANY: counts[f"compiled by gcd ({ANY})"],
            SCHEMA: counts[f"compiled by gcd ({SCHEMA})"],
            "not compiled": counts["not compiled by gcd"],
        },
        "skipped": dict(sorted(total["skips"].items(), key=lambda kv: -kv[1])),
        "counts": dict(sorted(counts.items())),
        "disagreements": {c: total["disagreements"][c] for c in CATEGORIES},
        "oracle_caveats": {c: total["disagreements"][c] for c in CAVEATS},
        "oracle_errors": total["oracle_errors"],
    }
    print(f"\nfigures ({elapsed:.0f}s):")
    print(f"  schemas seen:                {figures['schemas_seen']}")
    if not_started:
        print(f"  (stopped by --max-minutes: {not_started} of {len(cases)} selected schemas not started; those seen are a seeded random subset)")
    c = figures["compiled_by_gcd"]
    print(f"  compiled by gcd:             {c['either mode']} (any order {c[ANY]}, schema order {c[SCHEMA]}); not compiled: {c['not compiled']}")
    print(f"  skipped after compiling:     {sum(total['skips'].values())}")
    for k, v in figures["skipped"].items():
        print(f"    {v:6d}  {k}")
    print(f"  schemas with kept instances: {counts['schemas with kept instances']}")
    print(f"  instances generated / kept:  {counts['instances generated']} / {counts['instances kept']} (in schema order: {counts['instances in schema order']})")
    for k in sorted(counts):
        if k.startswith("instances:") or k.startswith("instances invalid"):
            print(f"    {counts[k]:6d}  {k}")
    print(f"  serializations checked:      {counts[f'serializations checked ({ANY})']} any order, {counts[f'serializations checked ({SCHEMA})']} schema order")
    print(f"  mutations made / must-refuse: {counts['mutations made']} / {counts['mutations must-refuse']} (checked: {counts[f'mutations checked ({ANY})']} any order, {counts[f'mutations checked ({SCHEMA})']} schema order)")
    for k in sorted(counts):
        if k.startswith("mutations:"):
            print(f"    {counts[k]:6d}  {k}")
    print("  disagreements:")
    for cat in CATEGORIES:
        tag = " (allowed)" if cat in args.allow else ""
        print(f"    {figures['disagreements'][cat]:6d}  {cat}{tag}")
    print("  oracle caveats (the validators stray from ECMA-262; not failing):")
    for cat in CAVEATS:
        print(f"    {figures['oracle_caveats'][cat]:6d}  {cat}")
    for cat in CATEGORIES + CAVEATS:
        shown = [r for r in repros if r["category"] == cat][: args.show]
        if shown:
            print(f"\n  {cat}: e.g.")
            for r in shown:
                text = r["text"] if len(r["text"]) <= 240 else r["text"][:240] + "…"
                print(f"    {r['case']} [{r['mode']}, {r['form']}] {r['detail']} {r.get('note', '')}")
                print(f"      text: {text!r}")
    for e in total["oracle_errors"][:5]:
        print(f"\n  ORACLE ERROR in {e['case']}: {e['error']}")

    if args.json_out:
        Path(args.json_out).write_text(
            json.dumps({**figures, "repros": repros, "schemas": schemas}, indent=1, ensure_ascii=False),
            encoding="utf-8",
        )
        print(f"\nfigures and reproductions written to {args.json_out}")
    failing = {c: n for c, n in figures["disagreements"].items() if n and c not in args.allow}
    if failing or total["oracle_errors"]:
        print(f"\nFAIL: {failing or ''} {len(total['oracle_errors'])} oracle error(s)" if total["oracle_errors"] else f"\nFAIL: disagreements {failing}")
        return 1
    print("\nok: no disagreements" + (f" outside {args.allow}" if args.allow else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
