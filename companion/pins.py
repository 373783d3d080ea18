"""Table PINs at rest: what the database keeps so that reading it does not reveal a PIN quickly.

A PIN is 4 to 12 digits, so a fast hash of it is reversed by trying every PIN
(10^4 tries for four digits). The stored form is scrypt, a slow and
memory-hard key-derivation function from the standard library, with a salt
of its own per table and its cost written beside it, so the cost can rise
later without losing a table:

    scrypt$<n>$<r>$<p>$<hex>          a PIN stored by this version
    scrypt-hmac$<n>$<r>$<p>$<hex>     an older table's HMAC-SHA256(salt, PIN), wrapped in scrypt
    <64 hex digits>                   the older form itself, until `upgrade` wraps it

Older databases are upgraded without the PINs (which nobody has): their
HMAC is wrapped in scrypt, and checking a PIN recomputes the HMAC first.
"""
from __future__ import annotations

import hashlib
import hmac
import secrets

# About 30 ms and 16 MiB here, a few hundred ms on a Raspberry Pi: paid once per phone
# that unlocks (the service remembers a PIN it has checked), and by anyone trying
# every PIN from a copy of the database 10^4 times over.
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
_MAXMEM = 64 * 1024 * 1024


def new_salt() -> str:
    return secrets.token_hex(16)


def _scrypt(secret: bytes, salt: str, n: int, r: int, p: int) -> str:
    return hashlib.scrypt(secret, salt=salt.encode(), n=n, r=r, p=p, maxmem=_MAXMEM, dklen=32).hex()


def _legacy(pin: str, salt: str) -> str:
    """The form older versions stored: HMAC-SHA256 keyed with the salt (fast, so reversible)."""
    return hmac.new(salt.encode(), pin.encode(), hashlib.sha256).hexdigest()


def hash_pin(pin: str, salt: str) -> str:
    """The stored form of a table PIN."""
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${_scrypt(pin.encode(), salt, SCRYPT_N, SCRYPT_R, SCRYPT_P)}"


def is_legacy(stored: str) -> bool:
    """True for the older, fast form that `upgrade` wraps."""
    return not stored.startswith(("scrypt$", "scrypt-hmac$"))


def upgrade(stored: str, salt: str) -> str:
    """The older HMAC form wrapped in scrypt (no PIN needed); other forms are returned unchanged."""
    if not is_legacy(stored):
        return stored
    return f"scrypt-hmac${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${_scrypt(stored.encode(), salt, SCRYPT_N, SCRYPT_R, SCRYPT_P)}"


def verify(pin: str, salt: str, stored: str) -> bool:
    """True if `pin` is the PIN stored as `stored` with `salt` (any of the three forms)."""
    kind, _, rest = stored.partition("$")
    if kind not in ("scrypt", "scrypt-hmac"):
        return hmac.compare_digest(_legacy(pin, salt), stored)
    try:
        n, r, p, digest = rest.split("$")
        n, r, p = int(n), int(r), int(p)
    except ValueError:
        return False
    secret = _legacy(pin, salt) if kind == "scrypt-hmac" else pin
    return hmac.compare_digest(_scrypt(secret.encode(), salt, n, r, p), digest)
