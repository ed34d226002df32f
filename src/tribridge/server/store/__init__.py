"""The durable game store: its interface (``interface``), the queries written once (``sql``), the SQLite and
PostgreSQL backends (``sqlite``, ``postgres``, whose appends and log reads from the event loop are
``postgres_loop``), copying between stores (``copying``), and the one way async code reaches a store
(``facade.AsyncStore``).

Everything a caller needs is re-exported here: ``from tribridge.server.store import Store, open_store``.
"""

from tribridge.server.store.facade import AsyncStore, open_async_store
from tribridge.server.store.interface import (
    ACTION_NOTICE_BYTES,
    NOTICE_GROUPS,
    Coordination,
    Documents,
    LoggedAction,
    LoopLog,
    Seats,
    SeqTaken,
    Store,
    StoredTable,
    StoreTooNew,
    StoreUnavailable,
    TableActivity,
    TableLog,
    action_notice,
    is_postgres_url,
    log_problems,
    notice_group,
    open_store,
    parse_action_notice,
    sqlite_path,
    store_label,
    stored_table,
    token_hash,
)

__all__ = [
    "ACTION_NOTICE_BYTES",
    "NOTICE_GROUPS",
    "AsyncStore",
    "Coordination",
    "Documents",
    "LoggedAction",
    "LoopLog",
    "Seats",
    "SeqTaken",
    "Store",
    "StoreTooNew",
    "StoreUnavailable",
    "StoredTable",
    "TableActivity",
    "TableLog",
    "action_notice",
    "is_postgres_url",
    "log_problems",
    "notice_group",
    "open_async_store",
    "open_store",
    "parse_action_notice",
    "sqlite_path",
    "store_label",
    "stored_table",
    "token_hash",
]
