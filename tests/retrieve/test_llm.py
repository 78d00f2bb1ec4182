"""LLM reasoning graphs: prompts, the tolerant parser, the chat client against a local replay server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphhop.core import GraphhopError, InputError
from graphhop.graph import EvidenceGraph
from graphhop.retrieve.llm import LLMGraphRetriever
from graphhop.retrieve.llm.client import ChatClient, LLMError, chat_url
from graphhop.retrieve.llm.parse import parse_reply
from graphhop.retrieve.llm.prompts import TEMPLATES, Shot, build_messages, pick_shots, render_graph
from graphhop.retrieve.llm.replay import ReplayServer, load_replies

DATA = Path(__file__).parent / "data" / "llm_replies.jsonl"
IDS = [f"e{i}" for i in range(6)]
TEXTS = [f"sentence number {i}." for i in range(6)]
FACTS = [[["h", "r", f"t{i}"]] for i in range(6)]
RECORDED = [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]


def _gold() -> EvidenceGraph:
    return EvidenceGraph.from_chains("who?", [["e2", "e4"], ["e3", "e4"]],
                                     {i: {"text": t, "facts": [["h", "r", i]]} for i, t in zip(IDS, TEXTS)})


def edges_of(graph: EvidenceGraph) -> set[tuple[str, str]]:
    return {(u, v) for u, v in graph.edges}


@pytest.mark.parametrize("rec", RECORDED, ids=[f"reply{i}" for i in range(len(RECORDED))])
def test_parser_reads_every_recorded_reply(rec: dict) -> None:
    res = parse_reply(rec["reply"], "who?", IDS, TEXTS, FACTS)
    assert edges_of(res.graph) == {tuple(e) for e in rec["edges"]}
    assert res.status == rec["status"], res.repairs
    if res.status != "unparseable":
        assert res.graph.is_valid(), res.graph.violations()
        assert all(res.graph.g.nodes[n]["text"] == TEXTS[IDS.index(n)] for n in res.graph.evidence_ids)
    else:
        assert len(res.graph) == 0


def test_repairs_are_named() -> None:
    res = parse_reply("Q -> e2\ne2 -> e4\ne4 -> e2\ne4 -> e99", "q", IDS)
    assert any("cycle" in r for r in res.repairs)
    assert any("e99" in r for r in res.repairs)


@pytest.mark.parametrize("template", sorted(TEMPLATES))
def test_render_then_parse_gives_the_gold_graph(template: str) -> None:
    gold = _gold()
    res = parse_reply(render_graph(gold, template), "who?", IDS, TEXTS)
    assert edges_of(res.graph) == edges_of(gold)
    assert res.status == "ok"


def test_messages_hold_instruction_shots_and_question() -> None:
    shot = Shot("which film?", tuple(IDS), tuple(TEXTS), _gold())
    msgs = build_messages("backward", "who directed it?", IDS[:3], TEXTS[:3], [shot, shot])
    assert [m["role"] for m in msgs] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert "backward" in msgs[0]["content"].lower() or "answer first" in msgs[0]["content"]
    assert "e4 <- e2 <- Q" in msgs[2]["content"]
    assert msgs[-1]["content"].startswith("Question: who directed it?") and "[e2] sentence number 2." in msgs[-1]["content"]
    with pytest.raises(InputError):
        build_messages("nope", "q", IDS, TEXTS)


def test_pick_shots_spreads_and_prefers_new_graph_types() -> None:
    recs = []
    for i in range(40):
        g = _gold() if i % 10 == 0 else EvidenceGraph.from_chains("q", [["e1"]], {"e1": {"facts": [["a", "b", "c"]]}})
        recs.append({"id": str(i), "question": f"q{i}", "graph_type": g.graph_type(), "graph": g.to_json(),
                     "evidence": [{"id": x, "text": t} for x, t in zip(IDS, TEXTS)]})
    shots = pick_shots(recs, 3)
    assert len(shots) == 3
    assert len({s.graph.graph_type() for s in shots}) == 2
    assert [s.question for s in shots] == ["q0", "q3", "q6"]


def test_client_and_retriever_against_replay_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPHHOP_LLM_API_KEY", "sk-test")
    replies = load_replies(DATA)
    with ReplayServer(replies) as srv:
        client = ChatClient(srv.url, "fake-model", timeout=5, retries=0)
        ret = LLMGraphRetriever(client, "direct", shots=[Shot("which film?", tuple(IDS), tuple(TEXTS), _gold())])
        graphs = [ret.retrieve_pool("who?", IDS, TEXTS) for _ in replies]
        assert len(srv.requests) == len(replies)
        first = srv.requests[0]
        assert first["authorization"] == "Bearer sk-test" and first["body"]["model"] == "fake-model"
        assert len(first["body"]["messages"]) == 4
    for g, rec in zip(graphs, RECORDED):
        assert edges_of(g) == {tuple(e) for e in rec["edges"]}
    want = {s: sum(r["status"] == s for r in RECORDED) for s in ("ok", "repaired", "unparseable")}
    assert {s: ret.stats[s] for s in want} == want
    assert ret.stats["questions"] == len(RECORDED)


def test_client_retries_server_errors_then_succeeds() -> None:
    with ReplayServer([{"status": 503}, {"status": 429}, "Q -> e1"]) as srv:
        client = ChatClient(srv.url, "m", timeout=5, retries=2, backoff=0.01)
        assert client.complete([{"role": "user", "content": "x"}]) == "Q -> e1"
        assert client.calls == 3 and client.retried == 2


def test_client_errors_are_one_line() -> None:
    with ReplayServer([{"status": 500}]) as srv:
        client = ChatClient(srv.url, "m", timeout=5, retries=1, backoff=0.01)
        with pytest.raises(LLMError, match=r"HTTP 500 \(2 attempts\)") as err:
            client.complete([])
        assert "\n" not in str(err.value)
    with ReplayServer([{"status": 401, "error": "bad key"}]) as srv:
        with pytest.raises(LLMError, match="HTTP 401"):
            ChatClient(srv.url, "m", retries=3, backoff=0.01).complete([])
    with ReplayServer([{"raw": "<html>proxy error</html>"}]) as srv:
        with pytest.raises(LLMError, match="not a chat completion"):
            ChatClient(srv.url, "m", retries=0).complete([])
    with ReplayServer([{"delay": 1.0, "content": "late"}]) as srv:
        with pytest.raises(LLMError, match="timed out"):
            ChatClient(srv.url, "m", timeout=0.2, retries=0).complete([])


def test_nothing_is_called_without_configuration() -> None:
    with pytest.raises(InputError, match="--llm-model"):
        ChatClient("http://127.0.0.1:9/v1", "")
    with pytest.raises(InputError, match="http"):
        ChatClient("127.0.0.1:9", "m")
    assert chat_url("http://h/v1/") == "http://h/v1/chat/completions"
    assert chat_url("http://h/v1/chat/completions") == "http://h/v1/chat/completions"


def test_failed_requests_are_counted_then_stop_the_run() -> None:
    with ReplayServer([{"status": 500}]) as srv:
        ret = LLMGraphRetriever(ChatClient(srv.url, "m", retries=0), "direct", max_errors=2)
        assert len(ret.retrieve_pool("q", IDS, TEXTS)) == 0
        assert ret.stats["request failed"] == 1
        with pytest.raises(GraphhopError, match="2 LLM requests failed in a row"):
            ret.retrieve_pool("q", IDS, TEXTS)


@pytest.mark.data
def test_shots_from_a_real_train_split_round_trip(tmp_path: Path, data_dir: Path) -> None:
    """Few-shot answers rendered from real builder graphs (WC-C: multi-chain) parse back exactly."""
    from graphhop.datasets.builder import build_named_dataset, read_records

    build_named_dataset("wc-c", tmp_path, data_dir, splits=("dev",), limit=60, encoder=None)
    recs = list(read_records(tmp_path / "train.jsonl"))
    shots = pick_shots(recs, 3)
    assert len(shots) == 3
    for template in TEMPLATES:
        for shot in shots:
            res = parse_reply(render_graph(shot.graph, template), shot.question, shot.ids, shot.texts)
            assert edges_of(res.graph) == edges_of(shot.graph) and res.status == "ok"
