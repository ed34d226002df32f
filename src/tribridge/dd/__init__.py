"""Double dummy over endplay/DDS: one solver call per module, one pool of solver processes, the cache on its own.

- :mod:`~tribridge.dd.dds`: the one door to DDS (:func:`require_dds`, :class:`SolverUnavailable`) and its layout;
- :mod:`~tribridge.dd.convert`: owner batches, endplay ``Deal``/``Card`` conversion;
- :mod:`~tribridge.dd.position`: :class:`Position` and :func:`position_after` (play replayed under the rules);
- :mod:`~tribridge.dd.solve`: :func:`solve_positions` (tricks for each legal card);
- :mod:`~tribridge.dd.table`: DD tables and single declarer cells for batches of deals;
- :mod:`~tribridge.dd.cache`: the SQLite cache of tables;
- :mod:`~tribridge.dd.pool`: the solver processes, the one DDS lock, priority classes for solver work.

Importing this package does not import endplay (about a second); the first solve does.
"""

from tribridge.dd.cache import DDCache, deal_keys, default_cache_path
from tribridge.dd.convert import from_card, from_endplay, to_endplay
from tribridge.dd.dds import NT, STRAIN_NAMES, UNKNOWN, SolverUnavailable, require_dds
from tribridge.dd.pool import (
    Priority,
    QueueFull,
    SolverPool,
    configure_pool,
    default_workers,
    shutdown_pool,
    solver_pool,
    solving_at,
)
from tribridge.dd.position import Position, position_after, position_from_play_state
from tribridge.dd.solve import solve_position, solve_positions
from tribridge.dd.table import dd_declarer_tricks, dd_nt_tricks, dd_table, dd_tables_array, table_to_dict

__all__ = [
    "NT",
    "STRAIN_NAMES",
    "UNKNOWN",
    "DDCache",
    "Position",
    "Priority",
    "QueueFull",
    "SolverPool",
    "SolverUnavailable",
    "configure_pool",
    "dd_declarer_tricks",
    "dd_nt_tricks",
    "dd_table",
    "dd_tables_array",
    "deal_keys",
    "default_cache_path",
    "default_workers",
    "from_card",
    "from_endplay",
    "position_after",
    "position_from_play_state",
    "require_dds",
    "shutdown_pool",
    "solve_position",
    "solve_positions",
    "solver_pool",
    "solving_at",
    "table_to_dict",
    "to_endplay",
]
