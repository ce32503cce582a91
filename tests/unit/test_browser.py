"""The committed report rendered in a real browser (Debian's Chromium, driven by Selenium through
ChromeDriver): every figure loads and has a size, every internal link has a target, nothing
overflows the page sideways but the figures' own scroll boxes.

.ci/run installs Chromium and sets CHECKER_REQUIRE_BROWSER=1, so there this test cannot skip."""
import os
import shutil

import pytest

from conftest import ROOT

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1400,1000"]


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        webdriver = None
    if webdriver is None or not CHROMIUM or not DRIVER:
        if os.environ.get("CHECKER_REQUIRE_BROWSER"):
            pytest.fail("CHECKER_REQUIRE_BROWSER is set but Chromium, ChromeDriver or selenium is missing")
        pytest.skip("no Chromium/ChromeDriver/selenium here (Debian: apt-get install chromium chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS + [f"--user-data-dir={tmp_path_factory.mktemp('chromium')}"]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    yield driver
    driver.quit()


def test_index_renders_with_every_figure(browser, tmp_path):
    index = os.path.join(ROOT, "reports", "index.html")
    browser.get("file://" + index)
    images = browser.execute_script(
        "return [...document.images].map(i => [i.getAttribute('src'), i.complete, i.naturalWidth, i.naturalHeight])")
    figures = sorted(os.listdir(os.path.join(ROOT, "reports", "figures")))
    assert sorted(src.split("/", 1)[1] for src, *_ in images) == figures
    broken = [src for src, done, w, h in images if not (done and w > 0 and h > 0)]
    assert not broken, broken
    # the largest fragment stays legible: m16n8k256 A is drawn in bands, not squeezed to the page
    big = [(w, h) for src, _, w, h in images if src.endswith("m16n8k256.A.b1.layout.svg")]
    assert big and big[0][0] < 1200 and big[0][1] > 8 * 16 * 20
    missing = browser.execute_script(
        "return [...document.querySelectorAll('a[href^=\"#\"]')].map(a => a.getAttribute('href').slice(1))"
        ".filter(id => !document.getElementById(id))")
    assert not missing, missing
    overflow = browser.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0
    assert browser.execute_script("return document.querySelectorAll('section').length") == 20  # summary, ISA, 17 specs, relations
    assert browser.save_screenshot(str(tmp_path / "index.png"))
    assert (tmp_path / "index.png").stat().st_size > 10_000
