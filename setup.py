"""Build hook: the package build generates bummerl.v1 (protobuf/gRPC) from proto/ (see proto/generate.py)."""

from __future__ import annotations

import os
import sys

from setuptools import setup
from setuptools.command.build_py import build_py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "proto"))


class BuildPyWithProto(build_py):
    """build_py that also writes bummerl/v1/*_pb2*.py into the build tree (not for editable installs)."""

    def run(self) -> None:
        super().run()
        if not getattr(self, "editable_mode", False):
            from generate import generate

            generate(self.build_lib)


setup(cmdclass={"build_py": BuildPyWithProto})
