"""Installing from a wheel works (README "Install from a wheel"; issue 38): the wheel built from
this tree holds every package, the generated protobuf code and the package data (Lua scripts, web
pages), and installed into a fresh virtualenv it gives a working ``bummerl`` command.

Offline and in seconds: the wheel is built without build isolation (the dev virtualenv has
setuptools, wheel and grpcio-tools) from a copy of the tree (the checkout's build/ is left alone),
installed with ``--no-deps --no-index``, and the fresh virtualenv finds the dependencies in the
dev virtualenv's site-packages through a ``.pth`` path line (which does not load that
virtualenv's editable install of bummerl). Run alone: ``.venv/bin/python -m pytest
tests/e2e/test_wheel_install.py``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TREE = ("pyproject.toml", "setup.py", "README.md", "LICENSE", "proto", "service", "clients/python", "cli", "bench")


def _copy_tree(dst: Path) -> None:
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", "*_pb2*.py", "node_modules", "build", "*.egg-info")
    for name in TREE:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dst / name, ignore=skip)
        elif src.exists():
            (dst / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst / name)
    v1 = dst / "service/bummerl/v1/__init__.py"
    if v1.exists():  # generated (git-ignored): the wheel build generates bummerl.v1 itself
        v1.unlink()


def test_the_wheel_installs_into_a_fresh_venv_and_runs(tmp_path: Path) -> None:
    src, dist, venv = tmp_path / "src", tmp_path / "dist", tmp_path / "venv"
    _copy_tree(src)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME") and not k.startswith("BUMMERL_")}
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(src), "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(dist)], check=True, env=env, timeout=300, cwd=tmp_path)
    [wheel] = dist.glob("bummerl-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for need in ("bummerl/v1/__init__.py", "bummerl/store/lua/", "bummerl/web/app.js", "bummerl_client/__init__.py",
                 "bummerl_cli/main.py", "bummerl/py.typed"):
        assert any(n.startswith(need) for n in names), f"the wheel lacks {need}"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=env, timeout=120)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)], check=True, env=env,
                   timeout=120)
    purelib = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                  capture_output=True, text=True, check=True, env=env).stdout.strip())
    (purelib / "zz_dev_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")  # the dependencies, not bummerl
    where = subprocess.run([str(py), "-c", "import bummerl, bummerl_client, bummerl_cli, bummerl.v1; "
                                           "print(bummerl.__file__, bummerl_client.__file__, bummerl_cli.__file__)"],
                           capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
    assert where.returncode == 0, where.stderr
    assert all(p.startswith(str(purelib)) for p in where.stdout.split()), where.stdout  # from the wheel, not the tree
    helped = subprocess.run([str(venv / "bin" / "bummerl"), "--help"], capture_output=True, text=True, env=env,
                            cwd=tmp_path, timeout=60)
    assert helped.returncode == 0 and "serve" in helped.stdout and "ladder" in helped.stdout, helped.stderr
    played = subprocess.run([str(venv / "bin" / "bummerl"), "play", "--bots", "greedy,random", "--seed", "3", "--json"],
                            capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert played.returncode == 0, played.stderr  # the embedded server runs from the wheel (Lua scripts, protos)


def test_make_run_and_demo_install_the_server_only() -> None:
    """``make run`` / ``make demo`` install the server's dependencies (README, "The two commands"),
    not the dev extra (856 MB with OpenSpiel and Playwright), npm packages or Chromium; ``make
    test`` adds those. ``make -n -B`` prints every command a target would run, running none."""
    if shutil.which("make") is None:
        import pytest
        pytest.skip("no make")

    def commands(target: str) -> str:
        out = subprocess.run(["make", "-n", "-B", target], cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        return out.stdout

    for target in ("run", "demo"):
        shown = commands(target)
        assert "pip install -q -e '.[proto]'" in shown and ".serve-installed" in shown, shown
        assert "[dev]" not in shown and "npm" not in shown and "apt-get" not in shown, shown
    assert "pip install -q -e '.[dev]'" in commands("test")
