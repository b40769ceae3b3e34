"""The ``referee`` command line: one module per command."""

import os

# gRPC logs at INFO level about fork() while bot processes start; users need only errors.
os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
