"""The ``referee`` command line: one module per command (``referee.cli.main`` dispatches).

The top wing: it may import every other wing, and none imports it. It never imports grpc or
the generated code itself; the transport does (and quiets gRPC's logs).
"""
