"""The HTTP and WebSocket routes: tables (``tables``), their exports and reviews (``exports``, ``review``) and
events (``events``), with the dependencies they share in ``deps``."""
