"""index.html of a failing run in real headless Chromium (Debian's ``chromium``, driven by Playwright
over the DevTools protocol; no browser download): the first failure shows without scrolling, every
anchor resolves, the filters hide rows, and no escape code reaches the page.

``KUBE32_SCREENSHOTS=DIR`` also saves the README's pictures (report.png, timeline.png) there."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

VIEWPORT = {"width": 1280, "height": 720}
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
EVICTION = "sc-node_lifecycle-eviction-the_default_toleration_300_s_still_running_just_before_it_runs_out_" \
           "evicted_just_after"


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    assert path, "Debian's chromium is needed (tox installs it: tools/install_chromium.py)"
    return path


@pytest.fixture(scope="module")
def page(failing_run, tmp_path_factory):
    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")), executable_path=chromium(), headless=True,
            args=CHROMIUM_ARGS, viewport=VIEWPORT)
        try:
            page = context.new_page()
            page.goto((failing_run / "index.html").as_uri())
            yield page
        finally:
            context.close()


def test_first_failure_is_visible_without_scrolling(page):
    first = page.locator(".clause").first
    assert first.get_attribute("data-status") == "failed"
    box = page.locator('.clause[data-status="failed"]').first.bounding_box()
    assert box is not None and box["y"] + 40 <= VIEWPORT["height"], box
    assert page.evaluate("window.scrollY") == 0
    failing_step = page.locator('.clause[data-status="failed"] tr.failed').first
    assert failing_step.is_visible() and "failed here" in failing_step.inner_text()
    shots = os.environ.get("KUBE32_SCREENSHOTS")
    if shots:
        page.screenshot(path=str(Path(shots) / "report.png"))


def test_every_anchor_resolves(page, failing_run):
    missing = page.evaluate("""() => Array.from(document.querySelectorAll('a[href^="#"]'))
        .map(a => decodeURIComponent(a.getAttribute('href').slice(1)))
        .filter(id => !document.getElementById(id))""")
    assert missing == []
    assert page.locator("#SCHED-TIE-BREAK").count() == 1
    # a passed clause is folded; following its anchor opens it and brings it into view
    page.goto((failing_run / "index.html").as_uri() + "#SCHED-BIND-ON-CREATE")
    target = page.locator("#SCHED-BIND-ON-CREATE")
    assert target.evaluate("el => el.open") is True
    box = target.bounding_box()
    assert box is not None and -2 <= box["y"] < VIEWPORT["height"] / 2      # scrolled to its top
    page.goto((failing_run / "index.html").as_uri() + "#" + EVICTION)
    assert page.locator("#" + EVICTION).is_visible()


def test_filters_hide_rows(page, failing_run):
    page.goto((failing_run / "index.html").as_uri())
    passed = page.locator('.clause[data-status="passed"]')
    assert passed.count() > 0 and passed.first.is_visible()
    page.locator('input[data-filter-status="passed"]').uncheck()
    assert all(not passed.nth(i).is_visible() for i in range(passed.count()))
    assert page.locator('.clause[data-status="failed"]').first.is_visible()
    page.locator('input[data-filter-status="passed"]').check()
    page.select_option("#filter-area", "scheduler")
    assert page.locator('.clause[data-area="node_lifecycle"]').first.is_hidden()
    assert page.locator('.clause[data-area="scheduler"]').first.is_visible()
    shown = int(page.locator("#shown").inner_text())
    assert shown == page.locator('.clause[data-area="scheduler"]').count()
    page.select_option("#filter-area", "")


def test_no_escape_codes_on_the_page(page, failing_run):
    page.goto((failing_run / "index.html").as_uri())
    text = page.evaluate("() => document.body.innerText")
    assert "\x1b" not in text and "[0m" not in text and "[31m" not in text and "[1m" not in text
    assert "spec.nodeName is" in text         # the failure explanations are there, as plain text


def test_timeline_draws_the_eviction_scenario(page, failing_run):
    page.goto((failing_run / "index.html").as_uri() + "#" + EVICTION)
    pictures = page.locator(f"#{EVICTION} .timeline svg")
    assert pictures.count() == 2                      # the whole scenario, and a close-up of the deadline
    assert pictures.first.is_visible()
    labels = pictures.first.evaluate("svg => Array.from(svg.querySelectorAll('text')).map(t => t.textContent.trim())")
    assert "node node-a" in labels and "pod web" in labels
    assert any("NoExecute" in t for t in labels)
    close_up = pictures.nth(1).evaluate("svg => Array.from(svg.querySelectorAll('text, title')).map(t => t.textContent.trim())")
    assert "expected +330 s" in close_up              # the default toleration's deadline, as a mark
    assert any("looked at +330.5 s, failed" in t for t in close_up)   # the eviction the fault delayed
    shots = os.environ.get("KUBE32_SCREENSHOTS")
    if shots:
        page.locator(f"#{EVICTION} .timeline").screenshot(path=str(Path(shots) / "timeline.png"))
