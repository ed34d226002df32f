"""Who an entry belongs to: one entry per person in an event.

A logged-in person enters as its account (``acct:ID``): one entry per account, under the account's username. A
*guest* is known by its client address: an event takes one guest entry per address, an IPv6 address counted by
its /64 (the range one home or one host is given), an IPv4 address as it is. Names
are compared by their confusable skeleton (Unicode UTS #39, ICU's ``SpoofChecker``) of the case-folded name,
so "Ann", "ann" and the Cyrillic "Аnn" are one name. The standings mark who is who (``Entrant.bot``: ``GUEST``
or ``ACCOUNT``). ``entrant_identity`` is the one place that says who an entrant is.
"""

from __future__ import annotations

import ipaddress
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

import icu

from tribridge.server.events.documents import EntryJson
from tribridge.server.events.travellers import PERSON

__all__ = ["ACCOUNT", "GUEST", "EntrantIdentity", "address_key", "entrant_identity", "entrant_kind", "name_skeleton"]

GUEST = "guest"
"""The ``events.results.Entrant.bot`` of a person who entered as a guest (by its client address)."""
ACCOUNT = "account"
"""The ``events.results.Entrant.bot`` of a person who entered as its account (logged in)."""
IPV6_PREFIX = 64


@dataclass(frozen=True)
class EntrantIdentity:
    """Who enters: the key that allows one entry per event (``guest:ADDRESS`` or ``acct:ID``), and whether it is a
    guest."""

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


def entrant_identity(client: str, account_id: str | None = None) -> EntrantIdentity:
    """The identity of a person entering from ``client``: its account when logged in, else a guest by its address."""
    if account_id is not None:
        return EntrantIdentity(f"acct:{account_id}", guest=False)
    return EntrantIdentity(f"guest:{address_key(client)}")


def entrant_kind(entry: EntryJson) -> str:
    """How the standings mark an entry (``Entrant.bot``): ``ACCOUNT``, ``GUEST``, or ``PERSON`` for one made before
    either was recorded."""
    if entry.get("account_id"):
        return ACCOUNT
    return GUEST if entry.get("guest") else PERSON


@lru_cache(maxsize=1)
def _checker() -> icu.SpoofChecker:
    return icu.SpoofChecker()


def name_skeleton(name: str) -> str:
    """The UTS #39 skeleton of a case-folded, NFKC name: two names that look alike have the same skeleton."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    return str(_checker().getSkeleton(0, folded)).casefold()
