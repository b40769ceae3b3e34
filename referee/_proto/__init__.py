"""Generated from protos/ by `make proto` (referee/transport/protogen.py). Do not edit."""
