"""Issue 12, class 7: bot-supplied text full of terminal escape sequences: its Hello name
and author, its stderr, and on its 3rd decision a gRPC error whose details clear the
screen, set the window title and recolour the terminal (C0 ESC, BEL and a C1 CSI)."""

import sys

from onthird import OnThird
from referee.botkit import serve

NASTY = "\x1b[2J\x1b[H\x1b]0;pwned\x07\x9b31mRED\r"
print(f"escape: {NASTY}", file=sys.stderr, flush=True)


def attack(_view: object) -> None:
    raise RuntimeError(f"cleared {NASTY}")


bot = OnThird("escape", attack)
bot.name = f"esc{NASTY}"
bot.author = f"author{NASTY}"
serve(bot)
