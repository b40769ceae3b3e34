"""Burn CPU forever."""
while True:
    pass
