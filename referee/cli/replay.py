"""``referee replay RESULTS [GAME]``: a stored game trick by trick, what one seat was sent,
a rerun check, the record as JSON, or the game's deal exported as a deal file (issue 3 §3, §4).

    referee replay RESULTS                      # list the games: id, seats, winner, faults
    referee replay RESULTS GAME                 # round by round, trick by trick
    referee replay RESULTS GAME --seat N        # every request seat N was sent
    referee replay RESULTS GAME --rerun         # exit 1 if the engine disagrees with the record
    referee replay RESULTS GAME --format json   # the record (with --seat: the requests, one per line)
    referee replay RESULTS GAME --export-deal FILE
"""

from __future__ import annotations

import argparse
import difflib
import json
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from rich.markup import escape
from rich.table import Table

from referee.config.schema import FaultsModel, TimeModel
from referee.errors import ConfigError, IllegalAction, StoreError
from referee.game.gamelog import rerun, round_summary
from referee.game.records import GameRecord
from referee.game.timecontrol import TimeControl
from referee.league.human import person_time
from referee.report.console import make_console
from referee.report.seat_requests import seat_requests
from referee.report.trace import print_trace
from referee.report.transcript import print_transcript
from referee.results.dealfile import deal_from_record, format_deal
from referee.results.store import ResultsStore


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "replay",
        help="replay a stored game: trick by trick, what one seat was sent, or a rerun check",
        description="Without GAME: list the games in RESULTS. With GAME: print it round by round and trick by trick.",
    )
    parser.add_argument("results", type=Path, help="a results file, e.g. results/demo.sqlite or results/play.sqlite")
    parser.add_argument("game", nargs="?", help="a game id (run without it to list them)")
    parser.add_argument("--seat", type=int, metavar="N", help="print only what seat N was sent, request by request")
    parser.add_argument(
        "--rerun", action="store_true", help="feed the recorded actions back through the engine; exit 1 if anything differs"
    )
    parser.add_argument("--format", choices=("rich", "json"), default="rich", help="json: the record (with --seat: the raw requests)")
    parser.add_argument("--export-deal", type=Path, metavar="FILE", help="write the game's deal file (for referee play --deal FILE)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    store = ResultsStore.open_existing(args.results)
    try:
        if args.game is None:
            if args.seat is not None or args.rerun or args.export_deal is not None:
                raise ConfigError("replay: --seat, --rerun and --export-deal need a GAME id: list them with  referee replay " + str(args.results))
            return _list_games(store, args.format)
        record = _record(store, args.game)
        if args.seat is not None and not 0 <= args.seat < len(record.seats):
            raise ConfigError(f"--seat {args.seat}: game {record.game_id} has seats 0-{len(record.seats) - 1}")
        if args.rerun or args.export_deal is not None:
            code = 0
            if args.export_deal is not None:
                _export_deal(record, args.export_deal, store.path)
            if args.rerun:
                code = _rerun(record)
            return code
        if args.seat is not None:
            return _transcript(store, record, args.seat, args.format)
        if args.format == "json":
            print(json.dumps(record.to_json(), indent=2, ensure_ascii=False))
        else:
            print_trace(make_console(), record)
        return 0
    finally:
        store.close()


# --- listing and finding games ----------------------------------------------------------


def _list_games(store: ResultsStore, form: str) -> int:
    records = list(store.records())
    if form == "json":
        rows = [
            {
                "game_id": r.game_id,
                "seats": list(r.seats),
                "winner": r.seats[r.winner] if r.winner is not None else None,
                "placements": list(r.placements),
                "rounds": len(r.rounds),
                "faults": len(r.faults),
            }
            for r in records
        ]
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        return 0
    console = make_console()
    table = Table(title=f"{len(records)} games in {store.path}", title_justify="left")
    for column in ("game", "seats", "winner", "rounds", "faults"):
        table.add_column(column, no_wrap=column == "game")
    for r in records:
        faults = ", ".join(f"{f.kind} seat {f.seat}" for f in r.faults[:3]) + (" ..." if len(r.faults) > 3 else "")
        winner = escape(f"{r.seats[r.winner]} (seat {r.winner})") if r.winner is not None else "-"
        seats = escape(", ".join(f"{name} (seat {s})" for s, name in enumerate(r.seats)))
        table.add_row(r.game_id, seats, winner, str(len(r.rounds)), f"{len(r.faults)}" + (f" ({faults})" if faults else ""))
    console.print(table)
    if records:
        console.print(f"replay one with  referee replay {store.path} {records[0].game_id} [--seat N] [--rerun]", highlight=False)
    return 0


def _record(store: ResultsStore, game_id: str) -> GameRecord:
    ids = store.finished_game_ids()
    if game_id not in ids:
        close = difflib.get_close_matches(game_id, sorted(ids), n=3, cutoff=0.5)
        hint = f"did you mean {', '.join(close)}? " if close else ""
        raise StoreError(f"no game '{game_id}' in {store.path} ({len(ids)} games): {hint}list them with  referee replay {store.path}")
    return store.record(game_id)


# --- the per-seat transcript ------------------------------------------------------------


def league_time_control(store: ResultsStore, name: str | None = None) -> TimeControl | None:
    """The time control of the league stored in ``store`` (its config's ``[time]`` and
    ``[faults].preset``), or None when the store keeps no config (``referee play``) or
    the config no longer validates. For ``name``, a seat a person played (a ``[[bots]]``
    entry with ``human = true``): that person's (:func:`referee.league.human.person_time`)."""
    text = store.meta().get("config_text", "")
    if not text.strip():
        return None
    try:
        data = tomllib.loads(text)
        time = TimeModel.model_validate(data.get("time", {}))
        faults = FaultsModel.model_validate(data.get("faults", {}))
    except (tomllib.TOMLDecodeError, ValidationError, AttributeError):
        return None
    control = TimeControl(**time.model_dump(), unlimited=faults.preset == "debug")
    bots = data.get("bots", [])
    person = next((bot for bot in bots if isinstance(bot, dict) and bot.get("name") == name and bot.get("human") is True), None) if isinstance(bots, list) else None
    if person is not None:
        move_ms = person.get("move_ms")
        return person_time(control, move_ms if isinstance(move_ms, int) and move_ms > 0 else None)
    return control


def _transcript(store: ResultsStore, record: GameRecord, seat: int, form: str) -> int:
    requests = seat_requests(record, seat, league_time_control(store, record.seats[seat]))
    if form == "json":
        for request in requests:
            print(request.json)
        return 0
    note = f"time left is not recorded: {store.path} keeps no time control (games of referee play)"
    print_transcript(make_console(), record, seat, requests, time_note=note)
    return 0


# --- rerun ----------------------------------------------------------------------------


def rerun_differences(record: GameRecord) -> list[str]:
    """Feed ``record``'s actions back through the engine and compare, round by round, the
    dealer, hands, turn-up, trump and who named it, every trick (plays and winner), tricks
    won, knock-outs, dogs and forfeits, then the placements and winner. One line per
    difference; [] when the rerun is identical."""
    try:
        game = rerun(record)
    except (IllegalAction, ConfigError) as error:
        return [f"the record does not replay: {error}"]
    if not game.over:
        return [f"the rerun game is not over after the record's {len(record.actions)} actions"]
    rerun_rounds = [round_summary(r) for r in game.rounds]
    lines: list[str] = []
    if len(rerun_rounds) != len(record.rounds):
        lines.append(f"rounds: {len(record.rounds)} in the record, {len(rerun_rounds)} on rerun")
    for stored, again in zip(record.rounds, rerun_rounds):
        lines += _round_differences(stored, again)
    outcome = game.outcome
    assert outcome is not None
    for name, recorded, rerun_value in (
        ("placements", list(record.placements), list(outcome.placements)),
        ("winner", record.winner, outcome.winner),
        ("knocked out in round", list(record.knocked_out_round), list(outcome.knocked_out_round)),
        ("forfeited", list(record.forfeited), list(outcome.forfeited)),
    ):
        if recorded != rerun_value:
            lines.append(f"{name}: {recorded} in the record, {rerun_value} on rerun")
    return lines


def _round_differences(stored: dict[str, Any], again: dict[str, Any]) -> list[str]:
    where = f"round {again['round']}"
    lines = []
    for key in ("dealer", "hand_size", "turn_up", "trump", "no_trump", "trump_chooser", "hands"):
        if stored.get(key) != again.get(key):
            lines.append(f"{where} {key.replace('_', ' ')}: {_show(stored.get(key))} in the record, {_show(again.get(key))} on rerun")
    stored_tricks: Sequence[dict[str, Any]] = stored.get("tricks", [])
    if len(stored_tricks) != len(again["tricks"]):
        lines.append(f"{where}: {len(stored_tricks)} tricks in the record, {len(again['tricks'])} on rerun")
    for number, (old, new) in enumerate(zip(stored_tricks, again["tricks"]), start=1):
        if old.get("plays") != new["plays"]:
            lines.append(f"{where} trick {number} plays: {_plays(old.get('plays', []))} in the record, {_plays(new['plays'])} on rerun")
        if old.get("winner") != new["winner"]:
            lines.append(f"{where} trick {number} winner: seat {old.get('winner')} in the record, seat {new['winner']} on rerun")
    for key in ("tricks_won", "knocked_out", "dogs", "forfeited"):
        if stored.get(key, []) != again[key]:
            lines.append(f"{where} {key.replace('_', ' ')}: {_show(stored.get(key))} in the record, {_show(again[key])} on rerun")
    return lines


def _plays(plays: Sequence[Sequence[Any]]) -> str:
    return ", ".join(f"seat {seat} {card or 'pass'}" for seat, card in plays)


def _show(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


def _rerun(record: GameRecord) -> int:
    console = make_console()
    differences = rerun_differences(record)
    if not differences:
        console.print(f"rerun identical: game {record.game_id}, {len(record.actions)} actions, {len(record.rounds)} rounds", highlight=False)
        return 0
    err = make_console(stderr=True)
    for line in differences:
        err.print(f"rerun differs: game {record.game_id}: {line}", markup=False, highlight=False, soft_wrap=True)
    return 1


# --- deal export ----------------------------------------------------------------------


def _export_deal(record: GameRecord, path: Path, results: Path) -> None:
    text = format_deal(deal_from_record(record, source=str(results)), as_json=path.suffix.lower() == ".json")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        raise ConfigError(f"--export-deal {path}: cannot write: {error.strerror}") from None
    make_console().print(
        f"deal of game {record.game_id} written to {path}: replay it with  referee play BOT... --deal {path}", highlight=False, soft_wrap=True
    )
