"""Bot tempo: every bot call and card shows ``bot_delay`` after the table's previous action, however long the bot
thought, so a forced card cannot be told from a free one by its timing; a bot's stale task is cancelled."""

import asyncio
import statistics
import time

from tribridge.server.tables.manager import TableManager

DELAY = 0.2
THINK = 0.12  # the stand-in bot thinks this long over a free card, not at all over a forced one
ALL_BOTS = {"chairs": [{"kind": "bot", "bot": "random"}] * 3, "seed": 5}


class Clock:
    """A subscriber stand-in that notes when each change was announced."""

    closed = False

    def __init__(self):
        self.times = []

    def notify(self):
        self.times.append(time.monotonic())

    async def close(self, code, reason):
        self.closed = True

    async def stop(self):
        self.closed = True


async def play_timed(tmp_path, actions):
    """Run an all-bot table whose bots think THINK over free cards; (forced?, seconds since the previous action)."""
    manager = TableManager(tmp_path / "tempo.sqlite", bot_delay=DELAY)
    await manager.start()
    kinds = []

    async def decide(table, chair, version):
        state = table.current()
        if chair is None:
            return {"type": "next"}
        if state.phase == "auction":
            kinds.append(None)
            return {"type": "call", "call": "P" if len(state.auction.calls) else "1N"}
        legal = state.play.legal_cards()
        kinds.append(len(legal) == 1)
        if len(legal) > 1:
            await asyncio.sleep(THINK)
        return {"type": "play", "card": str(legal[0])}

    manager.bot_turns()._bot_decision = decide  # type: ignore[method-assign]  # the bot turns' decision
    try:
        table, _ = await manager.create(ALL_BOTS)
        clock = Clock()
        clock.times.append(time.monotonic())
        manager.subscribers[table.table_id] = {clock}
        manager.schedule_work(table)
        deadline = time.monotonic() + 60
        while len(clock.times) <= actions and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
    finally:
        await manager.stop()
    gaps = [b - a for a, b in zip(clock.times, clock.times[1:])]
    return [(kind, gap) for kind, gap in zip(kinds, gaps) if kind is not None]


def test_forced_and_free_cards_take_the_same_time(tmp_path):
    timed = asyncio.run(play_timed(tmp_path, 56))  # a whole deal: 3 calls and 52 cards
    forced = [gap for kind, gap in timed if kind]
    free = [gap for kind, gap in timed if not kind]
    assert len(forced) >= 3 and len(free) >= 10, (len(forced), len(free))
    assert min(forced + free) >= DELAY * 0.95
    assert abs(statistics.median(free) - statistics.median(forced)) < THINK / 3, (forced, free)


def test_a_bots_task_is_cancelled_when_the_table_moves_on(tmp_path):
    async def scenario():
        manager = TableManager(tmp_path / "cancel.sqlite", bot_delay=0)
        await manager.start()
        started, cancelled = asyncio.Event(), asyncio.Event()

        async def decide(table, chair, version):
            started.set()
            try:
                await asyncio.sleep(60)
            except asyncio.CancelledError:
                cancelled.set()
                raise

        manager.bot_turns()._bot_decision = decide  # type: ignore[method-assign]  # the bot turns' decision
        try:
            table, token = await manager.create(
                {"chairs": [{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}], "take": 0}
            )
            # deal 1: chair 0 deals; chairs 1 and 2 are bots, so chair 0 acts first, then a bot thinks
            await manager.act(table, 0, {"type": "call", "call": "P"})
            await asyncio.wait_for(started.wait(), 10)
            table.log_len += 1  # the table moves on (as any accepted action would) while the bot thinks
            manager.schedule_work(table)
            await asyncio.wait_for(cancelled.wait(), 5)
        finally:
            await manager.stop()

    asyncio.run(scenario())
