"""Schemathesis hooks for the Menu Intelligence fuzz run (loaded through SCHEMATHESIS_HOOKS).

- `error_body_shape`: every 4xx/5xx body is exactly {detail, code}, with a code from src/core/errors.ts
  (passed in MENU_ERROR_CODES as {code: status}) whose status is the one answered; on the OpenAI-compatible
  paths (/v1/*) it is OpenAI's {"error": {message, type, param, code}} with such a code (422's become 400).
- Bodies are sometimes rewritten so that their strings carry the unicode cases generators rarely reach:
  right-to-left text and overrides, stacks of combining marks, zero-width characters, emoji ZWJ
  sequences and lone UTF-16 surrogates (serialised as JSON escapes such as "\\ud800").
- Every response is tallied by operation and status; the tally is written to MENU_FUZZ_TALLY at exit.
"""
from __future__ import annotations

import atexit
import json
import os
import threading

import schemathesis
from hypothesis import strategies as st
from schemathesis.core.failures import Failure, Severity

ERROR_CODES: dict[str, int] = json.loads(os.environ.get("MENU_ERROR_CODES", "{}"))
TALLY_PATH = os.environ.get("MENU_FUZZ_TALLY")

_lock = threading.Lock()
_tally: dict[str, dict[str, int]] = {}


def _write_tally() -> None:
    if TALLY_PATH:
        with open(TALLY_PATH, "w", encoding="utf-8") as f:
            json.dump(_tally, f)


atexit.register(_write_tally)


class ErrorShapeMismatch(Failure):
    def __init__(self, *, operation: str, message: str) -> None:
        self.operation = operation
        self.title = "Error body does not match {detail, code}"
        self.message = message
        self.code = "error_shape_mismatch"
        self.case_id = None
        # A wrong error body is a schema violation; the JSON report needs a severity to write the failure at all.
        self.severity = Severity.HIGH

    @property
    def _unique_key(self) -> str:
        return self.message


@schemathesis.check
def error_body_shape(ctx, response, case):
    operation = f"{case.operation.method.upper()} {case.operation.path}"
    with _lock:
        per_op = _tally.setdefault(operation, {})
        key = str(response.status_code)
        per_op[key] = per_op.get(key, 0) + 1
    if response.status_code < 400:
        return None
    try:
        body = json.loads(response.content)
    except ValueError:
        raise ErrorShapeMismatch(operation=operation, message=f"{response.status_code} body is not JSON: {response.content[:200]!r}")
    if case.operation.path.startswith("/v1/"):
        return _openai_error_shape(operation, response.status_code, body)
    if not isinstance(body, dict) or set(body) != {"detail", "code"}:
        raise ErrorShapeMismatch(operation=operation, message=f"{response.status_code} body has keys {sorted(body) if isinstance(body, dict) else type(body).__name__}, not detail and code")
    if not isinstance(body["detail"], str) or not body["detail"]:
        raise ErrorShapeMismatch(operation=operation, message=f"{response.status_code} detail is not a non-empty string")
    return _code_matches_status(operation, response.status_code, body["code"], openai=False)


def _code_matches_status(operation: str, status: int, code, *, openai: bool) -> bool:
    """The code is one of src/core/errors.ts and the status answered is its own (on /v1/*, 422's are 400, as OpenAI
    answers)."""
    if code not in ERROR_CODES:
        raise ErrorShapeMismatch(operation=operation, message=f"{status} code {code!r} is not in src/core/errors.ts")
    expected = 400 if openai and ERROR_CODES[code] == 422 else ERROR_CODES[code]
    if expected != status:
        raise ErrorShapeMismatch(operation=operation, message=f"code {code} belongs to status {expected}{' on /v1/*' if openai else ''}, answered {status}")
    return True


def _openai_error_shape(operation: str, status: int, body) -> bool:
    """The OpenAI-compatible paths (/v1/*) answer errors in OpenAI's shape, {"error": {message, type, param, code}},
    so OpenAI clients raise their own error classes."""
    error = body.get("error") if isinstance(body, dict) and set(body) == {"error"} else None
    if not isinstance(error, dict) or not {"message", "type", "param", "code"} <= set(error):
        raise ErrorShapeMismatch(operation=operation, message=f"{status} body is not OpenAI's error shape: {sorted(body) if isinstance(body, dict) else type(body).__name__}")
    if not isinstance(error["message"], str) or not error["message"] or not isinstance(error["type"], str):
        raise ErrorShapeMismatch(operation=operation, message=f"{status} error.message or error.type is not a non-empty string")
    return _code_matches_status(operation, status, error["code"], openai=True)


# Strings a keyboard rarely types and a generator rarely draws, each a known trap for text pipelines.
EDGE_STRINGS = [
    "شاورما دجاج",  # Arabic, right to left
    "\u202eralugeR ikkiT reenaP\u202c",  # right-to-left override
    "\u2067פלאפל\u2069 Falafel",  # isolate marks around Hebrew
    "e" + "\u0301" * 64,  # one letter under 64 combining accents
    "Pa\u0308neer Ti\u0300kka",
    "\u200b",  # zero-width space alone
    "Paneer\u200bTikka\u200c\u200d",
    "\ufeffMasala Dosa",  # byte-order mark at the start
    "👨\u200d👩\u200d👧\u200d👦 Family Combo",  # emoji ZWJ family
    "🏳️\u200d🌈🍕",
    "\ud800",  # lone high surrogate
    "Chicken \udc00 Biryani",  # lone low surrogate
    "\udbff\udfff\ud83d",  # a pair then a dangling high half
    "\u0000nul",
    "   ",
    "",
    "पनीर टिक्का",
    "\u0d2a\u0d4a\u0d31\u0d4b\u0d1f\u0d4d\u0d1f",  # Malayalam with virama
]

edge_string = st.sampled_from(EDGE_STRINGS) | st.text(
    alphabet=st.sampled_from(["\u200b", "\u200d", "\u202e", "\u0301", "\ud800", "\udfff", "🍛", "ا", "ק"]), min_size=1, max_size=40
)


def _replaceable(value: str) -> bool:
    # A string outside 1-500 characters is a negative case's point: replacing it would make the case valid.
    return 0 < len(value) <= 500


def _strings_replaced(value, draws):
    if isinstance(value, str):
        return draws.pop() if draws and _replaceable(value) else value
    if isinstance(value, list):
        return [_strings_replaced(v, draws) for v in value]
    if isinstance(value, dict):
        return {k: _strings_replaced(v, draws) for k, v in value.items()}
    return value


def _count_strings(value) -> int:
    if isinstance(value, str):
        return 1 if _replaceable(value) else 0
    if isinstance(value, list):
        return sum(_count_strings(v) for v in value)
    if isinstance(value, dict):
        return sum(_count_strings(v) for v in value.values())
    return 0


# The HTTP parser of uWebSockets.js closes the connection on a method outside RFC 9110 (QUERY, PROPFIND, …)
# instead of answering; that is the library's behaviour (documented in the README), not something to fuzz.
STANDARD_METHODS = {"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"}


@schemathesis.hook
def filter_case(context, case):
    return case.method.upper() in STANDARD_METHODS


@schemathesis.hook
def flatmap_body(context, body):
    n = _count_strings(body)
    if n == 0:
        return st.just(body)
    # Half of the bodies keep what the schema generator drew; the other half get edge strings in place of theirs.
    replaced = st.lists(edge_string, min_size=n, max_size=n).map(lambda draws: _strings_replaced(body, list(draws)))
    return st.one_of(st.just(body), replaced)
