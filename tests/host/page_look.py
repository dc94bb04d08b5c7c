"""What the remote page's look tests share: screenshots at a phone's and a desktop's size saved as test
artefacts (never committed), layout measurements, and axe-core's accessibility check injected through
Playwright (installed by `make test` into .venv/node; the checks skip with a reason when it is absent)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / ".venv" / "node" / "node_modules" / "axe-core" / "axe.min.js"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}


def artefacts() -> Path:
    """The folder screenshots go to: $YOKE_ARTEFACTS, else tmp/artefacts/remote-page in the checkout."""
    folder = Path(os.environ.get("YOKE_ARTEFACTS") or ROOT / "tmp" / "artefacts" / "remote-page")
    folder.mkdir(parents=True, exist_ok=True)
    print(f"screenshots: {folder}")
    return folder


def no_sideways_scroll(page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    viewport = page.evaluate("window.innerWidth")
    assert width <= viewport, f"{width} px of content in a {viewport} px viewport: it scrolls sideways"


def shoot(page, name: str) -> None:
    """Screenshots at 390x844 and 1280x800; at the phone's size nothing scrolls sideways."""
    folder = artefacts()
    for size in (PHONE, DESKTOP):
        page.set_viewport_size(size)
        page.evaluate("new Promise(requestAnimationFrame)")
        if size is PHONE:
            no_sideways_scroll(page)
        page.screenshot(path=str(folder / f"{name}-{size['width']}x{size['height']}.png"))
    page.set_viewport_size(PHONE)


def tall_enough(locator, least: float = 44) -> None:
    """Every element the locator finds is at least `least` px tall (a finger's target)."""
    for i in range(locator.count()):
        box = locator.nth(i).bounding_box()
        assert box and box["height"] >= least, (locator.nth(i).inner_text(), box)


def in_view(page, locator) -> None:
    """The element is inside the viewport and nothing (the fixed prompt box, the sticky header) covers it."""
    locator.scroll_into_view_if_needed()
    box = locator.bounding_box()
    size = page.viewport_size
    assert box and box["y"] >= 0 and box["y"] + box["height"] <= size["height"], (box, size)
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    on_top = locator.evaluate(f"(el) => el.contains(document.elementFromPoint({x}, {y}))")
    assert on_top, f"something covers {locator}"


def accessible(page, name: str) -> None:
    """axe-core finds no serious or critical violation on the page as it is now."""
    if not AXE.exists():
        pytest.skip("axe-core is not installed (make test installs it into .venv/node)")
    page.add_script_tag(content=AXE.read_text())
    result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    bad = [v for v in result["violations"] if v.get("impact") in ("serious", "critical")]
    detail = [(v["id"], v["help"], [n["target"] for n in v["nodes"]][:3]) for v in bad]
    assert not bad, f"{name}: {detail}"
