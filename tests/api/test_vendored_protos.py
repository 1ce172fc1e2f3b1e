"""proto/ stands alone: the google/api and google/rpc files our protos import (or that clients need
to decode error details) are vendored under proto/google/, byte for byte the ones of the installed
googleapis-common-protos, and the bummerl.v1 code generates with proto/ as the only include dir
besides protoc's own google/protobuf (docs/CLIENTS.md)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import google.api
import pytest

ROOT = Path(__file__).resolve().parents[2]
PROTO = ROOT / "proto"
#: Where googleapis-common-protos keeps its .proto sources (next to the generated _pb2 modules).
INSTALLED = Path(list(google.api.__path__)[0]).parent.parent
VENDORED = ["google/api/annotations.proto", "google/api/http.proto", "google/rpc/status.proto",
            "google/rpc/error_details.proto"]


@pytest.mark.parametrize("name", VENDORED)
def test_vendored_proto_is_the_installed_one(name: str) -> None:
    vendored, installed = PROTO / name, INSTALLED / name
    assert installed.is_file(), f"googleapis-common-protos no longer ships {name}"
    assert vendored.read_bytes() == installed.read_bytes(), (
        f"proto/{name} differs from the installed googleapis-common-protos: copy {installed} to proto/{name}"
    )


def test_nothing_else_is_vendored() -> None:
    found = sorted(str(p.relative_to(PROTO)) for p in (PROTO / "google").rglob("*") if p.is_file())
    assert found == sorted(VENDORED)


def test_every_import_resolves_inside_proto() -> None:
    """Each import of a .proto under proto/ is a file under proto/ or a google/protobuf well-known
    type (which protoc, protobufjs and every other protobuf runtime bring along)."""
    for path in PROTO.rglob("*.proto"):
        for name in re.findall(r'^import\s+(?:public\s+)?"([^"]+)";', path.read_text(), re.M):
            assert name.startswith("google/protobuf/") or (PROTO / name).is_file(), f"{path}: import {name}"


def test_generation_needs_no_googleapis_include(tmp_path: Path) -> None:
    sys.path.insert(0, str(PROTO))
    try:
        from generate import generate
    finally:
        sys.path.remove(str(PROTO))
    compiled = generate(str(tmp_path))
    assert {Path(f).name for f in compiled} == {"common.proto", "game.proto", "ladder.proto"}
    game = (tmp_path / "bummerl" / "v1" / "game_pb2.py").read_text()
    assert "from google.api import annotations_pb2" in game
