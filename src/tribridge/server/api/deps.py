"""The table API's dependencies in one place: the ``TableManager`` of the app, reached by every route."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends
from starlette.requests import HTTPConnection

from tribridge.server.tables.manager import TableManager

__all__ = ["Manager", "get_manager"]


async def get_manager(connection: HTTPConnection) -> TableManager:
    """The app's table manager (set by ``create_app``), for HTTP requests and WebSockets alike; async, so FastAPI
    calls it on the event loop instead of a worker thread."""
    manager = connection.app.state.manager
    if not isinstance(manager, TableManager):
        raise RuntimeError("the app has no table manager")
    return manager


Manager = Annotated[TableManager, Depends(get_manager)]
