"""B9 export: a class league's site as static files (``referee export --format html``).

The league: 30 bots at tables of 4 in the movement format, 7 rounds of 60 games (420
games, as a one-hour lesson plays), each game played by the rules engine with seeded
random legal moves (no gRPC: what is measured is the export, not the play), every
decision recorded with a time, and a fault in about one game in six (a timeout, with
the request the bot was sent, as the referee stores it). The store is built once; each
repetition exports it into a fresh folder with :func:`referee.web.export.export_html`,
in this process, and measures the wall time and the bytes written.

Figures: the export's seconds, its size in MB (10^6 bytes), the files written, and the
size of one game's page in KB.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

import common
from common import Figure

from referee.game.engine import Game  # noqa: E402
from referee.game.gamelog import build_record  # noqa: E402
from referee.game.records import ActionRecord, FaultRecord  # noqa: E402
from referee.game.rules import Rules  # noqa: E402
from referee.game.views import format_action  # noqa: E402
from referee.results.store import ResultsStore  # noqa: E402
from referee.schedule.movement import movement_fixtures  # noqa: E402
from referee.transport import codec  # noqa: E402
from referee.web.export import export_html  # noqa: E402

BOTS = [f"student-{number:02d}" for number in range(1, 31)]
ROUNDS = 7  # 60 games a round: 420 games
FAULT_EVERY = 6  # about one game in this many has a timeout


def config_text() -> str:
    lines = ['[league]', 'name = "class30"', 'table_size = 4', 'format = "movement"', 'minutes = 60', '[time]', 'move_ms = 1000']
    for name in BOTS:
        lines += ["[[bots]]", f'name = "{name}"', 'command = ["python", "bot.py"]']
    return "\n".join(lines) + "\n"


def build_store(path: Path) -> int:
    """Play and store the league; returns its games."""
    store = ResultsStore.open(path, league="class30", fingerprint="b9", config_text=config_text(), resume=False)
    fixtures = movement_fixtures(BOTS, 4, 1, 2026, ROUNDS)
    for fixture in fixtures:
        rng = random.Random(fixture.seed)
        game = Game(len(fixture.seats), Rules(), fixture.seed, game_id=fixture.game_id, first_dealer=fixture.first_dealer)
        actions: list[ActionRecord] = []
        faults: list[FaultRecord] = []
        faulty = rng.randrange(FAULT_EVERY) == 0
        fault_at = rng.randrange(20) if faulty else -1
        sent = [0] * len(fixture.seats)
        while not game.over:
            seat = game.to_act
            assert seat is not None
            view = game.view(seat)
            events = game.events[sent[seat] :]
            sent[seat] = len(game.events)
            action = rng.choice(game.legal_actions())
            if len(actions) == fault_at:
                action = game.legal_actions()[0]
                request = codec.request_json(codec.view_to_request(view, events, len(actions), 1000, 0))
                faults.append(FaultRecord(
                    "timeout", seat, fixture.seats[seat], len(actions), "deadline of 1100 ms exceeded", request,
                    "DEADLINE_EXCEEDED: Stream removed (Deadline Exceeded)", 1101.3,
                ))  # fmt: skip
                actions.append(ActionRecord(seat, view.decision.value if view.decision else "", format_action(action), 1101.3, "timeout"))
            else:
                actions.append(ActionRecord(seat, view.decision.value if view.decision else "", format_action(action), rng.uniform(0.5, 30.0)))
            game.apply(seat, action)
        store.save_game(build_record(
            game, league="class30", fixture=fixture.index, table=fixture.table, deal=fixture.deal, rotation=fixture.rotation,
            seats=fixture.seats, seed=fixture.seed, actions=actions, faults=faults,
        ))  # fmt: skip
    store.close()
    return len(fixtures)


def folder_bytes(folder: Path) -> tuple[int, int]:
    files = [path for path in folder.rglob("*") if path.is_file()]
    return sum(path.stat().st_size for path in files), len(files)


def main() -> None:
    args = common.arguments(__doc__.splitlines()[0], reps=3)
    seconds: list[float] = []
    megabytes: list[float] = []
    files: list[float] = []
    game_kb: list[float] = []
    with common.temp_dir("kws-b9-") as tmp:
        games = build_store(tmp / "class30.sqlite")
        for rep in range(1 if args.quick else args.reps):
            site = tmp / f"site-{rep}"
            with ResultsStore.open_existing(tmp / "class30.sqlite") as store:
                began = time.perf_counter()
                export_html(store, site)
                seconds.append(time.perf_counter() - began)
            size, count = folder_bytes(site)
            megabytes.append(size / 1e6)
            files.append(count)
            game_kb.append(folder_bytes(site / "games")[0] / games / 1e3)
    figures = [
        Figure("seconds", f"export of the {games}-game league (wall time)", "s", seconds),
        Figure("megabytes", "the site's size", "MB", megabytes),
        Figure("files", "files written (pages, stylesheet, script)", "", files),
        Figure("game_page_kb", "one game's page (its JSON record and the viewer's frame)", "KB", game_kb),
    ]
    common.write_json(args.json, "B9 export", figures, games=games, bots=len(BOTS))


if __name__ == "__main__":
    main()
