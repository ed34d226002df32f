"""Property tests: random and malformed parameters at every endpoint never give a 500 (400/403/404/409 or 200)."""

import string
from urllib.parse import quote

import numpy as np
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tribridge.cards import random_deal
from tribridge.server.app import create_app
from tribridge.server.tables.limits import TableLimits

OK_CODES = {200, 400, 403, 404, 409}
CALL_TOKENS = [
    "--",
    "Db",
    "Rd",
    "1C",
    "1D",
    "1H",
    "1S",
    "1N",
    "2C",
    "2S",
    "3N",
    "4H",
    "7N",
    "P",
    "X",
    "XX",
    "NT",
    "-",
    "ZZ",
    "8C",
]
CARD_TOKENS = ["SA", "HK", "DQ", "CJ", "ST", "H9", "D2", "C3", "S10", "ZZ", "S", "1", "AS"]


@pytest.fixture(scope="module")
def client(module_db_url):
    # the robot deadline is tested in test_server_robot_pool.py: a busy machine must not reach it here
    app = create_app(db_path=module_db_url, bot_delay=0, log_requests=False, robot_layouts=1, robot_deadline=120)
    many = 10**6  # the fuzzer creates a table per example: lift the per-client limits (tests/test_server_limits.py)
    app.state.manager.limits = TableLimits(
        live_tables=many, tables_per_client=many, creations_per_minute=many, creations_per_minute_per_client=many
    )
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


junk = st.text(alphabet=string.printable + "♠♥é\x00", max_size=30)
seats = st.one_of(st.sampled_from(["N", "E", "S", "W", "n", "north", "", "Q", "0"]), junk)
vuls = st.one_of(st.sampled_from(["None", "NS", "EW", "All", "-", "Both", "B", "", "ns"]), junk)
hands = st.one_of(
    st.integers(0, 2**32).map(lambda s: random_deal(np.random.default_rng(s))[s % 4].to_pbn()),
    st.sampled_from(["AKQ2.J54.T98.762", "AKQ2_J54_1098_762", "AKQ.J54.T98.762", "AKQA.J54.T98.762", "...", ""]),
    junk,
)
ctxs = st.one_of(
    st.lists(st.sampled_from(CALL_TOKENS), max_size=12).map("".join),
    st.lists(st.sampled_from(CALL_TOKENS), max_size=8).map("-".join),
    junk,
)
playeds = st.one_of(st.lists(st.sampled_from(CARD_TOKENS), max_size=10).map("".join), junk)


def maybe(strategy):
    return st.one_of(st.none(), strategy)


params = st.fixed_dictionaries(
    {},
    optional={
        "seat": seats,
        "dealer": seats,
        "vul": vuls,
        "hand": hands,
        "dummy": hands,
        "ctx": ctxs,
        "played": playeds,
        "widow": seats,
        "model": st.sampled_from(["random", "tribridge", "", "nope"]),
        "board": junk,
        "ranking": junk,
    },
)


@given(endpoint=st.sampled_from(["bid", "lead", "play"]), api=st.sampled_from(["brill", "3pab"]), query=params)
@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
def test_robot_api_never_500(client, endpoint, api, query):
    if api == "3pab" and endpoint == "bid":
        query = dict(query, model=query.get("model") if query.get("model") in ("nope", "") else "random")
    r = client.get(f"/apis/{api}/{endpoint}", params=query)
    assert r.status_code in OK_CODES, (r.status_code, r.text)
    assert r.headers["access-control-allow-origin"] == "*"
    body = r.json()
    if r.status_code == 400:
        assert isinstance(body["error"], str) and body["error"]
    else:
        assert ("bid" in body) if endpoint == "bid" else ("card" in body)


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-5, 2**70), st.floats(allow_nan=False, allow_infinity=False), junk),
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(junk, children, max_size=4)),
    max_leaves=10,
)
actions = st.one_of(
    st.fixed_dictionaries(
        {"type": st.sampled_from(["call", "play", "claim", "next", "x"])},
        optional={
            "call": st.one_of(st.sampled_from(["P", "1N", "X", "XX", "7N"]), json_values),
            "card": st.one_of(st.sampled_from(CARD_TOKENS), json_values),
            "tricks": json_values,
            "version": json_values,
        },
    ),
    json_values,
)
table_bodies = st.one_of(
    st.fixed_dictionaries(
        {},
        optional={
            "chairs": st.one_of(
                st.lists(
                    st.sampled_from(
                        [
                            {"kind": "human"},
                            {"kind": "bot", "bot": "random"},
                            {"kind": "bot", "bot": "nope"},
                            {"kind": 3},
                            "x",
                        ]
                    ),
                    max_size=4,
                ),
                json_values,
            ),
            "scheme": st.one_of(st.sampled_from(["classic", "tribridge", "x"]), json_values),
            "seed": json_values,
            "take": json_values,
            "options": json_values,
        },
    ),
    json_values,
)


@given(
    body=table_bodies,
    action=actions,
    chair=st.one_of(st.sampled_from(["0", "1", "2", "3", "-1"]), junk),
    token=st.one_of(st.none(), junk),
)
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
def test_table_api_never_500(client, body, action, chair, token):
    r = client.post("/api/tables", json=body)
    assert r.status_code in OK_CODES, r.text
    tid = r.json().get("table_id", "missing") if r.status_code == 200 else "missing"
    chair = quote(chair, safe="")
    r = client.post(f"/api/tables/{tid}/seats/{chair}")
    assert r.status_code in OK_CODES | {405}, r.text
    good = r.json().get("token") if r.status_code == 200 else None
    for tok in (token, good):
        headers = {"Authorization": f"Bearer {tok}"} if tok and tok.isprintable() and tok.isascii() else {}
        r = client.post(f"/api/tables/{tid}/actions", headers=headers, json=action)
        assert r.status_code in OK_CODES, r.text
        r = client.get(f"/api/tables/{tid}/state", headers=headers)
        assert r.status_code in OK_CODES, r.text
        r = client.get(f"/api/tables/{tid}/hands/{chair}", headers=headers)
        assert r.status_code in OK_CODES | {405}, r.text
