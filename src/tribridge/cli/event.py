"""``tribridge event run``: a duplicate event of bots (daily, individual or teams), its standings and travellers."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from tribridge.cli.common import progress_bar
from tribridge.errors import InvalidInput

if TYPE_CHECKING:  # types only: the machinery is imported inside ``run`` (start-up time)
    from rich.table import Table

    from tribridge.events.event import EventResult
    from tribridge.events.results import Traveller


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``event`` command group (run)."""
    p = sub.add_parser(
        "event",
        help="duplicate events of bots: daily, individual, teams",
        description="Duplicate events: the same boards at every table, each score compared with the others "
        "in the same chair (docs/events.md).",
    )
    cmds = p.add_subparsers(dest="event_command", metavar="SUBCOMMAND")
    run_p = cmds.add_parser(
        "run",
        help="run an event of bots and print its standings and travellers",
        description="Run a duplicate event of bots. daily: each bot plays every board with two filler bots, "
        "compared in the same chair; individual: 3-30 bots in the individual movement; teams: each entry of "
        "--bots is a team (one bot, or three joined by '/'), three teams play a match, more a knockout. Prints "
        "the standings and every board's traveller; --json one object, --pbn PBN with score tables.",
    )
    run_p.add_argument("--form", required=True, choices=("daily", "individual", "teams"), help="the event's form")
    run_p.add_argument("--bots", required=True, help="entrants (or teams) separated by commas, e.g. random,paper,dd")
    run_p.add_argument("--boards", type=int, default=None, help="boards (per stage for teams; default 12)")
    run_p.add_argument("--seed", type=int, default=1, help="the seed the boards are drawn from (default 1)")
    run_p.add_argument(
        "--boards-file",
        default=None,
        metavar="FILE.pbn",
        help="play the boards of this PBN file (as dealt) instead of seeded ones",
    )
    run_p.add_argument("--scheme", default="classic", help="scoring scheme: classic, tribridge or a TOML file")
    run_p.add_argument("--filler", default=None, help="the bot that fills empty chairs (default paper+random)")
    run_p.add_argument("--rounds", type=int, default=None, help="rounds of the individual movement")
    run_p.add_argument(
        "--rank-by", default="matchpoints", choices=("matchpoints", "imps"), help="rank individuals by (default: mp)"
    )
    run_p.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    out = run_p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print the event as one JSON object")
    out.add_argument("--pbn", action="store_true", help="print the event as PBN with ScoreTable/TotalScoreTable")
    run_p.add_argument("--no-travellers", action="store_true", help="print only the standings (text output)")
    run_p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the event and print it."""
    # imported here: start-up time
    from tribridge.bots import plugins
    from tribridge.events.boards import pbn_boards
    from tribridge.events.export import event_json, event_pbn
    from tribridge.events.run import DEFAULT_FILLER, EventSpec, planned_tasks, run_event

    bots = tuple(n for n in (x.strip() for x in args.bots.split(",")) if n)
    members = [part for name in bots for part in name.split("/")] if args.form == "teams" else list(bots)
    plugins.enable_named([*members, args.filler or ""])
    given = None
    if args.boards_file:
        path = Path(args.boards_file)
        given = pbn_boards(path.read_text(encoding="utf-8", errors="replace"), path.name)
        if not given:
            raise InvalidInput("--boards-file", f"no boards in {args.boards_file!r}")
    boards = args.boards if args.boards is not None else (len(given) if given and args.form != "teams" else 12)
    spec = EventSpec(
        args.form,
        bots,
        boards,
        args.seed,
        args.scheme,
        args.filler or DEFAULT_FILLER,
        args.rounds,
        args.rank_by,
    )
    with progress_bar("boards", planned_tasks(spec)) as bar:
        result = run_event(spec, args.workers, bar.advance, given)
    if args.json:
        print(event_json(result))
    elif args.pbn:
        print(event_pbn(result), end="")
    else:
        _print_text(args, boards, result)
    return 0


def _print_text(args: argparse.Namespace, boards: int, result: EventResult) -> None:
    """The standings, the matches (teams) and the travellers as rich tables."""
    # imported here: start-up time
    from rich.console import Console
    from rich.table import Table

    console = Console()
    source = f"--boards-file {args.boards_file}" if args.boards_file else f"--seed {args.seed}"
    title = f"tribridge event run --form {args.form} --bots {args.bots} --boards {boards} {source}"
    standings = Table(title=f"{title} --scheme {result.scheme}")
    if result.form == "teams":
        for col in ("rank", "team", "bots", "stage", "IMPs", "points"):
            standings.add_column(col)
        for t in result.team_standings:
            standings.add_row(t.rank, t.team, "/".join(t.bots), str(t.stage), str(t.imps), str(t.points))
    else:
        for col in ("rank", "entrant", "boards", "matchpoints", "%", "Butler IMPs"):
            standings.add_column(col)
        for s in result.standings:
            standings.add_row(
                s.rank, s.name, str(s.boards), f"{s.matchpoints}/{s.top}", f"{s.percent:.2f}", str(s.imps)
            )
    console.print(standings)
    for m in result.matches:
        line = ", ".join(f"{team} {imps:+d} IMPs" for team, imps in zip(m.teams, m.imps))
        console.print(f"stage {m.stage} match {m.match}: {line}; winner {m.winner}")
    if args.no_travellers:
        return
    for traveller in result.travellers:
        console.print(_traveller_table(traveller))


def _traveller_table(traveller: Traveller) -> Table:
    """One board's traveller: a row a table, the players and figures by chair."""
    from rich.table import Table  # imported here: start-up time

    board = traveller.board
    section = f" ({traveller.section})" if traveller.section else ""
    deal = board.deal.to_pbn(int(board.dealer))
    table = Table(title=f"board {board.number}{section}: dealer {board.dealer.letter}, {deal}")
    for col in ("table", "dealer, left, right", "contract", "scores", "MPs", "IMPs"):
        table.add_column(col)
    seats = (board.dealer, board.dealer.lho, board.dealer.rho)
    for r in traveller.results:
        if r.contract is None or r.declarer is None:
            contract = "passed out"
        else:
            contract = f"{r.contract} by {seats[r.declarer].letter}, {r.tricks}"
        table.add_row(
            f"{r.round}.{r.table}",
            ", ".join(r.players),
            contract,
            " ".join(str(s) for s in r.scores),
            " ".join(str(m) for m in r.matchpoints),
            " ".join(f"{i:+d}" for i in r.imps),
        )
    return table
