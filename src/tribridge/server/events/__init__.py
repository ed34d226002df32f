"""Duplicate events in the server: events kept in the game store, each entry an ordinary table (docs/events.md)."""

__all__: list[str] = []
