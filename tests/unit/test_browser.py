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


def _pages() -> list:
    return sorted(n for n in os.listdir(os.path.join(ROOT, "reports")) if n.endswith(".html"))


def test_every_page_renders_with_every_figure_and_link(browser, tmp_path):
    """Each page of the report (index.html and one per spec): its figures load and have a size,
    every link to a page or a heading lands on one, and nothing overflows the page sideways."""
    pages, images, ids, links = _pages(), [], {}, []
    assert "index.html" in pages and "m16n8k256.html" in pages and len(pages) == 33  # summary, ISA, 30 specs, relations
    for page in pages:
        browser.get("file://" + os.path.join(ROOT, "reports", page))
        images += browser.execute_script(
            "return [...document.images].map(i => [i.getAttribute('src'), i.complete, i.naturalWidth, "
            "i.naturalHeight, i.getBoundingClientRect().width])")
        ids[page] = set(browser.execute_script("return [...document.querySelectorAll('[id]')].map(e => e.id)"))
        links += [(page, href) for href in browser.execute_script(
            "return [...document.querySelectorAll('a[href]')].map(a => a.getAttribute('href'))")]
        overflow = browser.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, page
        # no formula box scrolls sideways: long lines wrap (m16n8k256 A's conditions were clipped)
        clipped = browser.execute_script("return [...document.querySelectorAll('pre')]"
                                          ".filter(p => p.scrollWidth > p.clientWidth + 1).length")
        assert clipped == 0, page
    figures = sorted(os.listdir(os.path.join(ROOT, "reports", "figures")))
    assert sorted({src.split("/", 1)[1] for src, *_ in images}) == figures
    broken = [src for src, done, w, h, _ in images if not (done and w > 0 and h > 0)]
    assert not broken, broken
    # the largest fragment stays legible: m16n8k256 A is drawn in bands, not squeezed to the page
    big = [(w, h) for src, _, w, h, _ in images if src.endswith("m16n8k256.A.b1.layout.svg")]
    assert big and big[0][0] < 1200 and big[0][1] > 8 * 16 * 20
    # every figure fits the column without scrolling: m8n8k4's four computations in two rows
    shown = browser.execute_script("return document.querySelector('main').clientWidth")
    assert all(w <= shown for *_, w in images), [src for src, *_, w in images if w > shown]
    for page, href in links:
        if href.startswith(("http:", "https:")) or ".md" in href or ".yaml" in href:
            continue
        target, _, anchor = href.partition("#")
        target = target or page
        assert target in ids, (page, href)
        assert not anchor or anchor in ids[target], (page, href)
    browser.get("file://" + os.path.join(ROOT, "reports", "m16n8k256.html") + "#ab1")
    assert browser.execute_script("return document.getElementById('ab1').getBoundingClientRect().top") < 50
    assert browser.save_screenshot(str(tmp_path / "m16n8k256.png"))
    assert (tmp_path / "m16n8k256.png").stat().st_size > 10_000
