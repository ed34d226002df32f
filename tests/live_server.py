"""Start a real `tribridge serve` on a free loopback port for tests that need a live server."""

from __future__ import annotations

from tribridge.testing import start_server

__all__ = ["start_server"]
