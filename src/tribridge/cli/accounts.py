"""``tribridge accounts list|disable|enable|reset-password``: the site operator's account tools (docs/cli.md)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (the store loads only when a command runs: ``tribridge --version`` stays instant)
    from tribridge.server.store import Store
    from tribridge.server.store.accounts import Account


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``accounts`` command group."""
    p = sub.add_parser(
        "accounts",
        help="player accounts: list, disable, enable, reset a password",
        description="The player accounts of a game store (see docs/server.md, Accounts, and docs/deploy.md).",
    )
    group = p.add_subparsers(dest="accounts_command", metavar="ACCOUNTS_COMMAND", required=True)
    listing = group.add_parser("list", help="every account: username, created, disabled, sessions")
    listing.set_defaults(func=run_list)
    for name, text in (("disable", "refuse the account's logins and end its sessions"), ("enable", "allow it again")):
        action = group.add_parser(name, help=text)
        action.add_argument("username")
        action.set_defaults(func=run_disable, disabled=name == "disable")
    reset = group.add_parser(
        "reset-password",
        help="give the account a new random password (printed once) and end its sessions",
        description="Give the account a new random password, printed once; every session of the account ends. "
        "Tell the person the password by a safe way; they should change it after logging in.",
    )
    reset.add_argument("username")
    reset.set_defaults(func=run_reset)
    for parser in (listing, *group.choices.values()):
        if not any(a.dest == "db" for a in parser._actions):  # noqa: SLF001
            parser.add_argument("--db", metavar="PATH|URL", help="the game store (default: the server's)")


def _open(args: argparse.Namespace) -> Store:
    from tribridge.server.app import default_db_path
    from tribridge.server.store import open_store

    return open_store(args.db or default_db_path())


def _account(store: Store, username: str) -> Account:
    from tribridge.errors import InvalidInput
    from tribridge.server.accounts.service import username_key

    account = store.account_by_key(username_key(username))
    if account is None:
        raise InvalidInput("username", f"no account {username[:40]!r}")
    return account


def run_list(args: argparse.Namespace) -> int:
    """Print one line per account."""
    import time

    store = _open(args)
    try:
        for a in store.list_accounts():
            created = time.strftime("%Y-%m-%d %H:%M", time.gmtime(a.created))
            state = "disabled" if a.disabled else "active"
            print(f"{a.username}\t{created} UTC\t{state}\t{len(store.sessions_of(a.account_id))} sessions")
    finally:
        store.close()
    return 0


def run_disable(args: argparse.Namespace) -> int:
    """Disable or enable an account."""
    store = _open(args)
    try:
        account = _account(store, args.username)
        store.set_disabled(account.account_id, args.disabled)
    finally:
        store.close()
    print(f"{account.username}: {'disabled, its sessions ended' if args.disabled else 'enabled'}")
    return 0


def run_reset(args: argparse.Namespace) -> int:
    """Set a new random password, end the sessions, print the password once."""
    import secrets

    from tribridge.server.accounts.passwords import HashPool

    password = "-".join(secrets.token_urlsafe(6) for _ in range(3))
    store = _open(args)
    try:
        account = _account(store, args.username)
        store.set_password_hash(account.account_id, HashPool.hash_now(password))
        store.delete_sessions(account.account_id)
    finally:
        store.close()
    print(f"{account.username}: new password {password} (every session ended)")
    return 0
