"""Passwords: the rules a new one must meet (NIST SP 800-63B) and Argon2id hashing on a bounded pool of threads.

The rules: at least ``MIN_LENGTH`` characters, at most ``MAX_LENGTH`` (long passphrases welcome), no rules of
composition, not the username, and not on the shipped list of common passwords (``common_passwords``:
the bases in ``tribridge/data/common_passwords.txt`` with their usual variants). Passwords are normalised
to Unicode NFKC before they are checked or hashed, so the same phrase typed on another keyboard matches.

Hashing is argon2-cffi's ``PasswordHasher`` with its defaults (Argon2id, RFC 9106's second recommended
profile: 3 passes over 64 MiB, 4 lanes). A hash costs tens of milliseconds of CPU, so it never runs on the
event loop: ``HashPool`` runs it on ``HASH_THREADS`` threads of its own and lets at most ``HASH_QUEUE``
requests wait for them; one more is refused at once with ``TooMany`` (429, retry in a second), so a flood
of logins neither stalls the tables nor grows an unbounded queue.
"""

from __future__ import annotations

import asyncio
import functools
import unicodedata
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from typing import TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from tribridge.errors import InvalidInput
from tribridge.server.tables.limits import TooMany

__all__ = [
    "HASH_QUEUE",
    "HASH_THREADS",
    "MAX_LENGTH",
    "MIN_LENGTH",
    "HashPool",
    "check_new_password",
    "common_passwords",
    "normalise",
]

MIN_LENGTH = 8
MAX_LENGTH = 256  # long passphrases are welcome; past this it is no password but a way to spend our CPU
HASH_THREADS = 2
HASH_QUEUE = 32  # hashes waiting for a thread at most; one more gets 429
SUFFIXES = ("", "1", "12", "123", "1234", "12345", "123456", "01", "007", "!", "1!", "123!", "69", "99", "00")
YEARS = tuple(str(y) for y in range(1990, 2031))
KEYBOARD = (
    "qwertyuiop",
    "asdfghjkl",
    "zxcvbnm",
    "1q2w3e4r5t",
    "1qaz2wsx3edc",
    "q1w2e3r4t5",
    "qwerty123",
    "azertyuiop",
    "qwertzuiop",
    "!qaz2wsx",
)

T = TypeVar("T")


def normalise(password: str) -> str:
    """The password as checked and hashed: Unicode NFKC."""
    return unicodedata.normalize("NFKC", password)


@functools.cache
def common_passwords() -> frozenset[str]:
    """The refused passwords, lower-cased: each shipped base with its usual variants, digit runs, keyboard rows."""
    text = resources.files("tribridge").joinpath("data", "common_passwords.txt").read_text(encoding="utf-8")
    bases = [line.strip().lower() for line in text.splitlines() if line.strip() and not line.startswith("#")]
    refused = {b + s for b in bases for s in (*SUFFIXES, *YEARS)}
    digits = "12345678901234567890"
    for length in range(MIN_LENGTH, 21):
        refused.add(digits[:length])
        refused.add(digits[:length][::-1])
        refused.update(d * length for d in "0123456789")
    for row in KEYBOARD:
        for length in range(MIN_LENGTH, len(row) + 1):
            refused.add(row[:length])
        refused.update(row + s for s in SUFFIXES)
    return frozenset(p for p in refused if len(p) >= MIN_LENGTH)


def check_new_password(password: object, username: str, field: str = "password") -> str:
    """The normalised password if it meets the rules, else ``InvalidInput`` naming ``field`` and the rule."""
    if not isinstance(password, str):
        raise InvalidInput(field, "expected a string")
    text = normalise(password)
    if len(text) < MIN_LENGTH:
        raise InvalidInput(field, f"at least {MIN_LENGTH} characters, please (a phrase of several words is best)")
    if len(text) > MAX_LENGTH:
        raise InvalidInput(field, f"at most {MAX_LENGTH} characters")
    if text.lower() in common_passwords():
        raise InvalidInput(field, "this is one of the most common passwords; choose another")
    if text.lower() == username.lower():
        raise InvalidInput(field, "the password may not be the username")
    return text


class HashPool:
    """Argon2id hashing and verifying on a few threads of its own, with a bounded queue (see the module doc)."""

    def __init__(self, threads: int = HASH_THREADS, queue: int = HASH_QUEUE, hasher: PasswordHasher | None = None):
        self.hasher = hasher or PasswordHasher()
        self._threads = ThreadPoolExecutor(threads, thread_name_prefix="tribridge-hash")
        self._slots = threads + queue
        self._busy = 0
        self._dummy: str | None = None

    async def _run(self, work: Callable[[], T]) -> T:
        if self._busy >= self._slots:
            raise TooMany("busy: too many logins at once; retry in a moment", retry_after=1)
        self._busy += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self._threads, work)
        finally:
            self._busy -= 1

    async def hash(self, password: str) -> str:
        """The Argon2id hash (PHC string, salt included) of a normalised password."""
        return await self._run(functools.partial(self.hasher.hash, password))

    async def verify(self, stored: str | None, password: str) -> bool:
        """Whether ``password`` matches the ``stored`` hash; with None (no such account) a hash of the same cost
        is checked all the same, so the answer takes as long either way."""
        known = stored is not None
        if self._dummy is None:  # made at the first login of any kind, so no first answer takes longer than others
            self._dummy = await self.hash("no account has this password")
        if stored is None:
            stored = self._dummy
        matched = await self._run(functools.partial(_matches, self.hasher, stored, normalise(password)))
        return matched and known

    @staticmethod
    def hash_now(password: str) -> str:
        """The Argon2id hash of a password, on this thread (for the command line, never the server)."""
        return PasswordHasher().hash(normalise(password))

    def needs_rehash(self, stored: str) -> bool:
        """Whether a stored hash was made with other parameters than today's (rehash it at the next login)."""
        return self.hasher.check_needs_rehash(stored)

    def close(self) -> None:
        """Stop the threads once the hashes under way are done."""
        self._threads.shutdown(wait=False)


def _matches(hasher: PasswordHasher, stored: str, password: str) -> bool:
    try:
        return hasher.verify(stored, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False
