"""Browser tests of the web pages: headless Chromium driven by Playwright for Python.

They use the system's Chromium (Debian's ``chromium`` package, :data:`CHROMIUM`; Playwright never
downloads a browser here). ``make setup`` installs it where it can (root with apt-get); without it
(or without the ``playwright`` package) every test here is skipped and the session header says so
in one line. ``BUMMERL_CHROMIUM`` points at another Chromium binary; ``.ci/run``-style runs that
must not skip set ``BUMMERL_REQUIRE_BROWSER=1``, which turns the skip into a failure.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator
from typing import Any

import pytest

from bummerl.app import Runtime
from bummerl.config import Settings

CHROMIUM = os.environ.get("BUMMERL_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
try:
    import playwright.async_api  # noqa: F401

    HAVE_PLAYWRIGHT = True
except ImportError:  # pragma: no cover - the dev extra installs it
    HAVE_PLAYWRIGHT = False

MISSING = ("" if HAVE_PLAYWRIGHT else "the playwright package") or ("" if os.path.exists(CHROMIUM) else
                                                                    f"Chromium at {CHROMIUM} (apt-get install chromium)")


def pytest_report_header(config: Any) -> str:
    if MISSING:
        return f"!!! BROWSER TESTS SKIPPED: no {MISSING} !!!"
    return f"browser tests: {CHROMIUM}"


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if MISSING:  # one loud line, also under -q (which hides the header)
        terminalreporter.write_line(f"!!! BROWSER TESTS SKIPPED: no {MISSING} !!!", red=True, bold=True)


def pytest_collection_modifyitems(config: Any, items: list[Any]) -> None:
    if not MISSING:
        return
    if os.environ.get("BUMMERL_REQUIRE_BROWSER") == "1":
        raise pytest.UsageError(f"BUMMERL_REQUIRE_BROWSER=1 but there is no {MISSING}")
    skip = pytest.mark.skip(reason=f"no {MISSING}")
    for item in items:
        if "tests/web/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(skip)


@pytest.fixture
async def server(redis_url: str) -> AsyncIterator[Runtime]:
    settings = Settings.from_env({}, host="127.0.0.1", port=0, http_port=0, metrics_port=0, redis_url=redis_url,
                                 house_workers=0)
    async with Runtime(settings, gateway_port=0) as rt:
        yield rt


@pytest.fixture
async def page(server: Runtime) -> AsyncIterator[Any]:
    """A fresh page of headless Chromium; ``page.base`` is the server's REST/pages URL. Every
    request that leaves for another origin fails the test (the pages make none)."""
    from playwright.async_api import async_playwright

    base = f"http://127.0.0.1:{server.http_port}"
    foreign: list[str] = []
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            context = await browser.new_context(viewport={"width": 1100, "height": 900})
            pg = await context.new_page()
            pg.on("request", lambda r: None if r.url.startswith(base) or r.url.startswith("data:") else foreign.append(r.url))
            errors: list[str] = []
            pg.on("pageerror", lambda e: errors.append(str(e)))
            pg.base = base
            pg.js_errors = errors
            yield pg
            assert not foreign, f"requests to other origins: {foreign}"
            assert not errors, f"JavaScript errors: {errors}"
        finally:
            await browser.close()
