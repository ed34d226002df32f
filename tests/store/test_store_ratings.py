"""Ratings on both stores and as pure code: rebuild equals incremental, toward the winner, the anchor fixed."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tribridge.cli.main import main
from tribridge.server.accounts.ratings import ANCHOR, Game, Rating, replay, update
from tribridge.server.store import open_store

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
