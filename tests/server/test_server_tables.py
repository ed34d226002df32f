"""Three-player tables over REST and WebSocket: visibility, tokens (403), invalid actions change nothing, bots, export, replay."""

import re
import time

import pytest
from fastapi.testclient import TestClient

from tribridge.rules.game import DealRecord
from tribridge.rules.lin import read_lin
from tribridge.server.app import create_app

pytestmark = pytest.mark.loop_watch  # servers watched for a blocked loop (loop_watch_check)

CARD = re.compile(r"^[SHDC][AKQJT98765432]$")
HUMANS = [{"kind": "human"}, {"kind": "human"}, {"kind": "human"}]


def cards_in(obj, skip=("analysis",)):
    """Every card-like string anywhere in a JSON value."""
    out = set()
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k not in skip:
                out |= cards_in(v, skip)
    elif isinstance(obj, list):
        for v in obj:
            out |= cards_in(v, skip)
    elif isinstance(obj, str) and CARD.match(obj):
        out.add(obj)
    return out


@pytest.fixture()
def client(db_url):
    app = create_app(db_path=db_url, bot_delay=0, log_requests=False)
    with TestClient(app) as c:
        yield c


def new_table(client, chairs=HUMANS, seed=7):
    body = {"chairs": chairs, "scheme": "classic", "take": 0}
    if sum(c["kind"] == "human" for c in chairs) == 1:  # a chosen seed only where the other chairs are bots
        body["seed"] = seed
    r = client.post("/api/tables", json=body)
    assert r.status_code == 200, r.text
    body = r.json()
    tokens = {0: body["token"]}
    for chair in (1, 2):
        if chairs[chair]["kind"] == "human":
            t = client.post(f"/api/tables/{body['table_id']}/seats/{chair}")
            assert t.status_code == 200, t.text
            tokens[chair] = t.json()["token"]
    return body["table_id"], tokens


def auth(token):
    return {"Authorization": f"Bearer {token}"}


def state(client, tid, token):
    r = client.get(f"/api/tables/{tid}/state", headers=auth(token))
    assert r.status_code == 200, r.text
    return r.json()


def act(client, tid, token, action):
    return client.post(f"/api/tables/{tid}/actions", headers=auth(token), json=action)


def turn_token(client, tid, tokens):
    view = state(client, tid, tokens[0])
    return view, tokens.get(view["turn_chair"])


def play_through(client, tid, tokens, first_call="1N", check=None):
    """Bid (chair on turn bids ``first_call`` once, others pass) and play the first legal card until done."""
    bid_made = False
    for _ in range(200):
        view, token = turn_token(client, tid, tokens)
        if view["phase"] == "done":
            return view
        mine = state(client, tid, token)
        if check:
            check(client, tid, tokens)
        if mine["phase"] == "auction":
            call = first_call if not bid_made and first_call in mine["legal_calls"] else "P"
            bid_made = bid_made or call != "P"
            r = act(client, tid, token, {"type": "call", "call": call, "version": mine["version"]})
        else:
            r = act(client, tid, token, {"type": "play", "card": mine["legal_cards"][-1]})
        assert r.status_code == 200, r.text
    raise AssertionError("deal did not finish")


def check_visibility(client, tid, tokens):
    views = {c: state(client, tid, t) for c, t in tokens.items()}
    played = set()
    v0 = views[0]
    if v0["phase"] != "auction":
        for c in v0["current_trick"]:
            played.add(c["card"])
    for chair, view in views.items():
        own_now = set(view["hand"])
        widow = set(view["widow"] or [])
        seen = cards_in(view)
        # a chair sees its own cards, dummy's after the lead, and cards on the table - nothing else
        allowed = own_now | widow | played | cards_in(view.get("last_trick")) | cards_in(view.get("current_trick"))
        assert seen <= allowed, (chair, seen - allowed)
        assert len(view["hand"]) == view["hand_counts"][view["my_seat"]]
    hands = [set(views[c]["hand"]) for c in views]
    assert not (hands[0] & hands[1]) and not (hands[0] & hands[2]) and not (hands[1] & hands[2])
    no_lead_yet = v0["phase"] == "auction" or (not v0["current_trick"] and sum(v0["tricks"].values()) == 0)
    if no_lead_yet:
        assert all(view["widow"] is None for view in views.values())
    elif v0["phase"] == "play":
        assert all(view["widow"] == v0["widow"] and view["widow"] is not None for view in views.values())


def test_whole_deal_visibility_scores_export(client):
    tid, tokens = new_table(client)
    view = state(client, tid, tokens[0])
    assert view["phase"] == "auction" and view["deal_no"] == 1 and len(view["hand"]) == 13
    assert view["widow"] is None and view["analysis"] is None
    done = play_through(client, tid, tokens, check=check_visibility)
    assert done["result"]["passed_out"] is False and done["result"]["contract"] == "1NT"
    assert sum(done["tricks"].values()) == 13
    assert len(done["score_sheet"]["deals"]) == 1
    per = done["scores"]["per_chair"]
    assert per == done["score_sheet"]["deals"][0]["per_chair"]
    assert len(done["analysis"]["hands"]) == 4
    # analysis arrives in the background
    deadline = time.time() + 120
    while time.time() < deadline:
        analysis = state(client, tid, tokens[0])["analysis"]
        if not analysis.get("pending"):
            break
        time.sleep(0.1)
    assert analysis["declarer_tricks"] is not None, analysis
    declarer_chair = done["result"]["declarer_chair"]
    assert [e["chair"] for e in analysis["declarer_tricks"]] == [0, 1, 2]
    assert 0 <= analysis["declarer_tricks"][declarer_chair]["tricks"]["NT"] <= 13
    assert [e["chair"] for e in analysis["nt_calls"]] == [0, 1, 2]
    assert analysis["best_contract"] is None or analysis["best_contract"]["declarer_chair"] in (0, 1, 2)
    assert analysis["capture"] is not None, analysis["notes"]
    # exports
    js = client.get(f"/api/tables/{tid}/export.json", headers=auth(tokens[1])).json()
    record = DealRecord.from_json(js["deals"][0]["record"])
    assert str(record.contract) == "1NT" and record.declarer_tricks == done["tricks"]["declarer"]
    pbn = client.get(f"/api/tables/{tid}/export.pbn", headers=auth(tokens[2]))
    assert pbn.status_code == 200 and '[Contract "1NT"]' in pbn.text and "[Play" in pbn.text
    lin = client.get(f"/api/tables/{tid}/export.lin", headers=auth(tokens[0]))
    assert lin.status_code == 200 and read_lin(lin.text)[0].record() == record
    assert client.get(f"/api/tables/{tid}/export.lin").status_code == 403
    # next deal, once all three people asked for it: dealer rotates to chair 1
    for token in (tokens[2], tokens[0]):
        wait = act(client, tid, token, {"type": "next"})
        assert wait.status_code == 200 and wait.json()["deal_no"] == 1
    nxt = act(client, tid, tokens[1], {"type": "next"})
    assert nxt.status_code == 200 and nxt.json()["deal_no"] == 2 and nxt.json()["dealer_chair"] == 1


def test_tokens_and_hidden_cards(client):
    tid, tokens = new_table(client)
    assert client.get(f"/api/tables/{tid}/state").status_code == 403
    assert client.get(f"/api/tables/{tid}/state", headers=auth("nonsense")).status_code == 403
    assert act(client, tid, "nonsense", {"type": "call", "call": "P"}).status_code == 403
    view = state(client, tid, tokens[0])
    other = [s for s in "NESW" if s != view["my_seat"]]
    for seat in other:
        r = client.get(f"/api/tables/{tid}/hands/{seat}", headers=auth(tokens[0]))
        assert r.status_code == 403 and "hidden" in r.json()["error"]
    own = client.get(f"/api/tables/{tid}/hands/{view['my_seat']}", headers=auth(tokens[0]))
    assert own.status_code == 200 and own.json()["cards"] == view["hand"]
    assert client.post(f"/api/tables/{tid}/seats/1").status_code == 409  # already taken
    public = client.get(f"/api/tables/{tid}").json()
    assert all(c["taken"] for c in public["chairs"]) and "hand" not in public


def test_invalid_actions_change_nothing(client):
    tid, tokens = new_table(client)
    before = {c: state(client, tid, t) for c, t in tokens.items()}
    turn = before[0]["turn_chair"]
    not_turn = (turn + 1) % 3
    bad = [
        (tokens[not_turn], {"type": "call", "call": "1C"}, "not your turn"),
        (tokens[turn], {"type": "call", "call": "9Z"}, "call"),
        (tokens[turn], {"type": "call", "call": "X"}, "illegal"),
        (tokens[turn], {"type": "play", "card": "SA"}, "no card"),
        (tokens[turn], {"type": "next"}, "not over"),
        (tokens[turn], {"type": "dance"}, "type"),
        (tokens[turn], {"type": "call", "call": "1C", "version": before[0]["version"] + 5}, "stale"),
    ]
    for token, action, fragment in bad:
        r = act(client, tid, token, action)
        assert r.status_code in (400, 409), (action, r.text)
        assert fragment in r.json()["error"], (action, r.json())
    r = client.post(
        f"/api/tables/{tid}/actions",
        headers={**auth(tokens[turn]), "Content-Type": "application/json"},
        content=b"{not json",
    )
    assert r.status_code == 400
    after = {c: state(client, tid, t) for c, t in tokens.items()}
    assert after == before


def test_an_actions_fields_are_read_before_the_table_judges_it(client):
    tid, tokens = new_table(client)
    view = state(client, tid, tokens[0])
    turn = view["turn_chair"]
    stale = {"type": "call", "call": 7, "version": view["version"] + 5}
    r = act(client, tid, tokens[turn], stale)
    assert r.status_code == 400 and r.json()["error"].startswith("call: expected a call like"), r.text
    r = act(client, tid, tokens[turn], {"type": "call", "call": "1C", "card": "SA", "tricks": 3, "text": "x"})
    assert r.status_code == 200, r.text
    assert act(client, tid, tokens[turn], {"type": "undo"}).status_code == 200
    for chair in {0, 1, 2} - {turn}:
        assert act(client, tid, tokens[chair], {"type": "undo_agree"}).status_code == 200
    undone = state(client, tid, tokens[0])["undone"]
    assert undone == [{"chair": turn, "action": {"type": "call", "call": "1C"}, "at": 0}]


def test_websocket_pushes_every_change(client):
    tid, tokens = new_table(client)
    with client.websocket_connect(f"/api/tables/{tid}/ws") as ws:
        ws.send_json({"token": tokens[1]})
        first = ws.receive_json()
        assert first["my_chair"] == 1 and first["version"] == state(client, tid, tokens[1])["version"]
        view, token = turn_token(client, tid, tokens)
        assert act(client, tid, token, {"type": "call", "call": "P"}).status_code == 200
        pushed = ws.receive_json()
        assert pushed["version"] == first["version"] + 1 and pushed["auction"][-1]["call"] == "P"
        assert cards_in(pushed) <= set(pushed["hand"])
    with pytest.raises(Exception):
        with client.websocket_connect(f"/api/tables/{tid}/ws") as ws:
            ws.send_json({"token": "wrong"})
            ws.receive_json()


def test_bots_act_on_their_turn(client):
    chairs = [{"kind": "human"}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]
    tid, tokens = new_table(client, chairs, seed=3)
    deadline = time.time() + 30
    acted = 0
    while time.time() < deadline and acted < 8:
        view = state(client, tid, tokens[0])
        if view["phase"] == "done":
            break
        if view["my_turn"]:
            action = (
                {"type": "call", "call": "P"}
                if view["phase"] == "auction"
                else {"type": "play", "card": view["legal_cards"][0]}
            )
            assert act(client, tid, tokens[0], action).status_code == 200
            acted += 1
        else:
            time.sleep(0.05)
    view = state(client, tid, tokens[0])
    bot_calls = [a for a in view["auction"] if a["seat"] != view["seats"]["0"]]
    assert acted >= 1 and (bot_calls or view["phase"] != "auction")


def test_bad_table_requests(client):
    assert client.post("/api/tables", json={"chairs": [{"kind": "robot"}] * 3}).status_code == 400
    assert client.post("/api/tables", json={"chairs": [{"kind": "bot", "bot": "nobody"}] * 3}).status_code == 400
    assert client.post("/api/tables", json={"scheme": "nope"}).status_code == 400
    assert client.post("/api/tables", json={"seed": -1}).status_code == 400
    assert (
        client.post(
            "/api/tables", json={"take": 1, "chairs": [{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}]}
        ).status_code
        == 400
    )
    assert client.get("/api/tables/nope/state", headers=auth("x")).status_code == 404
    assert client.get("/api/bots").json()["schemes"] == ["classic", "tribridge"]


def test_replay_after_restart(db_url):
    db = db_url
    app = create_app(db_path=db, bot_delay=0, log_requests=False)
    with TestClient(app) as c:
        tid, tokens = new_table(c, seed=11)
        for _ in range(6):
            view, token = turn_token(c, tid, tokens)
            mine = state(c, tid, token)
            action = (
                {"type": "call", "call": "1S" if "1S" in mine["legal_calls"] else "P"}
                if mine["phase"] == "auction"
                else {"type": "play", "card": mine["legal_cards"][0]}
            )
            assert act(c, tid, token, action).status_code == 200
        before = {ch: state(c, tid, t) for ch, t in tokens.items()}
    app2 = create_app(db_path=db, bot_delay=0, log_requests=False)
    with TestClient(app2) as c2:
        after = {ch: state(c2, tid, t) for ch, t in tokens.items()}
    assert after == before


def _one_no_trump_deal():
    """Deal 1 of seed 7 after 1NT by the dealer and two passes, with its players."""
    from tribridge.cards import Seat
    from tribridge.rules.deal import DealState
    from tribridge.server.tables.table import chair_seats, deal_for

    state = DealState.start(deal_for(7, 1), Seat.N)
    for call in ("1N", "P", "P"):
        state = state.apply(call)
    assert state.phase == "play" and state.contract is not None
    return state, chair_seats(1)


def test_table_bots_play_with_the_auction(monkeypatch):
    """Card-playing table bots get the finished auction, so PIMC can sample layouts consistent with it."""
    from tribridge.bots.belief import facts_for_play_view
    from tribridge.server.tables import bots as table_bots

    state, seats = _one_no_trump_deal()
    auction = state.auction
    seen = []

    class Recorder:
        name = "recorder"

        def play(self, view):
            seen.append(view)
            return view.legal_cards()[-1]

    class Bot:
        player = Recorder()

    monkeypatch.setattr(table_bots, "get_bot", lambda name, *a, **k: Bot())
    player = state.turn
    action = table_bots.bot_action("recorder", state, player, seats.index(player))
    assert action == {"type": "play", "card": str(state.play.legal_cards()[-1])}
    assert seen[0].auction == auction
    facts = facts_for_play_view(seen[0])
    assert facts, "the opening leader should know what the 1NT bid and the passes say"


def test_illegal_bot_card_is_logged_and_replaced(monkeypatch, caplog):
    """A bot bug never stalls a table, and it never passes silently: the log names it."""
    from tribridge.server.tables import bots as table_bots

    state, seats = _one_no_trump_deal()
    contract = state.contract
    dummy_card = sorted(state.play.deal[contract.declarer.partner].cards)[0]

    class Bot:
        class player:  # noqa: N801 - a stand-in object with a play method
            @staticmethod
            def play(view):
                return dummy_card  # the opening leader cannot play dummy's card

    monkeypatch.setattr(table_bots, "get_bot", lambda name, *a, **k: Bot())
    player = state.turn
    with caplog.at_level("ERROR", logger="tribridge.server.tables"):
        action = table_bots.bot_action("buggy", state, player, seats.index(player))
    assert action["card"] == str(state.play.legal_cards()[0])
    assert any("illegal card" in r.getMessage() for r in caplog.records)
    # in a solver process the server gets the warning back with the action, and logs it itself
    again, problems = table_bots.bot_decision("buggy", state, player, seats.index(player))
    assert again == action and len(problems) == 1 and "illegal card" in problems[0]


def test_warm_up_runs_the_pimc_bot_once_in_this_process():
    from tribridge.server.tables import bots as table_bots

    table_bots.warm_up()  # a pimc call and a pimc card; raises if either fails
