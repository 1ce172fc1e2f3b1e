"""Generate the protobuf/gRPC Python modules of bummerl.v1 from proto/bummerl/v1/*.proto.

Used by `make proto` (output into service/, for the editable install) and by setup.py's build
hook (output into the wheel's build dir), so that `pip install .` works without make.
Imports resolve inside proto/ (google/api/{annotations,http}.proto are vendored there from
googleapis-common-protos, so any client loads our protos with proto/ as its only include dir)
plus grpc_tools' own google/protobuf/*.proto. The generated code still imports
google.api.annotations_pb2 from googleapis-common-protos at run time.
Usage: python proto/generate.py OUT_DIR   -> writes OUT_DIR/bummerl/v1/*_pb2.py, *_pb2_grpc.py, *.pyi
"""

from __future__ import annotations

import glob
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def generate(out_dir: str) -> list[str]:
    """Run grpc_tools.protoc; return the .proto files compiled. Raises RuntimeError if protoc fails."""
    import grpc_tools
    from grpc_tools import protoc

    files = sorted(glob.glob(os.path.join(HERE, "bummerl", "v1", "*.proto")))
    includes = [HERE, os.path.join(os.path.dirname(grpc_tools.__file__), "_proto")]
    os.makedirs(os.path.join(out_dir, "bummerl", "v1"), exist_ok=True)
    args = [
        "grpc_tools.protoc",
        *(f"-I{i}" for i in includes),
        f"--python_out={out_dir}",
        f"--grpc_python_out={out_dir}",
        f"--pyi_out={out_dir}",
        *files,
    ]
    if protoc.main(args) != 0:
        raise RuntimeError("protoc failed on " + " ".join(files))
    init = os.path.join(out_dir, "bummerl", "v1", "__init__.py")
    with open(init, "w") as fh:
        fh.write('"""Generated protobuf modules of the bummerl.v1 API (do not edit: make proto)."""\n')
    return files


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(HERE), "service")
    for f in generate(out):
        print("generated", os.path.relpath(f, HERE))
