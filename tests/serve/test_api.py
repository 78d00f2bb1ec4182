"""The HTTP API of ``graphhop serve`` (FastAPI TestClient): shapes, demo answers, limits, errors."""

from __future__ import annotations

import json
import re
import threading

import pytest
from fastapi.testclient import TestClient

from graphhop.serve import Limits, create_app
from graphhop.serve.app import STATIC_DIR

#: The keys of `graphhop ask --json` (AskResult.to_json): /api/ask returns the same object.
ASK_KEYS = {"question", "method", "qtype", "answer", "score", "answers", "supported", "support", "trace", "timings",
            "graph", "support_graph"}


def one_line_error(response, status: int, *needles: str) -> str:
    """Assert ``response`` is ``status`` with a one-line ``{"error": ...}`` naming every needle."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    assert "\n" not in response.text and "Traceback" not in response.text
    body = response.json()
    assert set(body) == {"error"}
    for needle in needles:
        assert needle in body["error"], body["error"]
    return body["error"]


@pytest.fixture(scope="module")
def client(demo_service):
    with TestClient(create_app(demo_service)) as c:
        yield c


# ---------------------------------------------------------------- shapes and demo answers
def test_health(client) -> None:
    body = client.get("/api/health").json()
    assert body["status"] == "ok" and body["indexes"] == ["demo"] and body["version"] == "0.1.0"
    assert body["documents"] == {"demo": 344}
    assert len(body["examples"]) == 10 and body["default_method"] == "kgqa"  # registry.default_pipeline on facts
    # every facts pipeline of the registry is offered, except those that need a model directory
    from graphhop.pipeline.registry import pipeline_names

    offered = body["methods"]["ask"]
    assert {"dense", "bm25", "hybrid", "golden"} <= set(offered) and set(offered) <= set(pipeline_names("facts"))
    assert {"difar2", "bgr"} <= set(body["unavailable"]["demo"]) and not {"difar2", "bgr"} & set(offered)
    assert "--reranker" in body["unavailable"]["demo"]["difar2"]
    assert body["methods"]["search"] == ["dense", "bm25", "hybrid"] and body["pipelines"] == {"demo": offered}


@pytest.mark.parametrize("question,answer,qtype", [
    ("In which country was the painter of the Mona Lisa born?", "Italy", "query"),
    ("How many countries border Switzerland?", "5", "count"),
    ("Was the composer of The Magic Flute born in Vienna?", "no", "boolean"),
])
def test_ask_demo_answers_with_the_cli_json_shape(client, question: str, answer: str, qtype: str) -> None:
    body = client.post("/api/ask", json={"question": question, "method": "dense"}).json()
    assert set(body) == ASK_KEYS
    assert (body["answer"], body["qtype"], body["method"]) == (answer, qtype, "dense")
    assert isinstance(body["score"], float) and body["support"]
    sg = body["support_graph"]
    assert {n["id"] for n in sg["nodes"]} == set(body["support"])
    assert {n["id"] for n in sg["nodes"]} <= {n["id"] for n in body["graph"]["nodes"]}
    assert sg["root"] == body["graph"]["root"] == "Q" and sg["edges"][0][0] == "Q"


def test_ask_without_method_uses_the_default_pipeline_of_ask(client) -> None:
    body = client.post("/api/ask", json={"question": "How many countries border Switzerland?"}).json()
    assert set(body) == ASK_KEYS and (body["answer"], body["qtype"], body["method"]) == ("5", "count", "kgqa")
    assert sorted(n["facts"][0][2] for n in body["support_graph"]["nodes"]) == ["Austria", "France", "Germany", "Italy",
                                                                                 "Liechtenstein"]


def test_ask_support_is_the_gold_chain(client) -> None:
    body = client.post("/api/ask", json={"question": "In which country was the painter of the Mona Lisa born?",
                                         "index": "demo", "method": "dense"}).json()
    facts = [n["facts"][0] for n in body["support_graph"]["nodes"]]
    assert facts == [["Mona Lisa", "painted_by", "Leonardo da Vinci"], ["Leonardo da Vinci", "born_in", "Vinci"],
                     ["Vinci", "located_in", "Italy"]]


def test_search_hits_carry_their_fields(client) -> None:
    body = client.post("/api/search", json={"query": "Who painted the Mona Lisa?", "method": "bm25", "k": 5}).json()
    hits = body["hits"]
    assert [h["rank"] for h in hits] == [1, 2, 3, 4, 5]
    assert all({"id", "score", "head", "relation", "tail", "text"} <= set(h) for h in hits)
    assert hits[0]["head"] == "Mona Lisa"
    assert [h["score"] for h in hits] == sorted((h["score"] for h in hits), reverse=True)
    everything = client.post("/api/search", json={"query": "Mona Lisa", "method": "dense", "k": 1000}).json()
    assert len(everything["hits"]) == 344  # k up to the limit; the KB has 344 facts


# ---------------------------------------------------------------- limits and errors
def test_question_and_k_bounds(client) -> None:
    one_line_error(client.post("/api/ask", json={"question": "a" * 2001}), 422, "question", "2,001", "2,000")
    one_line_error(client.post("/api/ask", json={"question": "   "}), 422, "question", "empty")
    one_line_error(client.post("/api/ask", json={"question": "?!"}), 422, "question has no words")
    assert client.post("/api/search", json={"query": "a " * 1000, "method": "bm25", "k": 1}).status_code == 200
    one_line_error(client.post("/api/search", json={"query": "x", "k": 1001}), 422, "k", "1000")
    one_line_error(client.post("/api/search", json={"query": "x", "k": 0}), 422, "k")


def test_body_over_64kb_is_refused_declared_or_streamed(client) -> None:
    big = json.dumps({"question": "a" * 70_000}).encode()
    one_line_error(client.post("/api/ask", content=big, headers={"content-type": "application/json"}), 413, "65536")
    chunks = (big[i:i + 8192] for i in range(0, len(big), 8192))  # no Content-Length: chunked
    one_line_error(client.post("/api/ask", content=chunks, headers={"content-type": "application/json"}), 413)
    small = (c for c in [b'{"query": "Mona', b' Lisa", "k": 2}'])
    assert len(client.post("/api/search", content=small, headers={"content-type": "application/json"}).json()["hits"]) == 2


@pytest.mark.parametrize("payload,needle", [
    ({}, "question: Field required"),
    ({"question": 3}, "question: Input should be a valid string"),
    ({"question": "x", "colour": "red"}, "colour: Extra inputs are not permitted"),
    ([1, 2], "expected a JSON object"),
])
def test_validation_errors_are_one_line(client, payload, needle: str) -> None:
    one_line_error(client.post("/api/ask", json=payload), 422, needle)


def test_bad_json_and_wrong_content_type(client) -> None:
    one_line_error(client.post("/api/ask", content=b'{"question": ', headers={"content-type": "application/json"}),
                   422, "invalid JSON")
    one_line_error(client.post("/api/ask", content=b"question=x"), 422, "expected a JSON object")
    one_line_error(client.post("/api/search", json={"query": "x", "k": "many"}), 422, "k:")


def test_unknown_index_and_method_are_named(client) -> None:
    one_line_error(client.post("/api/ask", json={"question": "x", "index": "wiki"}), 404, "unknown index 'wiki'", "demo")
    one_line_error(client.post("/api/ask", json={"question": "x", "method": "magic"}), 422, "unknown method 'magic'", "dense")
    one_line_error(client.post("/api/search", json={"query": "x", "method": "golden"}), 422, "'golden'", "bm25")
    one_line_error(client.post("/api/ask", json={"question": "x", "method": "difar2"}), 422,
                   "'difar2' is not available on index 'demo'", "--reranker")
    one_line_error(client.post("/api/search", json={"query": "x", "index": "nope"}), 404, "'nope'")


def test_unknown_routes_and_verbs(client) -> None:
    one_line_error(client.get("/api/nothing"), 404, "/api/nothing")
    one_line_error(client.get("/api/ask"), 405)
    one_line_error(client.get("/docs"), 404)  # Swagger/ReDoc off: they would load a CDN
    one_line_error(client.get("/redoc"), 404)


def test_openapi_schema_lists_the_endpoints(client) -> None:
    schema = client.get("/openapi.json").json()
    assert {"/api/health", "/api/search", "/api/ask"} <= set(schema["paths"])
    assert "question" in schema["components"]["schemas"]["AskRequest"]["properties"]


def test_page_and_its_assets_are_local(client) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assets = re.findall(r'(?:src|href)="(/[^"]+)"', page.text)
    assert "/static/vendor/cytoscape.min.js" in assets and "/static/vendor/cytoscape-dagre.min.js" in assets
    for url in assets:
        assert client.get(url).status_code == 200, url
    for name in ("index.html", "app.js", "style.css"):
        assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", (STATIC_DIR / name).read_text()), name
    assert (STATIC_DIR / "vendor" / "LICENSE-cytoscape").exists() and (STATIC_DIR / "vendor" / "LICENSE-cytoscape-dagre").exists()


# ---------------------------------------------------------------- concurrency, timeout, crashes (fake service)
def test_busy_server_answers_503(fake_service) -> None:
    service = fake_service("block")
    with TestClient(create_app(service, Limits(max_concurrency=1))) as c:
        first: dict = {}
        worker = threading.Thread(target=lambda: first.update(r=c.post("/api/ask", json={"question": "slow"})))
        worker.start()
        assert service.started.wait(5)
        busy = c.post("/api/ask", json={"question": "second"})
        one_line_error(busy, 503, "busy")
        assert busy.headers["retry-after"] == "1"
        assert c.get("/api/health").json()["busy"] == 1  # health is never queued
        service.release.set()
        worker.join(10)
        assert first["r"].status_code == 200
        assert c.post("/api/ask", json={"question": "third"}).status_code == 200
    assert service.calls == 2


def test_slow_request_times_out_with_504(fake_service) -> None:
    with TestClient(create_app(fake_service("sleep", 1.0), Limits(timeout_s=0.1))) as c:
        one_line_error(c.post("/api/ask", json={"question": "x"}), 504, "timed out after 0.1 s")


def test_crash_is_a_one_line_500_without_internals(fake_service) -> None:
    with TestClient(create_app(fake_service("crash")), raise_server_exceptions=False) as c:
        error = one_line_error(c.post("/api/ask", json={"question": "x"}), 500, "RuntimeError")
        assert "boom" not in error


def test_limits_reject_nonsense() -> None:
    with pytest.raises(ValueError, match="max_concurrency"):
        Limits(max_concurrency=0)
    with pytest.raises(ValueError, match="timeout_s"):
        Limits(timeout_s=0)


# ---------------------------------------------------------------- two indexes of different kinds
@pytest.fixture(scope="module")
def two_index_client(demo_service, tmp_path_factory):
    """The demo KB (facts) and the demo passages served side by side (`--index demo --index docs=DIR`)."""
    from graphhop.demo import DEMO_DATA
    from graphhop.index.dense import DenseOptions
    from graphhop.index.directory import build_index, documents_from_passages
    from graphhop.kb.loaders import iter_passages
    from graphhop.serve import ServeService

    docs = build_index(documents_from_passages(iter_passages(DEMO_DATA / "passages.jsonl")),
                       tmp_path_factory.mktemp("serve") / "docs", dense=DenseOptions("flat"), progress=False)
    service = ServeService({"demo": demo_service.indexes["demo"], "docs": docs})
    with TestClient(create_app(service)) as c:
        yield c


def test_each_index_offers_the_pipelines_of_its_kind(two_index_client) -> None:
    from graphhop.pipeline.registry import pipeline_names

    body = two_index_client.get("/api/health").json()
    assert body["indexes"] == ["demo", "docs"] and body["documents"] == {"demo": 344, "docs": 17}
    assert body["pipelines"]["demo"] == pipeline_names("facts") and body["pipelines"]["docs"] == pipeline_names("passages")


def test_search_over_passages_gives_title_and_text(two_index_client) -> None:
    hits = two_index_client.post("/api/search", json={"query": "Who painted the Mona Lisa?", "index": "docs", "k": 3}).json()["hits"]
    assert len(hits) == 3 and hits[0]["title"] == "Mona Lisa" and "Leonardo da Vinci" in hits[0]["text"]
    assert all("head" not in h for h in hits)


def test_ask_over_passages_has_the_ask_shape(two_index_client) -> None:
    body = two_index_client.post("/api/ask", json={"question": "Where was Leonardo da Vinci born?", "index": "docs",
                                                   "method": "bm25"}).json()
    assert set(body) == ASK_KEYS and body["method"] == "bm25" and body["graph"]["root"] == "Q"
