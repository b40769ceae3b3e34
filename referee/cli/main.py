"""Entry point: parse the command line and dispatch; turn RefereeErrors into one line."""

from __future__ import annotations

import argparse
import atexit
import os
import sys
from collections.abc import Iterator, Sequence
from typing import NoReturn

from rich.console import Console
from rich.markup import escape

from referee.cli.pipes import quiet_broken_pipe
from referee.errors import Interrupted, RefereeError

COMMANDS = ("run", "play", "standings", "replay", "check_bot", "faults", "serve", "export")


def positive_int(text: str) -> int:
    """argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected at least 1, got {value}")
    return value


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; with ``command`` (as typed: ``check-bot``) only that
    command's module is loaded (a command starts without loading what the others need)."""
    parser = argparse.ArgumentParser(
        prog="referee",
        description="Knockout Whist Referee: run bot tournaments of Knockout Whist.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    import importlib

    wanted = command.replace("-", "_") if command is not None else None
    for name in COMMANDS:
        if wanted in COMMANDS and name != wanted:
            continue
        module = importlib.import_module(f"referee.cli.{name}")
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (0 ok, 1 a check failed, 2 bad input, 130 Ctrl-C,
    141 the output pipe closed early)."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    err = Console(stderr=True, highlight=False)
    try:
        args = build_parser(arguments[0] if arguments else None).parse_args(arguments)
        code: int = args.handler(args)
        sys.stdout.flush()  # here, not at exit: a closed pipe is then caught below
        return code
    except BaseException as error:
        leaf = _only_error(error)
        if isinstance(leaf, RefereeError):
            err.print(f"[bold red]error:[/] {escape(str(leaf))}", soft_wrap=True)
            return leaf.exit_code
        if isinstance(leaf, KeyboardInterrupt):
            if not isinstance(leaf, Interrupted):  # else the command said it already
                err.print("interrupted")
            return 130
        if isinstance(leaf, BrokenPipeError):  # the reader stopped early, e.g. `| head`
            return quiet_broken_pipe()
        raise


def entry() -> NoReturn:
    """The ``referee`` command (and ``python -m referee``): :func:`main`, then the atexit
    handlers, then exit without the interpreter's final garbage collection, which costs a
    second of CPU after a league (several seconds on a loaded machine; bench/NOTES.md,
    B12). Everything of the referee's own is stored and closed by then."""
    try:
        code: int | str | None = main()
    except SystemExit as stop:  # argparse: --help, a bad option
        code = stop.code
    if isinstance(code, str):
        print(code, file=sys.stderr)
        code = 1
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: `referee ... | head`
            pass
    os._exit(code or 0)


def _only_error(error: BaseException) -> BaseException:
    """The error itself or, when trio wrapped errors in exception groups on their way out
    of a nursery: Ctrl-C if it is among them, else the first RefereeError if they are all
    RefereeErrors; else the group as it is."""
    leaves = list(_leaves(error))
    if any(isinstance(leaf, KeyboardInterrupt) for leaf in leaves):
        return next(leaf for leaf in leaves if isinstance(leaf, KeyboardInterrupt))
    if leaves and all(isinstance(leaf, RefereeError) for leaf in leaves):
        return leaves[0]
    return error


def _leaves(error: BaseException) -> Iterator[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            yield from _leaves(inner)
    else:
        yield error


if __name__ == "__main__":
    sys.exit(main())
