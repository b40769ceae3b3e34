"""Issue 12, class 2: leave a tree 1,500 directories deep in its home (the innermost mode
000, a link to a file of the referee's on the way), then crash on its 3rd decision, so
that its home is cleaned up in the middle of the league."""

import os
import sys

from onthird import serve_misbehaving

DEPTH = 1500


def build_and_crash(_view: object) -> None:
    base = os.environ["HOME"]
    fd = os.open(base, os.O_RDONLY)
    for level in range(DEPTH):
        os.mkdir("d", dir_fd=fd)
        if level == DEPTH // 2:
            os.symlink(os.path.abspath(sys.argv[1]), "link", dir_fd=fd)
        inner = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.mkdir("locked", dir_fd=fd)
    with open(os.open("locked/f", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=fd), "w") as handle:
        handle.write("x")
    os.chmod(f"/proc/self/fd/{fd}", 0o000)
    print(f"deep_tree: {DEPTH} levels built", file=sys.stderr, flush=True)
    os._exit(3)


serve_misbehaving("deep_tree", build_and_crash)
