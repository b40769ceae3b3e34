"""``python -m referee`` is the ``referee`` command."""

from referee.cli.main import entry

entry()
