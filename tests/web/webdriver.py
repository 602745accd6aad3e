"""A small WebDriver client (W3C protocol over HTTP) for Debian's chromium and chromedriver."""

from __future__ import annotations

import asyncio
import base64
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest

ELEMENT = "element-6066-11e4-a52e-4f735466cecf"
CHROME_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--lang=en-GB",
]


def chromium_paths() -> tuple[str, str]:
    """The browser and the driver; skip (or, on CI, fail) when they are not installed."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if browser and driver:
        return browser, driver
    reason = (
        "chromium and chromium-driver are not installed "
        "(apt-get install -y chromium chromium-driver)"
    )
    if os.environ.get("CI"):
        pytest.fail(f"CI is set but {reason}")
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


class WebDriverError(Exception):
    pass


class Browser:
    """One WebDriver session."""

    def __init__(self, http: aiohttp.ClientSession, base: str, session_id: str) -> None:
        self.http = http
        self.base = f"{base}/session/{session_id}"

    async def _call(self, method: str, path: str, body: Any = None) -> Any:
        async with self.http.request(method, self.base + path, json=body) as resp:
            data = await resp.json(content_type=None)
        value = data.get("value") if isinstance(data, dict) else None
        if resp.status >= 400 or (isinstance(value, dict) and "error" in value):
            raise WebDriverError(f"{method} {path}: {value}")
        return value

    async def go(self, url: str) -> None:
        await self._call("POST", "/url", {"url": url})

    async def url(self) -> str:
        return str(await self._call("GET", "/url"))

    async def wait_for_url(self, prefix: str, *, within: float = 15.0) -> str:
        """The URL once it starts with ``prefix`` (a redirect chain may still be under way)."""
        url = ""
        for _ in range(int(within / 0.05)):
            try:
                url = await self.url()
            except WebDriverError:
                url = ""  # between two documents
            if url.startswith(prefix):
                return url
            await asyncio.sleep(0.05)
        raise WebDriverError(f"never reached {prefix}: still at {url}")

    async def find(self, css: str) -> str:
        value = await self._call("POST", "/element", {"using": "css selector", "value": css})
        if not isinstance(value, dict) or ELEMENT not in value:
            raise WebDriverError(f"no element for {css}: {value}")
        return str(value[ELEMENT])

    async def find_all(self, css: str) -> list[str]:
        values = await self._call("POST", "/elements", {"using": "css selector", "value": css})
        return [str(v[ELEMENT]) for v in values]

    async def click(self, css: str) -> None:
        element = await self.find(css)
        await self._call("POST", f"/element/{element}/click", {})

    async def script(self, source: str, *args: Any) -> Any:
        return await self._call("POST", "/execute/sync", {"script": source, "args": list(args)})

    async def wait_in_page(self, source: str, *args: Any) -> Any:
        """Run ``source`` as an asynchronous script: it calls ``done(value)`` (its last
        argument) when what it waits for has happened; the value comes back."""
        return await self._call("POST", "/execute/async", {"script": source, "args": list(args)})

    async def submit(self, css: str) -> None:
        """Click a button that loads a new page, and wait until the new page has loaded."""
        await self.script("window.__acwcOld = true;")
        await self.click(css)
        for _ in range(400):
            try:
                if await self.script(
                    "return !window.__acwcOld && document.readyState === 'complete';"
                ):
                    return
            except WebDriverError:
                pass  # between two documents
            await asyncio.sleep(0.025)
        raise WebDriverError(f"clicking {css} loaded no new page")

    async def type(self, css: str, text: str) -> None:
        element = await self.find(css)
        await self._call("POST", f"/element/{element}/clear", {})
        await self._call("POST", f"/element/{element}/value", {"text": text})

    async def set_value(self, css: str, value: str) -> None:
        """For date pickers, whose typing order depends on the browser's locale."""
        element = await self.find(css)
        await self._call(
            "POST",
            "/execute/sync",
            {
                "script": "arguments[0].value = arguments[1];"
                "arguments[0].dispatchEvent(new Event('input', {bubbles: true}));",
                "args": [{ELEMENT: element}, value],
            },
        )

    async def text(self, css: str) -> str:
        element = await self.find(css)
        return str(await self._call("GET", f"/element/{element}/text"))

    async def page_text(self) -> str:
        return await self.text("body")

    async def html(self, css: str) -> str:
        """The element's HTML as the page has it now (times keep their UTC in ``title``)."""
        return str(await self.script("return document.querySelector(arguments[0]).outerHTML;", css))

    async def before_each_page(self, source: str) -> None:
        """Run ``source`` in every page this browser opens from now on, before its scripts."""
        await self._call(
            "POST",
            "/goog/cdp/execute",
            {"cmd": "Page.addScriptToEvaluateOnNewDocument", "params": {"source": source}},
        )

    async def time_zone(self, zone: str) -> None:
        """Pages read the clock in ``zone`` (an IANA name), as a browser there would."""
        await self._call(
            "POST",
            "/goog/cdp/execute",
            {"cmd": "Emulation.setTimezoneOverride", "params": {"timezoneId": zone}},
        )

    async def resize(self, width: int, height: int) -> None:
        await self._call("POST", "/window/rect", {"width": width, "height": height})

    async def screenshot(self, path: Path) -> None:
        data = await self._call("GET", "/screenshot")
        await asyncio.to_thread(_write, path, base64.b64decode(data))

    async def full_screenshot(self, path: Path, *, width: int) -> None:
        """The whole page: the window grows to the page's height first."""
        await self.resize(width, 800)
        height = await self.script("return document.documentElement.scrollHeight;")
        await self.resize(width, min(int(height) + 20, 4000))
        await self.screenshot(path)


@asynccontextmanager
async def chromium() -> AsyncIterator[Browser]:
    browser_path, driver_path = chromium_paths()
    port = _free_port()
    with tempfile.TemporaryDirectory(prefix="acwc-chromium-") as profile:
        driver = subprocess.Popen(  # noqa: ASYNC220 - a child process for the whole test
            [driver_path, f"--port={port}", "--allowed-ips=127.0.0.1"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            async with aiohttp.ClientSession() as http:
                for _ in range(200):  # until the driver listens
                    try:
                        async with http.get(f"{base}/status") as resp:
                            if resp.status == 200:
                                break
                    except aiohttp.ClientError:
                        pass
                    await asyncio.sleep(0.05)
                caps = {
                    "capabilities": {
                        "alwaysMatch": {
                            "browserName": "chrome",
                            "goog:chromeOptions": {
                                "binary": browser_path,
                                "args": [*CHROME_FLAGS, f"--user-data-dir={profile}"],
                            },
                        }
                    }
                }
                async with http.post(f"{base}/session", json=caps) as resp:
                    data = await resp.json(content_type=None)
                if resp.status != 200:
                    raise WebDriverError(f"no session: {data}")
                session_id = data["value"]["sessionId"]
                try:
                    yield Browser(http, base, session_id)
                finally:
                    async with http.delete(f"{base}/session/{session_id}"):
                        pass
        finally:
            driver.terminate()
            try:
                driver.wait(timeout=10)
            except subprocess.TimeoutExpired:
                driver.kill()
