"""The three-player tables: the store, the manager of live tables, views, pushes, bots at tables, review.

``store`` keeps every table's configuration and action log; ``manager`` holds the tables, their
subscribers and their bot turns; ``routes`` and ``review`` are the HTTP and WebSocket API over it,
reaching the manager through ``deps.get_manager``.
"""
