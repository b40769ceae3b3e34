"""Answers Hello with protocol major 2: the referee speaks 1 (fault ``protocol``)."""

from rawbot import RawBot, serve_raw


class OldProtocol(RawBot):
    name = "old-protocol"
    major = 2


serve_raw(OldProtocol())
