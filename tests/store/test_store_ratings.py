"""Ratings on both stores and as pure code: rebuild equals incremental, toward the winner, the anchor fixed."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tribridge.cli.main import main
from tribridge.events.boards import seeded_boards
from tribridge.events.results import TableResult, Traveller
from tribridge.server.accounts.rating_service import rate
from tribridge.server.accounts.ratings import (
    ANCHOR,
    FIELD_OPPONENTS,
    Game,
    Rating,
    duplicate_games,
    field_pairs,
    head_to_head,
    replay,
    update,
)
from tribridge.server.store import open_store

BOARD = seeded_boards(1, 1)[0]

RUNS = itertools.count()
ratings_st = st.builds(Rating, st.floats(0, 50), st.floats(0.5, 10), st.integers(0, 5))
games_st = st.lists(
    st.tuples(
        st.sampled_from(["p1", "p2", "p3", ANCHOR, "bot:random"]),
        st.sampled_from(["p1", "p2", "bot:pimc"]),
        st.sampled_from([0.0, 0.5, 1.0]),
    ).filter(lambda g: g[0] != g[1]),
    max_size=25,
)


def apply_all(store, games: list[Game]) -> None:
    for g in games:
        assert store.apply_game(g, lambda a, b, g=g: update(a, b, g.outcome, g.a == ANCHOR, g.b == ANCHOR))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(games_st)
def test_rebuild_equals_the_ratings_kept_game_by_game(store, raw):
    run = next(RUNS)
    name = lambda e: e if e.startswith("bot:") else f"{e}-{run}"  # noqa: E731 - the people of this example only
    games = [Game(f"{run}:{n}", name(a), name(b), o) for n, (a, b, o) in enumerate(raw)]
    before = store.ratings()
    apply_all(store, games)
    assert not store.apply_game(games[0], lambda a, b: (a, b)) if games else True, "a game is applied once"
    replayed, history = replay(store.rating_games())
    kept = store.ratings()
    assert kept == replayed, "the ratings kept game by game are the rebuilt ones, exactly"
    people = {e for g in games for e in (g.a, g.b) if not e.startswith("bot:")}
    for entity in people:  # the graph's points: the rating after each of the person's games
        stored = [(r.mu, r.sigma) for _seq, r in store.rating_history(entity)]
        assert stored == [(r.mu, r.sigma) for e, _n, r in history if e == entity]
    assert all(before[e] == kept[e] or e.startswith("bot:") for e in before)


def traveller(scores: list[tuple[str, int]]) -> Traveller:
    """A board's traveller whose chair 0 holds ``scores`` (player, score) table by table, bots in chairs 1 and 2."""
    rows = [
        TableResult(1, n, (name, "filler 1", "filler 2"), (False, True, True), (), None, None, None, (score, 0, 0))
        for n, (name, score) in enumerate(scores, 1)
    ]
    return Traveller(BOARD, tuple(rows))


event_st = st.lists(st.tuples(st.sampled_from(["p1", "p2", "p3", "guest"]), st.integers(-3, 3)), max_size=4)
mixed_st = st.lists(
    st.one_of(st.tuples(st.just("bot"), games_st.map(lambda g: g[:2])), st.tuples(st.just("event"), event_st))
)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mixed_st)
def test_rebuild_equals_incremental_with_event_games_mixed_in(store, steps):
    run = next(RUNS)
    name = lambda e: e if e.startswith("bot:") else f"{e}-{run}"  # noqa: E731 - the people of this example only
    for n, (kind, step) in enumerate(steps):
        if kind == "bot":
            apply_all(store, [Game(f"{run}:{n}:{k}", name(a), name(b), o) for k, (a, b, o) in enumerate(step)])
        else:  # one board of an event: the people in chair 0 (once each), the guest not rated
            seen = {who: score for who, score in step}
            board = traveller([(f"{who}-{run}", score) for who, score in seen.items()])
            games = duplicate_games(
                f"event:{run}:{n}", board, lambda p: None if p.startswith(("guest", "filler")) else p
            )
            assert store.apply_games(games, rate) == len(games)
            assert store.apply_games(games, rate) == 0, "a board's games are applied once"
    replayed, _history = replay(store.rating_games())
    assert store.ratings() == replayed, "the ratings kept game by game are the rebuilt ones, exactly"


@given(st.integers(-500, 500), st.integers(-500, 500))
def test_an_event_game_moves_ratings_toward_the_better_score(mine, theirs):
    [game] = duplicate_games("event:e", traveller([("a", mine), ("b", theirs)]), lambda p: None if "filler" in p else p)
    after_a, after_b = rate(game, Rating(), Rating())
    if mine == theirs:
        assert game.outcome == 0.5 and after_a.mu == pytest.approx(after_b.mu)
    else:
        winner, loser = (after_a, after_b) if mine > theirs else (after_b, after_a)
        assert winner.mu > Rating().mu > loser.mu


@given(st.integers(0, 60))
def test_each_result_of_a_field_meets_at_most_the_bounded_number_of_others_each_pair_once(count):
    pairs = list(field_pairs(count))
    assert len({frozenset(p) for p in pairs}) == len(pairs) and all(i != j for i, j in pairs)
    met = [sum(k in p for p in pairs) for k in range(count)]
    assert met == [min(count - 1, FIELD_OPPONENTS)] * count


@given(ratings_st, ratings_st)
def test_ratings_move_toward_the_winner(a, b):
    won_a, lost_b = update(a, b, 1.0)
    assert won_a.mu > a.mu and lost_b.mu < b.mu
    lost_a, won_b = update(a, b, 0.0)
    assert lost_a.mu < a.mu and won_b.mu > b.mu
    assert won_a.games == a.games + 1 and lost_b.games == b.games + 1


@given(ratings_st, ratings_st, st.sampled_from([0.0, 0.5, 1.0]))
def test_a_game_does_not_depend_on_which_side_is_named_first(a, b, outcome):
    one_a, one_b = update(a, b, outcome)
    two_b, two_a = update(b, a, 1.0 - outcome)
    assert one_a.mu == pytest.approx(two_a.mu, abs=1e-9) and one_b.mu == pytest.approx(two_b.mu, abs=1e-9)
    assert one_a.sigma == pytest.approx(two_a.sigma, abs=1e-9) and one_b.sigma == pytest.approx(two_b.sigma, abs=1e-9)


@given(ratings_st, st.sampled_from([0.0, 0.5, 1.0]))
def test_the_anchor_never_moves(a, outcome):
    anchor = Rating()
    _a, after = update(a, anchor, outcome, b_fixed=True)
    assert (after.mu, after.sigma) == (anchor.mu, anchor.sigma) and after.games == 1
    ratings, _history = replay([Game("1", "p", ANCHOR, outcome), Game("2", ANCHOR, "q", 1 - outcome)])
    assert (ratings[ANCHOR].mu, ratings[ANCHOR].sigma) == (Rating().mu, Rating().sigma)


def test_the_rebuild_command_says_equal_and_repairs_a_damaged_rating(db_url, capsys):
    store = open_store(db_url)
    apply_all(store, [Game("g1", "p", "bot:random", 1.0), Game("g2", "p", ANCHOR, 0.0), Game("g3", "q", "p", 0.5)])
    kept = store.ratings()
    store.close()
    assert main(["ratings", "rebuild", "--db", db_url]) == 0
    assert "rebuilt 4 ratings from 3 games: equal to the kept ones" in capsys.readouterr().out
    store = open_store(db_url)
    with store.transaction() as tx:
        tx.execute("UPDATE ratings SET mu = mu + 1 WHERE entity = ?", ("p",))
    store.close()
    assert main(["ratings", "rebuild", "--db", db_url]) == 0
    assert "differed" in capsys.readouterr().out
    store = open_store(db_url)
    try:
        assert store.ratings() == kept
    finally:
        store.close()


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(games_st)
def test_a_players_games_and_head_to_head_records_count_each_game_once_from_its_side(store, raw):
    """The store's newest games of an entity are its games, newest first; its records add up to them, each
    game a win, tie or loss from its own side."""
    games = [Game(f"h2h:{next(RUNS)}", a, b, outcome) for a, b, outcome in raw]
    apply_all(store, games)
    for entity in ("p1", "p2", "bot:pimc"):
        mine = [g for g in games if entity in (g.a, g.b)]
        assert store.games_of(entity, 1000)[: len(mine)] == mine[::-1]
        records = {r.opponent: r for r in head_to_head(entity, mine)}
        for opponent, record in records.items():
            met = [g for g in mine if opponent in (g.a, g.b)]
            won = sum(1 for g in met if (g.outcome if g.a == entity else 1 - g.outcome) == 1.0)
            lost = sum(1 for g in met if (g.outcome if g.a == entity else 1 - g.outcome) == 0.0)
            assert (record.wins, record.ties, record.losses) == (won, len(met) - won - lost, lost)
        assert sum(r.wins + r.ties + r.losses for r in records.values()) == len(mine)
