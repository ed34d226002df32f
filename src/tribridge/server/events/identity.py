"""Who an entry belongs to: one entry per person in an event.

Every entrant is a *guest* for now, known by its client address: an event takes one entry per address, an
IPv6 address counted by its /64 (the range one home or one host is given), an IPv4 address as it is. Names
are compared by their confusable skeleton (Unicode UTS #39, ICU's ``SpoofChecker``) of the case-folded name,
so "Ann", "ann" and the Cyrillic "Аnn" are one name. A guest's results are marked in the standings (its
``Entrant.bot`` is ``GUEST``). ``entrant_identity`` is the one place that says who an entrant is: an account
would be a key of its own here.
"""

from __future__ import annotations

import ipaddress
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

import icu

__all__ = ["GUEST", "EntrantIdentity", "address_key", "entrant_identity", "name_skeleton"]

GUEST = "guest"
"""The ``events.results.Entrant.bot`` of a person who entered as a guest (by its client address)."""
IPV6_PREFIX = 64


@dataclass(frozen=True)
class EntrantIdentity:
    """Who enters: the key that allows one entry per event (``guest:ADDRESS``), and whether it is a guest."""

    key: str
    guest: bool = True


def address_key(client: str) -> str:
    """The client's address as counted for entries: IPv4 as it is, IPv6 by its /64, anything else as given."""
    try:
        address = ipaddress.ip_address(client)
    except ValueError:
        return client
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network(f"{address}/{IPV6_PREFIX}", strict=False))
    return str(address)


def entrant_identity(client: str) -> EntrantIdentity:
    """The identity of a person entering from ``client`` (a guest, by its address)."""
    return EntrantIdentity(f"guest:{address_key(client)}")


@lru_cache(maxsize=1)
def _checker() -> icu.SpoofChecker:
    return icu.SpoofChecker()


def name_skeleton(name: str) -> str:
    """The UTS #39 skeleton of a case-folded, NFKC name: two names that look alike have the same skeleton."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    return str(_checker().getSkeleton(0, folded)).casefold()
