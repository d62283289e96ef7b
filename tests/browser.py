"""Pages looked at as a person would: Debian's Chromium, headless, driven by Playwright (no browser download).

Screenshots go to AUTOML_AGENT_SCREENSHOTS when it is set (docs/screenshots is made that way), else to the test's
temporary folder."""

from __future__ import annotations

import os
import re
import shutil
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# without the background-networking flags Chromium keeps trying Google's hosts on a closed network
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-sync",
         "--disable-background-networking", "--disable-component-update"]


def screenshot_dir(fallback: Path) -> Path:
    folder = Path(os.environ.get("AUTOML_AGENT_SCREENSHOTS") or fallback)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@contextmanager
def page(width: int = 1180, height: int = 900) -> Iterator:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            yield browser.new_page(viewport={"width": width, "height": height})
        finally:
            browser.close()


def try_the_demo(url: str, answer: re.Pattern, screenshot: Path, example_row: int = 1) -> str:
    """Open the demo, wait for its first prediction, click a held-out example row, press Predict and wait for the
    answer to show; returns the page's text after the prediction."""
    with page() as tab:
        tab.goto(url, wait_until="networkidle", timeout=90_000)
        predict = tab.get_by_role("button", name="Predict")
        predict.wait_for(timeout=60_000)
        tab.get_by_text(answer).first.wait_for(timeout=60_000)  # the page opens with its first row predicted
        # a table of examples for several inputs, a gallery of buttons for one
        cell = tab.locator(f"[data-testid='dataset-cell-{example_row}-0'], button.gallery-item")
        if cell.count():
            cell.nth(0 if cell.first.get_attribute("data-testid") else min(example_row, cell.count() - 1)).click()
            tab.wait_for_timeout(400)
        before = tab.locator("body").inner_text()
        predict.click()
        tab.wait_for_function("() => !document.querySelector('.pending, .generating')", timeout=60_000)
        tab.get_by_text(answer).first.wait_for(timeout=60_000)
        tab.wait_for_timeout(600)  # plots fade in
        text = tab.locator("body").inner_text()
        errors = tab.locator(".toast-body.error, [data-testid='toast-body']")
        assert not errors.count(), f"the page shows an error: {errors.first.inner_text()}"
        assert before, "the page had no text before the prediction"
        tab.screenshot(path=str(screenshot), full_page=True)
        return text


def look_at_report(html_file: Path, screenshot: Path) -> dict:
    """The self-contained report in the browser: every picture decoded and drawn; returns what it shows."""
    with page(width=1000) as tab:
        tab.goto(html_file.as_uri())
        tab.wait_for_load_state("load")
        shown = tab.evaluate("""() => ({
            title: document.title,
            sections: [...document.querySelectorAll('h2')].map(h => h.textContent),
            pictures: [...document.images].map(i => ({alt: i.alt, width: i.naturalWidth, height: i.naturalHeight})),
            external: [...document.querySelectorAll('[src], link[href]')]
                .map(e => e.getAttribute('src') || e.getAttribute('href')).filter(u => !u.startsWith('data:')),
        })""")
        tab.screenshot(path=str(screenshot), full_page=True)
        return shown
