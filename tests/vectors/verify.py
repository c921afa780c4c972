#!/usr/bin/env python3
"""Independent verifier and minter of the mrtr-guard `requestState` token, v1
(revision 4).

Written from docs/FORMAT.md alone (no Rust source was read), as a check that
the document is enough to interoperate. Section numbers below refer to it.

Runs every known-answer vector in tests/vectors/{sealed,signed,negative}.json:

* positive vectors: recompute the arguments' canonical form and digest and the
  context, re-mint the token from (mint key, nonce, binding, claims_json) and
  compare byte for byte, re-serialize the parsed claims as §5 prescribes and
  compare with claims_json, then verify the vector's token at `now` and expect
  success;
* negative vectors: verify and expect failure with exactly the named reason
  (with `replay_guard`, a guard of the vector's `generation`; for `replayed`,
  one successful open first);
* tests/vectors/arguments.json: every text of a case has the case's canonical
  form and digest (§4.1), and no two cases share a digest.

It also checks the worked examples quoted in FORMAT.md and a few verifier
paths the vectors cannot reach (refusals of claims that only a key holder can
produce). Prints one line per failure and ends with `N passed, M failed`.

Dependencies: Python 3.11, PyNaCl (XChaCha20-Poly1305), rfc8785 (JCS: its
string and double serializations; §4.1's exact integers are done here).
Run through scripts/vectors-crosscheck, which provides both.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import rfc8785
from nacl import bindings as sodium
from nacl.exceptions import CryptoError

U64_MAX = 2**64 - 1
I64_MIN = -(2**63)
U32_MAX = 2**32 - 1
# §5: the claims' times, Unix seconds, years -9999 to 9999.
TIME_MIN, TIME_MAX = -377705116800, 253402300799

# --------------------------------------------------------------------------
# Refusals (§8)
# --------------------------------------------------------------------------

REASONS = (
    "missing_principal",
    "too_large",
    "malformed",
    "unsupported_version",
    "unknown_key",
    "forged",
    "bad_claims",
    "not_yet_valid",
    "flow_expired",
    "expired",
    "too_many_rounds",
    "replayed",
    "replay_guard_failed",
    "generation_changed",
    "no_generation",
)


class Refused(Exception):
    """A verification failure carrying one of the §8 reasons."""

    def __init__(self, reason: str, detail: str = "") -> None:
        assert reason in REASONS, reason
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


class MintRefused(Exception):
    """The minter declined to produce a token (§9)."""


# --------------------------------------------------------------------------
# §1 Text form: strict unpadded base64url
# --------------------------------------------------------------------------

_B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
_B64URL_VALUE = {c: i for i, c in enumerate(_B64URL)}


def b64url_decode(text: str) -> bytes:
    """Strict decoding: only the 64 alphabet characters, no padding, no white
    space, length != 1 (mod 4), unused low bits of the last character zero.
    Raises ValueError otherwise."""
    if len(text) % 4 == 1:
        raise ValueError("length is 1 (mod 4)")
    values = []
    for pos, ch in enumerate(text):
        v = _B64URL_VALUE.get(ch)
        if v is None:
            raise ValueError(f"character {ch!r} at {pos} is outside the alphabet")
        values.append(v)
    out = bytearray()
    full = len(values) - len(values) % 4
    for i in range(0, full, 4):
        n = (values[i] << 18) | (values[i + 1] << 12) | (values[i + 2] << 6) | values[i + 3]
        out += n.to_bytes(3, "big")
    rest = values[full:]
    if len(rest) == 2:  # 12 bits -> 1 byte, 4 unused bits
        n = (rest[0] << 6) | rest[1]
        if n & 0xF:
            raise ValueError("non-zero unused bits in the last character")
        out.append(n >> 4)
    elif len(rest) == 3:  # 18 bits -> 2 bytes, 2 unused bits
        n = (rest[0] << 12) | (rest[1] << 6) | rest[2]
        if n & 0x3:
            raise ValueError("non-zero unused bits in the last character")
        out += (n >> 2).to_bytes(2, "big")
    return bytes(out)


def b64url_encode(data: bytes) -> str:
    """Unpadded base64url; encoding has only one output, the stdlib is fine."""
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


# --------------------------------------------------------------------------
# §3 Keys
# --------------------------------------------------------------------------

_SALT = b"mrtr-guard/v1/hkdf-salt"


def _hmac(key: bytes, msg: bytes) -> bytes:
    return hmac.new(key, msg, hashlib.sha256).digest()


@dataclass(frozen=True)
class DerivedKey:
    master: bytes
    seal_key: bytes
    sign_key: bytes
    key_id: bytes


def derive(master: bytes) -> DerivedKey:
    if len(master) < 32:
        raise ValueError(f"master key of {len(master)} bytes; at least 32 required")
    prk = _hmac(_SALT, master)  # HKDF-Extract(salt, IKM)
    # HKDF-Expand with L = 32: T(1) = HMAC(PRK, info || 0x01)
    seal_key = _hmac(prk, b"mrtr-guard/v1/seal-key" + b"\x01")
    sign_key = _hmac(prk, b"mrtr-guard/v1/sign-key" + b"\x01")
    key_id = _hmac(prk, b"mrtr-guard/v1/key-id" + b"\x01")[:4]
    return DerivedKey(master, seal_key, sign_key, key_id)


class KeyRing:
    """One active key (mints and verifies) and any number of verify-only keys."""

    def __init__(self, active: bytes, verify_only: list[bytes] = ()) -> None:
        self.active = derive(active)
        self.by_id: dict[bytes, DerivedKey] = {}
        for k in [self.active, *(derive(m) for m in verify_only)]:
            if k.key_id in self.by_id:
                # FORMAT.md does not say what a ring with two keys of the same
                # id does; lookup "uses that key only", so refuse to build one.
                raise ValueError(f"two keys share key id {k.key_id.hex()}")
            self.by_id[k.key_id] = k

    def lookup(self, key_id: bytes) -> DerivedKey | None:
        return self.by_id.get(key_id)


# --------------------------------------------------------------------------
# §4 Binding and context
# --------------------------------------------------------------------------

LE64 = lambda n: n.to_bytes(8, "little")  # noqa: E731


def LP(x: bytes) -> bytes:
    return LE64(len(x)) + x


# §4.1 numbers as the parser reads them: an integer literal within
# [-2^63, 2^64 - 1] is that integer ("-0" excepted: a double); every other
# number is the nearest double; beyond the double range, refused.


def _parse_int(text: str) -> int | float:
    n = int(text)
    if n == 0 and text.startswith("-"):
        return -0.0
    if I64_MIN <= n <= U64_MAX:
        return n
    try:
        return float(n)  # nearest double, ties to even
    except OverflowError:
        raise ValueError("number beyond the double range") from None


def _parse_float(text: str) -> float:
    f = float(text)  # correctly rounded
    if math.isinf(f):
        raise ValueError("number beyond the double range")
    return f


_EXACT_FROM, _EXACT_BELOW = 2.0**53, 1e21


def canonical(value: Any) -> bytes:
    """§4.1: JCS (RFC 8785), except that a number whose value is an integer of
    magnitude below 10^21 is written as its exact decimal digits."""
    if value is None or isinstance(value, (bool, str)):
        return rfc8785.dumps(value)
    if isinstance(value, int):
        return str(value).encode("ascii")
    if isinstance(value, float):
        if _EXACT_FROM <= abs(value) < _EXACT_BELOW:
            return str(int(value)).encode("ascii")  # int(float) is exact
        return rfc8785.dumps(value)
    if isinstance(value, list):
        return b"[" + b",".join(canonical(v) for v in value) + b"]"
    if isinstance(value, dict):
        items = sorted(value.items(), key=lambda kv: kv[0].encode("utf-16-be"))
        return b"{" + b",".join(rfc8785.dumps(k) + b":" + canonical(v) for k, v in items) + b"}"
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def arguments_digest(arguments: Any) -> bytes:
    return hashlib.sha256(canonical(arguments)).digest()


@dataclass(frozen=True)
class Binding:
    principal: str | None  # None = anonymous
    method: str
    target: str
    arguments: Any = field(default_factory=dict)  # absent params.arguments = {}

    def effective_arguments(self) -> Any:
        return {} if self.arguments is None else self.arguments  # null counts as {}

    def digest(self) -> bytes:
        return arguments_digest(self.effective_arguments())


SEALED, SIGNED = 0x01, 0x02
LABEL = {SEALED: b"mrtr-guard/v1/sealed", SIGNED: b"mrtr-guard/v1/signed"}
HEADER_LEN = {SEALED: 1 + 4 + 24, SIGNED: 1 + 4}
TAG_LEN = {SEALED: 16, SIGNED: 32}


def build_context(version: int, header: bytes, audience: str, binding: Binding) -> bytes:
    if binding.principal is None:
        principal_field = b"\x00"
    else:
        principal_field = b"\x01" + LP(binding.principal.encode("utf-8"))
    return (
        LP(LABEL[version])
        + LP(header)
        + LP(audience.encode("utf-8"))
        + principal_field
        + LP(binding.method.encode("utf-8"))
        + LP(binding.target.encode("utf-8"))
        + binding.digest()
    )


# --------------------------------------------------------------------------
# §5 Claims
# --------------------------------------------------------------------------

CLAIM_MEMBERS = ("iat", "exp", "dl", "rnd", "fid", "q", "ans", "app")
# §5: present only when not empty.
OPTIONAL_MEMBERS = ("gen", "inv", "once", "step")


@dataclass
class Proven:
    q: bytes  # 32-byte digest of the question answered
    r: dict[str, Any]  # the accepted response


@dataclass
class Reask:
    q: bytes  # 32-byte digest of the question as first asked
    n: int  # invalid answers in a row, 1 to 2^32 - 1


@dataclass
class Claims:
    iat: int
    exp: int
    dl: int
    rnd: int
    fid: bytes  # 16 bytes
    q: dict[str, bytes]  # key -> 32-byte digest
    ans: dict[str, Proven]
    app: Any
    inv: dict[str, Reask] = field(default_factory=dict)
    once: list[str] = field(default_factory=list)
    gen: bytes | None = None  # 8 bytes: the replay guard's generation
    step: dict[str, Any] = field(default_factory=dict)  # step name -> its result


class _Dup(ValueError):
    pass


class _Obj(dict):
    """A JSON object as parsed: the last of a repeated member name counts,
    and `dup` says whether one was repeated (§5.2 refuses that everywhere in
    the claims but inside `r` and `app`)."""
    dup = False


def _pairs_no_dup(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = _Obj()
    for k, v in pairs:
        if k in out:
            out.dup = True
        out[k] = v
    return out


def _refuse_dups(value: Any, what: str) -> None:
    """Outside the claims (vector files, arguments): no repeated names at all."""
    if isinstance(value, dict):
        if getattr(value, "dup", False):
            raise _Dup(f"duplicate member in {what}")
        for k, v in value.items():
            _refuse_dups(v, what)
    elif isinstance(value, list):
        for v in value:
            _refuse_dups(v, what)


MAX_DEPTH = 127


def _depth(value: Any) -> int:
    """Levels of arrays and objects nested in each other; a scalar is 0, the
    claims object itself counts 1 (§5.2)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, (list, dict)):
            deepest = max(deepest, d)
            stack.extend((c, d + 1) for c in (v.values() if isinstance(v, dict) else v))
    return deepest


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_STRICT_JSON = json.JSONDecoder(object_pairs_hook=_pairs_no_dup, parse_constant=_no_constant,
                                parse_int=_parse_int, parse_float=_parse_float)


def _check_text(value: Any) -> None:
    """Python's json accepts lone surrogate escapes (\\ud800); a JSON text
    that must round-trip as UTF-8 cannot hold them, so refuse."""
    if isinstance(value, str):
        value.encode("utf-8")
    elif isinstance(value, list):
        for v in value:
            _check_text(v)
    elif isinstance(value, dict):
        for k, v in value.items():
            _check_text(k)
            _check_text(v)


def strict_json(data: bytes, dups_refused: bool = True) -> Any:
    text = data.decode("utf-8")  # strict: invalid UTF-8 raises; a BOM stays and fails below
    value = _STRICT_JSON.decode(text)
    _check_text(value)
    if dups_refused:
        _refuse_dups(value, "JSON text")
    return value


def _object(value: Any, what: str) -> dict:
    if not isinstance(value, dict):
        raise ValueError(f"{what} is not an object")
    if getattr(value, "dup", False):
        raise ValueError(f"{what} names a member twice")
    return value


def _lenient_object(value: Any, what: str) -> dict:
    """`r`: an object; a repeated name keeps the last (§5.2)."""
    if not isinstance(value, dict):
        raise ValueError(f"{what} is not an object")
    return value


def _int_in(obj: dict, name: str, low: int, high: int) -> int:
    v = obj[name]
    # bool is a subclass of int in Python; 1.0 / 1e3 / -0 parse as float: refused.
    if type(v) is not int or not low <= v <= high:
        raise ValueError(f"{name} is not an integer in [{low}, {high}]: {v!r}")
    return v


def _id(value: Any, length: int, what: str) -> bytes:
    if not isinstance(value, str):
        raise ValueError(f"{what} is not a string")
    raw = b64url_decode(value)
    if len(raw) != length:
        raise ValueError(f"{what} is {len(raw)} bytes, not {length}")
    return raw


def parse_claims(data: bytes, app_type: str | None = None) -> Claims:
    """§5 and §8 step 7. Raises Refused('bad_claims')."""
    try:
        value = strict_json(data, dups_refused=False)
        if _depth(value) > MAX_DEPTH:
            raise ValueError(f"the claims nest more than {MAX_DEPTH} levels deep")
        obj = _object(value, "claims")
        missing = [m for m in CLAIM_MEMBERS if m not in obj]
        extra = [m for m in obj if m not in CLAIM_MEMBERS + OPTIONAL_MEMBERS]
        if missing or extra:
            raise ValueError(f"missing {missing}, unknown {extra}")
        iat, exp, dl = (_int_in(obj, m, TIME_MIN, TIME_MAX) for m in ("iat", "exp", "dl"))
        rnd = _int_in(obj, "rnd", 0, U32_MAX)
        fid = _id(obj["fid"], 16, "fid")
        gen = _id(obj["gen"], 8, "gen") if "gen" in obj else None
        q = {key: _id(val, 32, f"q[{key!r}]") for key, val in _object(obj["q"], "q").items()}
        ans = {}
        for key, val in _object(obj["ans"], "ans").items():
            entry = _object(val, f"ans[{key!r}]")
            if sorted(entry) != ["q", "r"]:
                raise ValueError(f"ans[{key!r}] has members {sorted(entry)}, not q and r")
            ans[key] = Proven(_id(entry["q"], 32, f"ans[{key!r}].q"), _lenient_object(entry["r"], f"ans[{key!r}].r"))
        inv = _parse_inv(obj["inv"], q) if "inv" in obj else {}
        once = _parse_once(obj["once"]) if "once" in obj else []
        step = _parse_step(obj["step"]) if "step" in obj else {}
        if app_type == "object" and not isinstance(obj["app"], dict):
            raise ValueError("app does not fit the application's type (an object)")
        return Claims(iat, exp, dl, rnd, fid, q, ans, obj["app"], inv, once, gen, step)
    except (ValueError, UnicodeError, RecursionError) as e:
        raise Refused("bad_claims", str(e)) from None


def _parse_inv(value: Any, q: dict[str, bytes]) -> dict[str, Reask]:
    """§5.1/§5.2: a non-empty object of {"q": digest, "n": 1..2^32-1}, each
    key also a key of q."""
    inv = {}
    for key, val in _object(value, "inv").items():
        entry = _object(val, f"inv[{key!r}]")
        if sorted(entry) != ["n", "q"]:
            raise ValueError(f"inv[{key!r}] has members {sorted(entry)}, not q and n")
        if key not in q:
            raise ValueError(f"inv[{key!r}] is not a question in q")
        inv[key] = Reask(_id(entry["q"], 32, f"inv[{key!r}].q"), _int_in(entry, "n", 1, U32_MAX))
    if not inv:
        raise ValueError("inv is present but empty")
    return inv


def _parse_once(value: Any) -> list[str]:
    """§5.1/§5.2: a non-empty array of distinct strings."""
    if not isinstance(value, list) or not value:
        raise ValueError("once is not a non-empty array")
    if not all(isinstance(name, str) for name in value):
        raise ValueError("once holds a non-string")
    if len(set(value)) != len(value):
        raise ValueError("once holds a name twice")
    return sorted(value, key=lambda name: name.encode("utf-8"))


def _parse_step(value: Any) -> dict[str, Any]:
    """§5.1/§5.2: a non-empty object, no key twice; its values any JSON."""
    step = _object(value, "step")
    if not step:
        raise ValueError("step is present but empty")
    return dict(step)


def _json_value(value: Any) -> str:
    """Compact JSON for `ans` values and `app`. FORMAT.md only says "no white
    space"; this writes strings with literal UTF-8 (escaping only ", \\ and
    controls, as the vectors show), keeps object members in the order given,
    and writes integers in decimal. Floats are not pinned down by the spec."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def serialize_claims(c: Claims) -> bytes:
    """§5.3: members in order, no white space, q, ans and inv sorted by key
    bytewise, each answer {"q":…,"r":…}, each re-ask {"q":…,"n":…}, inv,
    once and step only when not empty, once sorted bytewise, step by key."""

    def sorted_obj(d: dict[str, Any], enc) -> str:
        items = sorted(d.items(), key=lambda kv: kv[0].encode("utf-8"))
        return "{" + ",".join(_json_value(k) + ":" + enc(v) for k, v in items) + "}"

    def digest(d: bytes) -> str:
        return _json_value(b64url_encode(d))

    def proven(p: Proven) -> str:
        return f'{{"q":{digest(p.q)},"r":{_json_value(p.r)}}}'

    def reask(r: Reask) -> str:
        return f'{{"q":{digest(r.q)},"n":{r.n}}}'

    once = sorted(c.once, key=lambda name: name.encode("utf-8"))
    text = (
        f'{{"iat":{c.iat},"exp":{c.exp},"dl":{c.dl},"rnd":{c.rnd},'
        f'"fid":{_json_value(b64url_encode(c.fid))},'
        + (f'"gen":{_json_value(b64url_encode(c.gen))},' if c.gen is not None else "")
        + f'"q":{sorted_obj(c.q, digest)},'
        f'"ans":{sorted_obj(c.ans, proven)},'
        + (f'"inv":{sorted_obj(c.inv, reask)},' if c.inv else "")
        + (f'"once":[{",".join(_json_value(name) for name in once)}],' if once else "")
        + (f'"step":{sorted_obj(c.step, _json_value)},' if c.step else "")
        + f'"app":{_json_value(c.app)}}}'
    )
    return text.encode("utf-8")


# --------------------------------------------------------------------------
# Verifier / minter (§6–§9)
# --------------------------------------------------------------------------


@dataclass
class Policy:
    ttl: int = 600
    flow_ttl: int = 1800
    skew: int = 60
    max_rounds: int = 10
    max_token_len: int = 8192


def _checked_add(a: int, b: int) -> int | None:
    """§8: a time sum outside the range of §5 is an overflow."""
    s = a + b
    return s if TIME_MIN <= s <= TIME_MAX else None


class Codec:
    def __init__(
        self,
        mode: str,
        audience: str,
        ring: KeyRing,
        policy: Policy | None = None,
        anonymous: bool = False,
        replay_guard: bool = False,
        generation: bytes | None = None,
    ) -> None:
        self.version = {"sealed": SEALED, "signed": SIGNED}[mode]
        self.audience = audience
        self.ring = ring
        self.policy = policy or Policy()
        self.anonymous = anonymous
        self.consumed: set[tuple[bytes, int]] | None = set() if replay_guard else None
        # §8 step 12: the generation of the guard's memory.
        self.generation = generation

    # -- §6 / §7 construction, from claims bytes ---------------------------

    def mint_bytes(self, claims: bytes, binding: Binding, nonce: bytes | None = None,
                   key: DerivedKey | None = None) -> str:
        key = key or self.ring.active
        if self.version == SEALED:
            if nonce is None:
                nonce = sodium.randombytes(24)
            if len(nonce) != 24:
                raise ValueError("sealed nonce must be 24 bytes")
            header = bytes([SEALED]) + key.key_id + nonce
            aad = build_context(SEALED, header, self.audience, binding)
            body = sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(claims, aad, nonce, key.seal_key)
        else:
            if nonce is not None:
                raise ValueError("signed tokens have no nonce")
            header = bytes([SIGNED]) + key.key_id
            ctx = build_context(SIGNED, header, self.audience, binding)
            body = claims + _hmac(key.sign_key, ctx + LP(claims))
        token = b64url_encode(header + body)
        if len(token.encode("ascii")) > self.policy.max_token_len:
            raise MintRefused(f"token of {len(token)} characters exceeds {self.policy.max_token_len}")
        return token

    # -- §9 minting ---------------------------------------------------------

    def mint(self, now: int, binding: Binding, q: dict[str, bytes], ans: dict[str, Proven], app: Any,
             previous: Claims | None = None, fid: bytes | None = None,
             nonce: bytes | None = None) -> tuple[str, Claims]:
        p = self.policy
        if not self.anonymous and (binding.principal is None or binding.principal == ""):
            raise MintRefused("binding has no principal")
        if previous is None:
            fid = fid if fid is not None else sodium.randombytes(16)
            rnd, dl = 1, _checked_add(now, p.flow_ttl)
            if dl is None:
                raise MintRefused("deadline overflows")
        else:
            fid, dl = previous.fid, previous.dl
            rnd = previous.rnd + 1
            if rnd > p.max_rounds:
                raise MintRefused("round cap reached")
            if now >= dl:
                raise MintRefused("flow deadline passed")
        if rnd > p.max_rounds:
            raise MintRefused("round cap reached")
        expiry = _checked_add(now, p.ttl)
        if expiry is None:
            raise MintRefused("expiry overflows")
        claims = Claims(now, min(expiry, dl), dl, rnd, fid, dict(q), dict(ans), app)
        return self.mint_bytes(serialize_claims(claims), binding, nonce), claims

    # -- §8 verification ----------------------------------------------------

    def open(self, text: str, binding: Binding, now: int) -> Claims:
        p = self.policy
        # 1
        if not self.anonymous and (binding.principal is None or binding.principal == ""):
            raise Refused("missing_principal")
        # 2: length in bytes, before decoding
        if len(text.encode("utf-8")) > p.max_token_len:
            raise Refused("too_large")
        # 3
        try:
            raw = b64url_decode(text)
        except ValueError as e:
            raise Refused("malformed", str(e)) from None
        # 4
        if not raw:
            raise Refused("malformed", "empty token")
        version = raw[0]
        if version not in (SEALED, SIGNED):
            raise Refused("unsupported_version", f"version byte {version:#04x}")
        hlen, tlen = HEADER_LEN[version], TAG_LEN[version]
        if len(raw) < hlen + tlen:
            raise Refused("malformed", f"{len(raw)} bytes is shorter than {hlen + tlen}")
        if version != self.version:
            raise Refused("unsupported_version", "token of the other mode")
        # 5
        key = self.ring.lookup(raw[1:5])
        if key is None:
            raise Refused("unknown_key", raw[1:5].hex())
        # 6
        header = raw[:hlen]
        ctx = build_context(version, header, self.audience, binding)
        if version == SEALED:
            try:
                claims_bytes = sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(
                    raw[hlen:], ctx, header[5:29], key.seal_key)
            except CryptoError:
                raise Refused("forged") from None
        else:
            claims_bytes, tag = raw[hlen:-tlen], raw[-tlen:]
            if not hmac.compare_digest(tag, _hmac(key.sign_key, ctx + LP(claims_bytes))):
                raise Refused("forged")
        # 7
        c = parse_claims(claims_bytes, getattr(self, "app_type", None))
        # 8
        latest = _checked_add(now, p.skew)
        if latest is None or not c.iat <= latest:
            raise Refused("not_yet_valid")
        # 9
        if not now < c.dl:
            raise Refused("flow_expired")
        # 10
        ttl_end = _checked_add(c.iat, p.ttl)
        if ttl_end is None or not now < min(c.exp, ttl_end):
            raise Refused("expired")
        # 11
        if not 1 <= c.rnd <= p.max_rounds:
            raise Refused("too_many_rounds")
        # 12
        if self.consumed is not None:
            if c.gen is None:
                raise Refused("no_generation")
            if c.gen != self.generation:
                raise Refused("generation_changed")
            if (c.fid, c.rnd) in self.consumed:
                raise Refused("replayed")
            self.consumed.add((c.fid, c.rnd))
        return c


# --------------------------------------------------------------------------
# Vector runner
# --------------------------------------------------------------------------

HERE = Path(__file__).resolve().parent


def _std_b64(s: str) -> bytes:
    return base64.b64decode(s, validate=True)


def load_json(path: Path) -> Any:
    """A vector file, its numbers read as §4.1 says (so that the arguments
    in it are the values a verifier would see)."""
    value = _STRICT_JSON.decode(path.read_text("utf-8"))
    _refuse_dups(value, str(path))
    return value


def codec_for(v: dict) -> Codec:
    pol = Policy(**v["policy"])
    ring = KeyRing(_std_b64(v["keys"]["active"]), [_std_b64(k) for k in v["keys"]["verify_only"]])
    generation = bytes.fromhex(v["generation"]) if v.get("generation") is not None else None
    codec = Codec(v["mode"], v["audience"], ring, pol, bool(v["anonymous"]),
                  bool(v.get("replay_guard", False)), generation)
    # §10: the verifier's application type; absent, any JSON value fits.
    codec.app_type = v.get("app_type")
    return codec


def binding_for(v: dict) -> Binding:
    b = v["binding"]
    return Binding(b["principal"], b["method"], b["target"], b.get("arguments"))


class Runner:
    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0
        self.notes: list[str] = []

    def check(self, name: str, problems: list[str]) -> None:
        if problems:
            self.failed += 1
            for p in problems:
                print(f"FAIL {name}: {p}")
        else:
            self.passed += 1

    # -- positive ------------------------------------------------------------

    def positive(self, v: dict) -> None:
        name, problems = v["name"], []
        try:
            codec, binding = codec_for(v), binding_for(v)
            text = canonical(binding.effective_arguments()).decode("utf-8")
            if text != v["arguments_canonical"]:
                problems.append(f"arguments_canonical {text} != vector {v['arguments_canonical']}")
            digest = binding.digest()
            if digest.hex() != v["arguments_digest"]:
                problems.append(f"arguments_digest {digest.hex()} != vector {v['arguments_digest']}")

            mint_key = derive(_std_b64(v["mint_key"])) if "mint_key" in v else codec.ring.active
            claims_bytes = v["claims_json"].encode("utf-8")
            nonce = bytes.fromhex(v["nonce"]) if v.get("nonce") is not None else None
            version = codec.version
            header = bytes([version]) + mint_key.key_id + (nonce or b"")
            ctx = build_context(version, header, codec.audience, binding)
            if ctx.hex() != v["context"]:
                problems.append(f"context differs:\n  ours   {ctx.hex()}\n  vector {v['context']}")

            token = codec.mint_bytes(claims_bytes, binding, nonce, key=mint_key)
            if token != v["token"]:
                problems.append(f"re-minted token differs:\n  ours   {token}\n  vector {v['token']}")

            # §5: claims_json must be exactly what a §5 minter writes.
            parsed = parse_claims(claims_bytes)
            again = serialize_claims(parsed)
            if again != claims_bytes:
                problems.append(f"claims re-serialize differently: {again.decode()}")

            # §5/§9 invariants a minter guarantees.
            if parsed.exp != min(parsed.iat + codec.policy.ttl, parsed.dl):
                problems.append("exp != min(iat + ttl, dl)")
            # Not counted as a failure (verification does not depend on it),
            # but reported: §9 says round 1 has iat = now and dl = now + flow_ttl.
            if parsed.rnd == 1 and parsed.dl != parsed.iat + codec.policy.flow_ttl:
                self.notes.append(f"{name} (dl - iat = {parsed.dl - parsed.iat})")

            try:
                got = codec.open(v["token"], binding, v["now"])
                if serialize_claims(got) != claims_bytes:
                    problems.append("opened claims differ from claims_json")
            except Refused as e:
                problems.append(f"verification failed: {e}")
        except Exception as e:  # noqa: BLE001 - report, keep going
            problems.append(f"error: {type(e).__name__}: {e}")
        self.check(name, problems)

    # -- negative ------------------------------------------------------------

    def negative(self, v: dict) -> None:
        name, problems = v["name"], []
        want = v["reason"]
        try:
            codec, binding = codec_for(v), binding_for(v)
            if v.get("replay_guard") and want == "replayed":
                try:
                    codec.open(v["token"], binding, v["now"])
                except Refused as e:
                    problems.append(f"first open (before the replay) failed: {e}")
            try:
                codec.open(v["token"], binding, v["now"])
                problems.append(f"verified, expected failure {want}")
            except Refused as e:
                if e.reason != want:
                    problems.append(f"failed with {e.reason} ({e.detail}), expected {want}")
        except Exception as e:  # noqa: BLE001
            problems.append(f"error: {type(e).__name__}: {e}")
        self.check(name, problems)

    # -- tests/vectors/arguments.json (§4.1) -----------------------------------

    def arguments_cases(self, cases: list[dict]) -> None:
        seen: dict[str, str] = {}
        for case in cases:
            problems = []
            for text in case["texts"]:
                try:
                    value = strict_json(text.encode("utf-8"))
                    got = canonical(value).decode("utf-8")
                    if got != case["canonical"]:
                        problems.append(f"{text}: canonical {got} != {case['canonical']}")
                    if arguments_digest(value).hex() != case["digest"]:
                        problems.append(f"{text}: digest differs")
                except Exception as e:  # noqa: BLE001
                    problems.append(f"{text}: {type(e).__name__}: {e}")
            if case["digest"] in seen:
                problems.append(f"shares its digest with {seen[case['digest']]}")
            seen[case["digest"]] = case["name"]
            self.check(f"arguments:{case['name']}", problems)

    # -- the examples quoted in FORMAT.md ------------------------------------

    def spec_examples(self, sealed_basic: dict | None, carried: dict | None,
                      reask: dict | None) -> None:
        def expect(name: str, cond: bool, what: str) -> None:
            self.check(f"spec-example:{name}", [] if cond else [what])

        expect("b64-_-4", _try(lambda: b64url_decode("_-4")) == b"\xff\xee", "'_-4' must decode to ff ee")
        expect("b64-_-5", _try(lambda: b64url_decode("_-5")) is None, "'_-5' must be refused")
        k = derive(bytes(range(32)))
        expect("key-id", k.key_id.hex() == "e6da0adc", f"key id {k.key_id.hex()} != e6da0adc")
        expect("master-b64", _std_b64("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=") == bytes(range(32)),
               "quoted base64 of the master key")
        d = arguments_digest({"orderId": 42}).hex()
        expect("digest-orderId", d == "b2b902820ddfbdcf3d183b65202fdcf42c258519afdd8bc71c77bd2ea98b3b6a",
               f"digest of {{\"orderId\":42}} is {d}")
        same = arguments_digest(strict_json(b'{"b":2.0,"a":1}')) == arguments_digest(strict_json(b'{"a":1,"b":2}'))
        expect("digest-order-and-2.0", same, '{"b":2.0,"a":1} and {"a":1,"b":2} differ')
        # §4.1's table of number spellings.
        for text, want in [("1", "1"), ("1.0", "1"), ("1e0", "1"), ("-0", "0"), ("-0.0", "0"), ("1E2", "100"),
                           ("0.1", "0.1"), ("1e-7", "1e-7"), ("9007199254740993", "9007199254740993"),
                           ("9007199254740993.0", "9007199254740992"),
                           ("1234567890123456789", "1234567890123456789"),
                           ("1.234567890123456789e18", "1234567890123456768"),
                           ("18446744073709551615", "18446744073709551615"),
                           ("18446744073709551617", "18446744073709551616"),
                           ("-9223372036854775809", "-9223372036854775808"),
                           ("9.223372036854776e18", "9223372036854775808"),
                           ("999999999999999999999", "1e+21"), ("1e21", "1e+21"), ("1e-400", "0")]:
            got = _try(lambda: canonical(strict_json(text.encode())).decode())
            expect(f"number-{text}", got == want, f"{text} is written {got}, §4.1 says {want}")
        expect("number-1e400", _try(lambda: strict_json(b"1e400")) is None, "1e400 must be refused")
        quoted_ans = ('"ans":{"account":{"q":"ek7cFcEUH019RAQF6ymdoazNaAospNI7e3JsySfr6Qc",'
                      '"r":{"action":"accept","content":{"email":"ada@example.com"}}},'
                      '"newsletter":{"q":"0CanreS_oSratBWZs66l-EwgLm7aP-ISZgLNopusDvw","r":{"action":"decline"}},')
        expect("ans-example", carried is not None and quoted_ans in carried["claims_json"],
               "§5 ans example is not in sealed-carried-answers-unicode's claims_json")
        quoted = ('{"iat":1800000060,"exp":1800000660,"dl":1800001860,"rnd":1,"fid":"AQEBAQEBAQEBAQEBAQEBAQ",'
                  '"q":{"ship":"yqGKo7OhMf4t0f05mWPOkQALdU8zD0VYGc8ZK8K6TwI"},"ans":{},"app":{"cart":17}}')
        expect("claims-example", sealed_basic is not None and sealed_basic["claims_json"] == quoted,
               "§5 example is not sealed-basic's claims_json")
        quoted_inv = ('"q":{"account":"f0f4yURLtMoS8HXzXMXYoQgSCUsIaJowQ_QIxxK5q_g"},"ans":{},'
                      '"inv":{"account":{"q":"dLAagd12d6LdHdOZkOsXu9fMonRKYyIBHYwSoam9SJ4","n":2}},'
                      '"once":["welcome-email"],"app":null}')
        expect("inv-once-example", reask is not None and reask["claims_json"].endswith(quoted_inv),
               "§5.3 inv/once example is not the end of sealed-reask-and-effects's claims_json")
        self.sizes(expect)

    def sizes(self, expect) -> None:
        """§5.4: the lengths a minter plans with, measured on this serializer."""
        widest = Claims(TIME_MIN, TIME_MIN, TIME_MIN, U32_MAX, bytes(16), {}, {}, None)
        bare = len(serialize_claims(widest))
        expect("size-skeleton", bare == 131 + len("null"), f"widest skeleton is {bare - 4} bytes, not 131")
        with_q = dict(widest.__dict__, q={"k": bytes(32)})
        grown = len(serialize_claims(Claims(**with_q))) - bare
        expect("size-question", grown == len('"k"') + 47 - 1, f"one question adds {grown}")
        decline = Proven(bytes(32), {"action": "decline"})
        one = len(serialize_claims(Claims(**dict(widest.__dict__, ans={"k": decline})))) - bare
        two = len(serialize_claims(Claims(**dict(widest.__dict__, ans={"k": decline, "l": decline})))) - bare
        frame = len('"k"') + len('{"action":"decline"}') + 58
        expect("size-answer", (one, two - one) == (frame - 1, frame), f"answers add {one}, then {two - one}")
        inv = dict(with_q, inv={"k": Reask(bytes(32), 1)})
        grown = len(serialize_claims(Claims(**inv))) - len(serialize_claims(Claims(**with_q)))
        expect("size-inv", grown == 7 + len('{"k":{"q":"' + "A" * 43 + '","n":1}}'), f"inv adds {grown}")
        grown = len(serialize_claims(Claims(**dict(widest.__dict__, once=["e"])))) - bare
        expect("size-once", grown == 8 + len('["e"]'), f"once adds {grown}")
        grown = len(serialize_claims(Claims(**dict(widest.__dict__, step={"s": 12})))) - bare
        expect("size-step", grown == 8 + len('{"s":12}'), f"step adds {grown}")
        grown = len(serialize_claims(Claims(**dict(widest.__dict__, gen=bytes(8))))) - bare
        expect("size-gen", grown == 20, f"gen adds {grown}")
        # The longest claims within L characters, and the runtime's shares.
        for mode, frame_len, claims_len, answers, rest in (("sealed", 45, 6099, 4476, 1492),
                                                          ("signed", 37, 6107, 4482, 1494)):
            most = 3 * 8192 // 4
            fits = len(b64url_encode(bytes(most))) <= 8192 < len(b64url_encode(bytes(most + 1)))
            expect(f"size-{mode}-claims", fits and most - frame_len == claims_len,
                   f"{mode}: {most - frame_len} bytes of claims fit in 8192 characters")
            room = claims_len - 131
            expect(f"size-{mode}-shares", (room * 3 // 4, room - room * 3 // 4) == (answers, rest),
                   f"{mode}: shares {room * 3 // 4} and {room - room * 3 // 4}")

    # -- paths no vector reaches (claims only a key holder can produce) -------

    def self_checks(self) -> None:
        ring = KeyRing(bytes(range(32)))
        b = Binding("user-7", "tools/call", "ShipOrder", {"orderId": 42})
        good = ('{"iat":100,"exp":700,"dl":1900,"rnd":1,"fid":"AQEBAQEBAQEBAQEBAQEBAQ",'
                '"q":{},"ans":{},"app":null}')
        bad_claims = {
            "not-json": "{",
            "array": "[]",
            "missing-app": good.replace(',"app":null', ""),
            "extra-member": good.replace('"app":null', '"app":null,"x":1'),
            "duplicate-member": good.replace('"app":null', '"app":null,"app":null'),
            "iat-float": good.replace('"iat":100', '"iat":100.0'),
            "iat-before-range": good.replace('"iat":100', f'"iat":{TIME_MIN - 1}'),
            "exp-after-range": good.replace('"exp":700', f'"exp":{TIME_MAX + 1}'),
            "iat-string": good.replace('"iat":100', '"iat":"100"'),
            "iat-minus-zero": good.replace('"iat":100', '"iat":-0'),
            "rnd-bool": good.replace('"rnd":1', '"rnd":true'),
            "rnd-over-u32": good.replace('"rnd":1', f'"rnd":{U32_MAX + 1}'),
            "dl-over-u64": good.replace('"dl":1900', f'"dl":{2**64}'),
            "fid-15-bytes": good.replace("AQEBAQEBAQEBAQEBAQEBAQ", "AQEBAQEBAQEBAQEBAQEB"),
            "fid-padded": good.replace("AQEBAQEBAQEBAQEBAQEBAQ", "AQEBAQEBAQEBAQEBAQEBAQ=="),
            "q-31-bytes": good.replace('"q":{}', '"q":{"k":"' + b64url_encode(bytes(31)) + '"}'),
            "q-not-object": good.replace('"q":{}', '"q":[]'),
            "ans-not-object": good.replace('"ans":{}', '"ans":null'),
            "ans-untyped": good.replace('"ans":{}', '"ans":{"k":"yes"}'),
            "ans-r-array": good.replace('"ans":{}', '"ans":{"k":{"q":"' + b64url_encode(bytes(32)) + '","r":[]}}'),
            "ans-q-hex": good.replace('"ans":{}', '"ans":{"k":{"q":"' + bytes(32).hex() + '","r":{}}}'),
            "inv-empty": good.replace('"app":null', '"inv":{},"app":null'),
            "inv-not-in-q": good.replace('"app":null', '"inv":{"k":{"q":"' + b64url_encode(bytes(32)) + '","n":1}},"app":null'),
            "inv-n-bool": good.replace('"q":{}', '"q":{"k":"' + b64url_encode(bytes(32)) + '"}')
                              .replace('"app":null', '"inv":{"k":{"q":"' + b64url_encode(bytes(32)) + '","n":true}},"app":null'),
            "once-empty": good.replace('"app":null', '"once":[],"app":null'),
            "once-null": good.replace('"app":null', '"once":null,"app":null'),
            "nan": good.replace('"app":null', '"app":NaN'),
            "lone-surrogate": good.replace('"app":null', '"app":"\\ud800"'),
            "too-deep": good.replace('"app":null', '"app":' + "[" * 127 + "]" * 127),
            "q-key-twice": good.replace('"q":{}', '"q":{"k":"' + b64url_encode(bytes(32)) + '","k":"'
                                        + b64url_encode(bytes(32)) + '"}'),
            "bad-utf8": None,
        }
        for mode in ("sealed", "signed"):
            codec = Codec(mode, "aud", ring)
            nonce = bytes(24) if mode == "sealed" else None
            for label, text in bad_claims.items():
                data = b'{"iat":100,"app":"\xff"}' if text is None else text.encode("utf-8")
                tok = codec.mint_bytes(data, b, nonce)
                r = _reason(lambda: codec.open(tok, b, 200))
                self.check(f"self:{mode}-bad-claims-{label}",
                           [] if r == "bad_claims" else [f"expected bad_claims, got {r}"])
            # §5.2: 126 levels in app (127 with the claims) parse; inside r and
            # app a repeated member name keeps the last
            deep = good.replace('"app":null', '"app":' + "[" * 126 + "]" * 126)
            tok = codec.mint_bytes(deep.encode(), b, nonce)
            r = _reason(lambda: codec.open(tok, b, 200))
            self.check(f"self:{mode}-depth-127", [] if r is None else [f"got {r}"])
            twice = good.replace('"ans":{}', '"ans":{"k":{"q":"' + b64url_encode(bytes(32))
                                 + '","r":{"a":1,"a":2}}}').replace('"app":null', '{"x":1,"x":2}'.join(['"app":', '']))
            tok = codec.mint_bytes(twice.encode(), b, nonce)
            got = _try(lambda: codec.open(tok, b, 200))
            ok = got is not None and got.ans["k"].r == {"a": 2} and got.app == {"x": 2}
            self.check(f"self:{mode}-repeated-name-in-r-and-app", [] if ok else ["not kept the last"])
            # rnd 0 parses, then fails step 11
            tok = codec.mint_bytes(good.replace('"rnd":1', '"rnd":0').encode(), b, nonce)
            r = _reason(lambda: codec.open(tok, b, 200))
            self.check(f"self:{mode}-rnd-0", [] if r == "too_many_rounds" else [f"got {r}"])
            # a negative time within range parses
            early = good.replace('"iat":100', '"iat":-100').replace('"exp":700', '"exp":500')
            tok = codec.mint_bytes(early.encode(), b, nonce)
            r = _reason(lambda: codec.open(tok, b, 200))
            self.check(f"self:{mode}-negative-iat", [] if r is None else [f"got {r}"])
            # checked arithmetic: iat + ttl beyond the range of §5 -> expired
            big = good.replace('"iat":100', f'"iat":{TIME_MAX - 50}') \
                      .replace('"exp":700', f'"exp":{TIME_MAX}').replace('"dl":1900', f'"dl":{TIME_MAX}')
            tok = codec.mint_bytes(big.encode(), b, nonce)
            r = _reason(lambda: codec.open(tok, b, TIME_MAX - 100))
            self.check(f"self:{mode}-iat-plus-ttl-overflow", [] if r == "expired" else [f"got {r}"])
            # round trip through the §9 minter, then the round cap and the deadline
            t1, c1 = codec.mint(1000, b, {"k": bytes(32)}, {}, {"n": 1}, fid=bytes(16), nonce=nonce)
            got = _try(lambda: codec.open(t1, b, 1000))
            ok = got is not None and got.dl == 1000 + 1800 and got.exp == 1600 and got.rnd == 1
            self.check(f"self:{mode}-mint-round-1", [] if ok else ["minted round 1 does not open as expected"])
            yes = Proven(bytes(32), {"action": "accept", "content": {"ok": True}})
            t2, c2 = codec.mint(1100, b, {}, {"k": yes}, None, previous=c1, nonce=nonce)
            got = _try(lambda: codec.open(t2, b, 1100))
            ok = (got is not None and got.rnd == 2 and got.fid == c1.fid and got.dl == c1.dl
                  and got.ans == {"k": yes})
            self.check(f"self:{mode}-mint-round-2", [] if ok else ["minted round 2 does not open as expected"])
            again = Reask(bytes(32), 2)
            claims3 = Claims(1200, 1800, c1.dl, 3, c1.fid, {"k": bytes(32)}, {}, None, {"k": again}, ["mail", "a"])
            t3 = codec.mint_bytes(serialize_claims(claims3), b, nonce)
            got = _try(lambda: codec.open(t3, b, 1200))
            ok = got is not None and got.inv == {"k": again} and got.once == ["a", "mail"]
            self.check(f"self:{mode}-inv-once", [] if ok else ["inv and once do not round-trip"])
            late = _try(lambda: codec.mint(c1.dl, b, {}, {}, None, previous=c1, nonce=nonce))
            self.check(f"self:{mode}-mint-after-deadline", [] if late is None else ["minted after dl"])
        # base64 edge cases of §1
        for s, ok in [("", b""), ("AA", b"\x00"), ("AAA", b"\x00\x00"), ("AAAA", b"\x00" * 3),
                      ("A", None), ("AAAAA", None), ("AB", None), ("AAB", None), ("AA==", None),
                      ("AA AA", None), ("AA\n", None), ("+/", None), ("ÀA", None)]:
            got = _try(lambda: b64url_decode(s))
            self.check(f"self:b64-{s!r}", [] if got == ok else [f"decoded to {got!r}, expected {ok!r}"])


def _try(fn):
    try:
        return fn()
    except (ValueError, Refused, MintRefused):
        return None


def _reason(fn) -> str | None:
    try:
        fn()
        return None
    except Refused as e:
        return e.reason


def main() -> int:
    run = Runner()
    files = {n: load_json(HERE / f"{n}.json") for n in ("sealed", "signed", "negative", "arguments")}
    sealed_basic = carried = reask = None
    counts = {"positive": 0, "negative": 0}
    for n in ("sealed", "signed"):
        for v in files[n]["vectors"]:
            if v.get("expect") != "valid":
                run.check(v["name"], [f"positive file holds expect={v.get('expect')!r}"])
                continue
            if v["name"] == "sealed-basic":
                sealed_basic = v
            if v["name"] == "sealed-carried-answers-unicode":
                carried = v
            if v["name"] == "sealed-reask-and-effects":
                reask = v
            run.positive(v)
            counts["positive"] += 1
    for v in files["negative"]["vectors"]:
        if v.get("expect") != "fail":
            run.check(v["name"], [f"negative file holds expect={v.get('expect')!r}"])
            continue
        run.negative(v)
        counts["negative"] += 1
    before = run.passed + run.failed
    run.arguments_cases(files["arguments"]["cases"])
    run.spec_examples(sealed_basic, carried, reask)
    run.self_checks()
    if run.notes:
        print("note: round-1 vectors whose dl is not iat + flow_ttl, as §9 would mint it: "
              + ", ".join(run.notes))
    print(f"({counts['positive']} positive and {counts['negative']} negative vectors, "
          f"{run.passed + run.failed - before} spec-example and self checks)")
    print(f"{run.passed} passed, {run.failed} failed")
    return 1 if run.failed else 0


if __name__ == "__main__":
    sys.exit(main())
