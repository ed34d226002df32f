"""The house's daily event (both store backends): opened by the server itself, one always open, the next day's
at the set time, created once by several server processes on one store; its settings from the environment."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient

from event_helpers import enter, move_clock
from tribridge.errors import InvalidInput
from tribridge.server.app import create_app
from tribridge.server.events.daily import DailySettings, daily_period


def house_events(client) -> list[dict]:
    """The house's daily events the list shows."""
    return [e for e in client.get("/api/events").json()["events"] if e["house"]]


def utc_day(seconds: float) -> str:
    """The UTC date of a wall-clock time, as YYYYMMDD."""
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y%m%d")


def test_the_server_opens_todays_daily_event_itself(client):
    """Without any request the server's task opens today's daily event (six boards, closing at the next UTC
    midnight); the list shows it; a day later the next one is open and the first one is not listed."""
    now = client.app.state.events.clock()
    event_id = f"daily-{utc_day(now)}"
    deadline = time.monotonic() + 30
    while client.get(f"/api/events/{event_id}").status_code != 200:  # asking for it by id opens nothing
        assert time.monotonic() < deadline, "the server did not open its daily event"
        time.sleep(0.05)
    [listed] = house_events(client)
    midnight = datetime.fromtimestamp(now, UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    assert listed["event_id"] == event_id and listed["form"] == "daily" and listed["open"]
    assert listed["boards"] == 6 and listed["closes_at"] == (midnight + timedelta(days=1)).timestamp()
    move_clock(client, 24 * 3600)
    [tomorrow] = house_events(client)
    assert tomorrow["event_id"] == f"daily-{utc_day(now + 24 * 3600)}" != event_id


def test_the_daily_event_is_made_once_by_two_processes(db_url):
    """Two server processes' apps on one store open the day's event at once, again and again: one document, and an
    entry made through one of them is still there after the other's tries (never written over)."""
    apps = [create_app(db_path=db_url, bot_delay=0, log_requests=False) for _ in range(2)]
    with TestClient(apps[0]) as one, TestClient(apps[1]) as two:
        services = [c.app.state.events for c in (one, two)]
        services[1].owner = "events:another-process"  # (one process here: tell the two apart as two processes are)

        def burst() -> set[str | None]:
            ids: set[str | None] = set()
            for client, service in zip((one, two), services):
                ids |= set(client.portal.call(_many, service))
            return ids

        [event_id] = burst()
        enter(one, event_id, "Ann")
        assert burst() == {event_id}
        document = two.portal.call(services[1].load, event_id)  # as the other process reads it from the store
        assert [e["name"] for e in document["entries"]] == ["Ann"]
        ids = two.portal.call(services[1].store.event_ids)
        assert [i for i in ids if i.startswith("daily-")] == [event_id]


async def _many(service) -> list[str | None]:
    return list(await asyncio.gather(*(service.ensure_daily() for _ in range(6))))


def test_the_daily_setting_off_opens_none(db_url, monkeypatch):
    """``TRIBRIDGE_DAILY=off``: no house event."""
    monkeypatch.setenv("TRIBRIDGE_DAILY", "off")
    with TestClient(create_app(db_path=db_url, bot_delay=0, log_requests=False)) as client:
        assert house_events(client) == []


def test_the_daily_time_and_boards_come_from_the_environment():
    """``TRIBRIDGE_DAILY_AT=18:30``: at 10:00 UTC the open event opened yesterday at 18:30; bad values name the
    variable."""
    settings = DailySettings.from_env({"TRIBRIDGE_DAILY_AT": "18:30", "TRIBRIDGE_DAILY_BOARDS": "2"})
    assert settings.enabled and settings.boards == 2
    now = datetime(2026, 12, 6, 10, 0, tzinfo=UTC).timestamp()
    period = daily_period(now, settings.at_minutes)
    assert period.opens == datetime(2026, 12, 5, 18, 30, tzinfo=UTC).timestamp()
    assert period.closes == datetime(2026, 12, 6, 18, 30, tzinfo=UTC).timestamp()
    assert period.event_id == "daily-20261205"
    later = datetime(2026, 12, 6, 18, 30, tzinfo=UTC).timestamp()
    assert daily_period(later, settings.at_minutes).event_id == "daily-20261206"
    for name, value in (("TRIBRIDGE_DAILY_AT", "25:00"), ("TRIBRIDGE_DAILY_BOARDS", "0"), ("TRIBRIDGE_DAILY", "x")):
        with pytest.raises(InvalidInput, match=name):
            DailySettings.from_env({name: value})


def test_a_process_holding_the_days_lease_is_left_to_create_it(client):
    """While another process holds the lease of the day's event, this one does not write it; once the lease is
    given back, this one creates it."""
    events = client.app.state.events
    move_clock(client, 3 * 24 * 3600)  # a day nobody has opened yet
    period = daily_period(events.clock(), events.daily.at_minutes)
    key = f"event:{period.event_id}"
    assert client.portal.call(events.store.acquire_lease, key, "events:another-process", 30.0)
    assert client.portal.call(events.ensure_daily) == period.event_id
    assert client.portal.call(events.store.load_event, period.event_id) is None
    client.portal.call(events.store.release_lease, key, "events:another-process")
    client.portal.call(events.ensure_daily)
    assert client.portal.call(events.store.load_event, period.event_id) is not None
