"""Crashes (exit code 3) on its 3rd decision of every game: restarted before the next one."""

import os

from onthird import serve_misbehaving

serve_misbehaving("crash", lambda _view: os._exit(3))
