"""Entry point: parse the command line and dispatch; turn RefereeErrors into one line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from rich.console import Console
from rich.markup import escape

from referee.errors import RefereeError

COMMANDS = ("run", "play", "standings", "replay", "check_bot", "faults")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="referee",
        description="Knockout Whist Referee: run bot tournaments of Knockout Whist.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    import importlib

    for name in COMMANDS:
        module = importlib.import_module(f"referee.cli.{name}")
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (0 ok, 1 a check failed, 2 bad input, 130 Ctrl-C)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    err = Console(stderr=True, highlight=False)
    try:
        code: int = args.handler(args)
        return code
    except RefereeError as error:
        err.print(f"[bold red]error:[/] {escape(str(error))}", soft_wrap=True)
        return error.exit_code
    except KeyboardInterrupt:
        err.print("interrupted")
        return 130


if __name__ == "__main__":
    sys.exit(main())
