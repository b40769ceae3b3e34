"""Knockout Whist Referee: run bot tournaments of Knockout Whist (see README.md)."""

__version__ = "0.1.0"
PROTOCOL_VERSION = (1, 1)
"""Major, minor version of the bot contract (protos/knockout_whist/v1)."""
