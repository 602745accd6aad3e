"""axe-core finds no accessibility violation (WCAG 2.1 A and AA) on any page, at a desktop's
width and at a phone's (issue 29, item 5).

axe-core comes from the npm registry (.ci/run installs it under .cache/axe; ACWC_AXE_JS names
another copy); it is injected into each page through WebDriver, which the pages' Content
Security Policy does not govern.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.web.helpers import TD, Browser, Site
from tests.web.test_chromium import login, logout
from tests.web.test_phone_width import DESK_PAGES, PUBLIC_PAGES, offers_on_both_sides
from tests.web.webdriver import Browser as Chromium
from tests.web.webdriver import chromium, chromium_paths

# The same on both databases (accessibility of the pages' markup): CI's PostgreSQL run leaves it to
# the SQLite run.
pytestmark = pytest.mark.same_on_both_databases

AXE = Path(
    os.environ.get("ACWC_AXE_JS")
    or Path(__file__).parents[2] / ".cache" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
)
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
RUN = """
const [tags, done] = arguments;
axe.run(document, {runOnly: {type: "tag", values: tags}}).then(
  (r) => done(r.violations.map((v) => [v.id, v.help, v.nodes.slice(0, 3).map((n) => n.target)])),
  (e) => done([["axe-error", String(e), []]]),
);
"""


def axe_source() -> str:
    if not AXE.is_file():
        reason = f"axe-core is not installed at {AXE} (npm install --prefix .cache/axe axe-core)"
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but {reason}")
        pytest.skip(reason)
    return AXE.read_text(encoding="utf-8")


async def violations(b: Chromium, site: Site, axe: str, paths: tuple[str, ...]) -> dict[str, Any]:
    found = {}
    for path in paths:
        await b.go(site.url + path)
        await b.script(axe)
        result = await b.wait_in_page(RUN, TAGS)
        if result:
            found[path] = result
    return found


async def test_no_page_has_an_accessibility_violation(
    site: Site, browsers: dict[str, Browser]
) -> None:
    chromium_paths()
    axe = axe_source()
    ab = await offers_on_both_sides(site, browsers["alice"], browsers["bob"])
    found: dict[str, Any] = {}
    async with chromium() as b:
        for width in (1280, 375):
            await b.resize(width, 900)
            for path, problems in (await violations(b, site, axe, PUBLIC_PAGES)).items():
                found[f"{path} @{width}"] = problems
            await login(b, site, "Bob")
            for path, problems in (await violations(b, site, axe, (f"/match/{ab}",))).items():
                found[f"{path} (Bob) @{width}"] = problems
            await logout(b)
        await login(b, site, TD)
        found |= await violations(b, site, axe, (*DESK_PAGES, f"/match/{ab}", "/match/999"))
    assert not found, found
