"""A real browser (Debian's Chromium, driven by Playwright) asks the README's question on the page.

It types the question, waits for the answer, reads the drawn graph from ``window.cy`` (cytoscape's
model) and checks the support chain and its relation labels, at laptop and phone widths, with no
request leaving the server. Screenshots go to ``$GRAPHHOP_SCREENSHOTS`` (default: pytest's tmp dir).
Chromium is never downloaded: in CI ``.ci/run`` installs the Debian package; locally the test skips
when ``/usr/bin/chromium`` is missing (and fails in CI).
"""

from __future__ import annotations

import os
import socket
import threading
import time
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
QUESTION = "In which country was the painter of the Mona Lisa born?"
SUPPORT = {"286": "Mona Lisa → Leonardo da Vinci", "206": "Leonardo da Vinci → Vinci", "110": "Vinci → Italy"}

pytestmark = pytest.mark.slow

GRAPH_JS = """() => ({
  nodes: cy.nodes().map(n => ({id: n.id(), label: n.data('label'), classes: n.classes()})),
  edges: cy.edges().map(e => ({source: e.source().id(), target: e.target().id(), label: e.data('label'),
                               classes: e.classes()})),
  layout: cy.nodes().every(n => Number.isFinite(n.position('x')) && Number.isFinite(n.position('y'))),
  distinct: new Set(cy.nodes().map(n => Math.round(n.position('x')) + ',' + Math.round(n.position('y')))).size,
})"""


def _browser_or_skip() -> Path:
    if CHROMIUM.exists():
        return CHROMIUM
    reason = f"{CHROMIUM} not found (apt-get install chromium; .ci/run does it in CI)"
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def server_url(demo_service):
    """The real app on a free loopback port, in a background thread."""
    import uvicorn

    from graphhop.serve import create_app

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    server = uvicorn.Server(uvicorn.Config(create_app(demo_service), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.time() + 30
    while not server.started:
        assert time.time() < deadline and thread.is_alive(), "server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def browser():
    executable = _browser_or_skip()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(executable), args=ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def shots(tmp_path) -> Path:
    out = Path(os.environ.get("GRAPHHOP_SCREENSHOTS") or tmp_path)
    out.mkdir(parents=True, exist_ok=True)
    return out


def _ask_on_page(page, base: str, question: str, method: str | None = None) -> dict:
    requests: list[str] = []
    errors: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(base + "/")
    page.wait_for_selector("body[data-ready='1']", timeout=20_000)
    if method is not None:
        page.select_option("#method", method)
    page.fill("#question", question)
    page.click("#ask")
    page.wait_for_function("() => window.graphhopResult && window.cy && window.cy.nodes().length > 0", timeout=60_000)
    page.wait_for_timeout(300)  # let the canvas paint before a screenshot
    assert not errors, errors
    assert requests and all(u.startswith(base + "/") for u in requests), [u for u in requests if not u.startswith(base)]
    return page.evaluate(GRAPH_JS)


def test_page_answers_the_readme_question_and_draws_the_support_chain(browser, server_url, shots) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 860})
    # dense: the chain drawn below is dense retrieval's (the default, kgqa, answers the same question on its own chain)
    graph = _ask_on_page(page, server_url, QUESTION, method="dense")
    assert page.inner_text("#answer") == "Italy"
    assert page.inner_text("#score").startswith("score ")
    nodes = {n["id"]: n for n in graph["nodes"]}
    assert nodes["Q"]["label"] == "Q: " + QUESTION and "question" in nodes["Q"]["classes"]
    assert nodes["__answer__"]["label"] == "A: Italy"
    for node_id, label in SUPPORT.items():
        assert nodes[node_id]["label"] == label and "support" in nodes[node_id]["classes"]
    support_edges = {(e["source"], e["target"]): e["label"] for e in graph["edges"] if "support" in e["classes"]}
    assert support_edges == {("Q", "286"): "painted by", ("286", "206"): "born in", ("206", "110"): "located in",
                             ("110", "__answer__"): "answer"}
    assert len(nodes) > 10 and graph["layout"] and graph["distinct"] == len(nodes)  # laid out, no overlaps
    assert page.locator("#support-list li").count() == 3
    page.screenshot(path=str(shots / "serve-laptop.png"))
    page.check("#support-only")
    page.wait_for_function("() => window.cy.nodes().length === 5")
    page.screenshot(path=str(shots / "serve-support-only.png"))
    # the README's `ask` example, on the same page: the graph is redrawn for the new answer
    page.fill("#question", "Was the composer of The Magic Flute born in Vienna?")
    page.click("#ask")
    page.wait_for_function("() => window.graphhopResult.answer === 'no'", timeout=60_000)
    drawn = page.evaluate("() => window.cy.nodes('.support').map(n => n.id())")
    result = page.evaluate("() => window.graphhopResult")
    assert set(drawn) == {"Q", "__answer__", *result["support"]} and len(result["support"]) >= 2
    labels = page.evaluate("() => window.cy.nodes('.support').map(n => n.data('label'))")
    assert {"The Magic Flute → Wolfgang Amadeus Mozart", "A: no"} <= set(labels)
    page.close()


def test_page_fits_a_phone_and_exports_the_graph(browser, server_url, shots) -> None:
    page = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True)
    graph = _ask_on_page(page, server_url, "How many countries border Switzerland?")
    assert page.inner_text("#answer") == "5"
    assert {"Q", "__answer__"} <= {n["id"] for n in graph["nodes"]}
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")  # no sideways scroll
    page.screenshot(path=str(shots / "serve-phone.png"), full_page=True)
    with page.expect_download() as png:
        page.click("#download-png")
    assert png.value.suggested_filename == "graphhop-evidence.png"
    assert Path(png.value.path()).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with page.expect_download() as svg:
        page.click("#download-svg")
    text = Path(svg.value.path()).read_text(encoding="utf-8")
    assert text.startswith("<svg") and text.count("<rect") == len(graph["nodes"]) + 1 and "Switzerland" in text
    page.close()
