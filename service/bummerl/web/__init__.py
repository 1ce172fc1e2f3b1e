"""The web pages of the server (served by the REST gateway at ``/``; static files, no build step):
Home, Match (live and replay), Play (a person against a house bot) and Ladder. They use only the
public REST API (``/v1/...``). ``WEB_DIR`` is the directory of the files."""

from pathlib import Path

WEB_DIR = Path(__file__).resolve().parent
"""Directory of ``index.html`` and the other files served at ``/web/``."""
