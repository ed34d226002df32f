"""Duplicate events: boards, movements, scoring (matchpoints, Butler and team IMPs), knockouts, the bot runner.

Pure modules (no I/O): ``boards``, ``movement``, ``scoring``, ``bracket``, ``results``, ``event`` (the
finished event as JSON-ready data) and ``export`` (PBN and JSON text); ``run`` plays an event of bots.
See docs/events.md.
"""

__all__: list[str] = []
