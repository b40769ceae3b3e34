"""The committed generated code in referee/_proto matches protos/ (docs/design.md §2)."""

from __future__ import annotations

from pathlib import Path

from referee.transport.protogen import DEFAULT_OUT, generate


def _files(root: Path) -> dict[str, str]:
    return {
        str(path.relative_to(root)): path.read_text(encoding="utf-8")
        for path in sorted(root.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def test_generated_code_is_fresh(tmp_path: Path) -> None:
    fresh = tmp_path / "_proto"
    generate(fresh)
    committed, expected = _files(DEFAULT_OUT), _files(fresh)
    stale = sorted(name for name in expected.keys() | committed.keys() if committed.get(name) != expected.get(name))
    assert not stale, f"referee/_proto is stale against protos/ ({', '.join(stale)}): run `make proto` and commit the result"


def test_generation_is_deterministic(tmp_path: Path) -> None:
    generate(tmp_path / "a")
    generate(tmp_path / "b")
    assert _files(tmp_path / "a") == _files(tmp_path / "b")


def test_generated_modules_import_under_the_package() -> None:
    import referee._proto.knockout_whist.v1.bot_pb2 as pb
    import referee._proto.knockout_whist.v1.bot_pb2_grpc as pb_grpc

    assert pb.Action.__module__ == "referee._proto.knockout_whist.v1.bot_pb2"
    assert pb_grpc.KnockoutWhistBotStub is not None
    assert pb.DESCRIPTOR.package == "knockout_whist.v1"
