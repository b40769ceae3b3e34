"""Imports a package that is not installed: it fails on its own, at every start."""

import kwhist_no_such_package  # noqa: F401
