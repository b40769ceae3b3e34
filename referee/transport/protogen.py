"""Regenerate ``referee/_proto/`` from ``protos/`` (docs/design.md §2): ``make proto``.

Runs ``grpc_tools.protoc`` with the Python, gRPC and (when installed) mypy-protobuf
plugins into a scratch directory, rewrites the generated absolute imports
(``from knockout_whist.v1 import bot_pb2``) to the package path
(``from referee._proto.knockout_whist.v1 import bot_pb2``), adds ``__init__.py`` files,
and replaces the output directory. The result depends only on the ``.proto`` files and
the installed tool versions, so it is deterministic; ``tests/transport/test_proto_fresh.py``
fails when the committed files are stale.

Usage: ``python -m referee.transport.protogen [OUT_DIR]`` (default ``referee/_proto``).
"""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
from pathlib import Path

from referee.errors import BotError

REPO_ROOT = Path(__file__).resolve().parents[2]
PROTO_ROOT = REPO_ROOT / "protos"
DEFAULT_OUT = REPO_ROOT / "referee" / "_proto"
PACKAGE = "referee._proto"

_HEADER = '"""Generated from protos/ by `make proto` (referee/transport/protogen.py). Do not edit."""\n'


def proto_files(root: Path = PROTO_ROOT) -> list[Path]:
    """The ``.proto`` files under ``root``, relative to it, sorted."""
    return sorted(path.relative_to(root) for path in root.rglob("*.proto"))


def _plugin(name: str) -> Path | None:
    """The protoc plugin ``name`` next to this Python (the virtualenv's bin), or None."""
    candidate = Path(sys.executable).parent / name
    if candidate.exists():
        return candidate
    found = shutil.which(name)
    return Path(found) if found else None


def _rewrite_imports(text: str, top_packages: set[str]) -> str:
    """Point imports of the generated top-level packages at ``referee._proto``."""
    for top in sorted(top_packages):
        text = re.sub(rf"^(from|import) {re.escape(top)}\.", rf"\1 {PACKAGE}.{top}.", text, flags=re.MULTILINE)
        # The module name protobuf gives the generated classes (their __module__).
        text = re.sub(rf"'({re.escape(top)}\.[\w.]+_pb2)'", rf"'{PACKAGE}.\1'", text)
    return text


def generate(out_dir: Path, proto_root: Path = PROTO_ROOT) -> list[Path]:
    """Generate the Python code for every ``.proto`` under ``proto_root`` into ``out_dir``.

    ``out_dir`` is emptied first (it becomes the ``referee._proto`` package). Returns the
    written files, sorted. Raises BotError when protoc fails (its message is included).
    """
    from grpc_tools import protoc  # type: ignore[import-untyped]  # a dev dependency, imported only here

    protos = proto_files(proto_root)
    if not protos:
        raise BotError(f"no .proto files under {proto_root}")
    include = Path(protoc.__file__).parent / "_proto"  # google/protobuf/*.proto
    with tempfile.TemporaryDirectory(prefix="kwhist-protogen-") as scratch:
        args = ["grpc_tools.protoc", f"-I{proto_root}", f"-I{include}", f"--python_out={scratch}", f"--grpc_python_out={scratch}"]
        mypy, mypy_grpc = _plugin("protoc-gen-mypy"), _plugin("protoc-gen-mypy_grpc")
        if mypy is not None and mypy_grpc is not None:
            args += [
                f"--plugin=protoc-gen-mypy={mypy}",
                f"--plugin=protoc-gen-mypy_grpc={mypy_grpc}",
                f"--mypy_out=quiet:{scratch}",
                f"--mypy_grpc_out=quiet:{scratch}",
            ]
        args += [str(path) for path in protos]
        if protoc.main(args) != 0:
            raise BotError(f"protoc failed on {', '.join(map(str, protos))}: see the messages above")
        generated = Path(scratch)
        top_packages = {path.parts[0] for path in protos if len(path.parts) > 1}
        if out_dir.exists():
            shutil.rmtree(out_dir)
        out_dir.mkdir(parents=True)
        written = [out_dir / "__init__.py"]
        written[0].write_text(_HEADER)
        for source in sorted(generated.rglob("*")):
            if source.is_dir():
                continue
            relative = source.relative_to(generated)
            target = out_dir / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(_rewrite_imports(source.read_text(encoding="utf-8"), top_packages), encoding="utf-8")
            written.append(target)
        for directory in sorted(path for path in out_dir.rglob("*") if path.is_dir()):
            init = directory / "__init__.py"
            if not init.exists():
                init.write_text(_HEADER)
                written.append(init)
    return sorted(written)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    out_dir = Path(args[0]) if args else DEFAULT_OUT
    written = generate(out_dir)
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
