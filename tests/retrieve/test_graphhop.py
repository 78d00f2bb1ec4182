"""BGR model pieces: shapes, path-set update, depth-first retrieval, merge rules, save/load."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from graphhop.core import InputError
from graphhop.graph import ROOT, EvidenceGraph
from graphhop.retrieve.baselines import PoolBM25, ids_to_graph, random_topk
from graphhop.retrieve.graphhop import (
    BGRConfig,
    BGRModel,
    BGRRetriever,
    CandidatePool,
    DirectionResult,
    Matcher,
    PathCodeUpdate,
    N_PAIR,
    load_model,
    pair_features,
    token_set,
    merge_graphs,
    merged_graph,
    retrievable_graph,
    retrieve_direction,
    save_model,
)


def small_cfg(**kw) -> BGRConfig:
    return BGRConfig(input_dim=8, dim=16, hidden=32, heads=2, dropout=0.0, **kw)


def test_matcher_and_update_shapes():
    torch.manual_seed(0)
    m = Matcher(16, 32)
    u = PathCodeUpdate(16, 2)
    code, q, cands = torch.randn(5, 16), torch.randn(5, 16), torch.randn(5, 7, 16)
    assert m(code, q, cands).shape == (5, 7)
    new = u(code, cands[:, 0])
    assert new.shape == (5, 16)
    assert not torch.allclose(new, code)  # the code changes when a node joins


def test_wide_matcher_adds_a_linear_term_on_pair_features(tmp_path):
    torch.manual_seed(0)
    m = Matcher(16, 32, dropout=0.0, n_pair=3, wide=True).eval()
    with torch.no_grad():  # silence the deep part: the logit is then the wide term alone
        m.net[-1].weight.zero_()
        m.net[-1].bias.zero_()
        m.wide.weight.copy_(torch.tensor([[1.0, 2.0, -1.0]]))
        m.wide.bias.zero_()
    code, q, cands = torch.randn(2, 16), torch.randn(2, 16), torch.randn(2, 4, 16)
    pair = torch.zeros(2, 4, 3)
    pair[0, 1] = torch.tensor([1.0, 1.0, 1.0])
    out = m(code, q, cands, pair)
    assert out.shape == (2, 4)
    assert out[0, 1].item() == pytest.approx(2.0) and out[0, 0].item() == pytest.approx(0.0)
    assert Matcher(16, 32, n_pair=0, wide=True).wide is None  # nothing to be wide over
    # models saved before the option load without it, and new ones keep it
    old = BGRModel(small_cfg())
    save_model(old, tmp_path / "old")
    assert load_model(tmp_path / "old")[0].forward_model.matcher.wide is None
    save_model(BGRModel(small_cfg(wide_pair=True)), tmp_path / "new")
    assert load_model(tmp_path / "new")[0].forward_model.matcher.wide is not None


def test_interactions_only_matcher_ignores_the_raw_candidate_vector():
    torch.manual_seed(0)
    m = Matcher(16, 32, dropout=0.0, interactions_only=True).eval()
    assert m.net[0].in_features == 3 * 16
    code, q, cands = torch.zeros(1, 16), torch.zeros(1, 16), torch.randn(1, 3, 16)
    # with a zero code and question every interaction is 0 (|h - e| aside), so candidates differ only by |e|
    out = m(code, q, cands)
    flipped = m(code, q, -cands)  # |0 - e| = |0 + e|: the same interaction features
    assert out.shape == (1, 3) and torch.allclose(out, flipped)
    full = Matcher(16, 32, dropout=0.0).eval()
    assert full.net[0].in_features == 5 * 16


def test_vector_dropout_drops_whole_rows_in_training_only():
    torch.manual_seed(0)
    m = Matcher(8, 16, dropout=0.0, n_pair=2, vector_dropout=0.5)
    code, q, cands, pair = torch.randn(400, 8), torch.randn(400, 8), torch.randn(400, 1, 8), torch.randn(400, 1, 2)
    pair_only = m.net(torch.cat([torch.zeros(400, 1, 5 * 8), pair], dim=-1)).squeeze(-1)
    m.train()
    dropped = torch.isclose(m(code, q, cands, pair), pair_only).all(dim=1).float().mean().item()
    assert 0.4 < dropped < 0.6  # about half the rows see the pair features alone
    m.eval()
    assert not torch.isclose(m(code, q, cands, pair), pair_only).any()  # inference keeps every vector
    assert torch.equal(m(code, q, cands, pair), m(code, q, cands, pair))


def test_path_codes_respect_prefix_mask():
    torch.manual_seed(0)
    model = BGRModel(small_cfg()).eval()
    dm = model.forward_model
    q = torch.randn(2, 16)
    prefix = torch.randn(2, 3, 16)
    valid = torch.tensor([[True, True, False], [False, False, False]])
    codes = dm.path_codes(q, prefix, valid)
    # row 1 has an empty prefix: its code is the question; row 0 equals two explicit updates
    assert torch.allclose(codes[1], q[1])
    manual = dm.update(dm.update(q[:1], prefix[:1, 0]), prefix[:1, 1])
    assert torch.allclose(codes[0], manual[0], atol=1e-6)
    # the question token is appended as the last candidate
    assert dm.logits(codes, q, prefix, with_question_token=True).shape == (2, 4)


def _pool(n: int = 6) -> CandidatePool:
    rng = np.random.default_rng(0)
    return CandidatePool([f"e{i}" for i in range(n)], [f"text {i}" for i in range(n)], rng.normal(size=(n, 8)).astype(np.float32))


class _Scripted(torch.nn.Module):
    """A direction model whose matcher follows a fixed table: children of the last node in the path."""

    def __init__(self, table: dict[int, list[int]], n: int, token_after: set[int] = frozenset()) -> None:
        super().__init__()
        self.table, self.n, self.token_after = table, n, token_after

    def proj(self, x):
        return x

    def update(self, code, node):
        # the code remembers the last node index in its first slot
        out = code.clone()
        out[:, 0] = node[:, 0]
        return out

    def logits(self, code, q, cands, with_question_token, pair=None):
        last = int(round(float(code[0, 0])))
        row = torch.full((cands.shape[1] + int(with_question_token),), -10.0)
        for j in self.table.get(last, []):
            row[j] = 10.0
        if with_question_token and last in self.token_after:
            row[-1] = 10.0
        return row.unsqueeze(0)


def _index_pool(n: int) -> CandidatePool:
    vec = np.zeros((n, 8), dtype=np.float32)
    vec[:, 0] = np.arange(n)
    return CandidatePool([f"e{i}" for i in range(n)], [f"t{i}" for i in range(n)], vec)


def test_forward_path_set_node_reached_by_two_paths():
    # question (code slot -1) -> e0, e1; e0 -> e2; e1 -> e2; e2 -> e3 (the sink)
    table = {-1: [0, 1], 0: [2], 1: [2], 2: [3]}
    q = np.zeros(8, dtype=np.float32)
    q[0] = -1
    res = retrieve_direction(_Scripted(table, 4), q, _index_pool(4), "forward", threshold=0.5)
    assert set(res.edges) == {(ROOT, "e0"), (ROOT, "e1"), ("e0", "e2"), ("e1", "e2"), ("e2", "e3")}
    # e2 is expanded on both of its paths (the path set): e2 -> e3 is found once, no duplicates
    assert len(res.edges) == 5


def test_forward_caps_depth_and_edges():
    table = {-1: [0], 0: [1], 1: [2], 2: [3], 3: [4]}
    q = np.zeros(8, dtype=np.float32)
    q[0] = -1
    res = retrieve_direction(_Scripted(table, 5), q, _index_pool(5), "forward", max_depth=2)
    assert set(res.edges) == {(ROOT, "e0"), ("e0", "e1")}
    res = retrieve_direction(_Scripted(table, 5), q, _index_pool(5), "forward", max_edges=3)
    assert len(res.edges) == 3


def test_backward_leaves_parents_and_question_token():
    # leaves: e3 and e4 (a 1-hop fact: its parent is the question); e3 <- e2 <- e0 <- question
    table = {-1: [3, 4], 3: [2], 2: [0]}
    q = np.zeros(8, dtype=np.float32)
    q[0] = -1
    res = retrieve_direction(_Scripted(table, 5, token_after={0, 4}), q, _index_pool(5), "backward")
    assert set(res.edges) == {(ROOT, "e4"), ("e2", "e3"), ("e0", "e2"), (ROOT, "e0")}


def test_retrieval_avoids_cycles():
    table = {-1: [0], 0: [1], 1: [0, 2]}
    q = np.zeros(8, dtype=np.float32)
    q[0] = -1
    res = retrieve_direction(_Scripted(table, 3), q, _index_pool(3), "forward")
    assert ("e1", "e0") not in res.edges and ("e1", "e2") in res.edges


F = DirectionResult([(ROOT, "a"), ("a", "b"), ("b", "c"), (ROOT, "x")], {"a": 0.9, "b": 0.8, "c": 0.7, "x": 0.6})
B = DirectionResult([(ROOT, "a"), ("a", "b"), ("a", "c"), (ROOT, "y")], {"a": 0.9, "b": 0.6, "c": 0.9, "y": 0.9})


def test_merge_intersect_keeps_common_edges_on_root_paths():
    pool = CandidatePool(list("abcxy"), list("abcxy"), np.zeros((5, 8), dtype=np.float32))
    g = merged_graph("q", pool, F, B, "intersect")
    assert set(g.edges) == {(ROOT, "a"), ("a", "b")}
    assert g.g.nodes["a"]["score"] == pytest.approx(0.9) and g.g.nodes["b"]["score"] == pytest.approx(0.7)
    _, scores = merge_graphs(F, B, "nodes")  # the node-level rules score every node found
    assert scores["x"] == pytest.approx(0.3) and scores["c"] == pytest.approx(0.8)


def test_merge_nodes_union_backward():
    edges, _ = merge_graphs(F, B, "nodes")
    assert set(edges) == {(ROOT, "a"), ("a", "b"), ("b", "c"), ("a", "c")}
    edges, _ = merge_graphs(F, B, "union", union_threshold=0.8)
    # a, b, c found by both; x only forward at 0.6 (dropped); y only backward at 0.9 (kept)
    assert {v for _, v in edges} == {"a", "b", "c", "y"}
    assert set(edges) == {(ROOT, "a"), ("a", "b"), ("b", "c"), ("a", "c"), (ROOT, "y")}
    edges, _ = merge_graphs(F, B, "backward")
    assert set(edges) == set(B.edges)
    with pytest.raises(InputError):
        merge_graphs(F, B, "bogus")
    with pytest.raises(InputError, match="merged_graph"):  # intersect is the graph intersection
        merge_graphs(F, B, "intersect")


def test_merge_intersect_drops_nodes_off_root_paths():
    f = DirectionResult([(ROOT, "a"), ("a", "b"), ("b", "c")], {})
    b = DirectionResult([(ROOT, "z"), ("b", "c")], {})
    pool = CandidatePool(["a", "b", "c", "z"], list("abcz"), np.zeros((4, 8), dtype=np.float32))
    g = merged_graph("q", pool, f, b, "intersect")
    assert len(g) == 0 and not g.edges  # the shared b -> c hangs from no root path: both dropped


def test_retrievable_graph_contracts_generated_nodes():
    g = EvidenceGraph("q", text_evidence=True)
    for n, kind in (("s1", "evidence"), ("s2", "evidence"), ("i1", "intermediate"), ("h", "hypothesis")):
        g.add_evidence(n, n, kind=kind)
    for u, v in ((ROOT, "s1"), (ROOT, "s2"), ("s1", "i1"), ("s2", "i1"), ("i1", "h")):
        g.add_edge(u, v)
    r = retrievable_graph(g, ["s1", "s2", "d1"])
    assert sorted(r.edges) == [(ROOT, "s1"), (ROOT, "s2")]


def test_retriever_save_load_roundtrip(tmp_path):
    torch.manual_seed(0)
    model = BGRModel(small_cfg(merge="nodes"))
    pool = _pool()
    qv = np.ones(8, dtype=np.float32)
    ret = BGRRetriever(model)
    g1 = ret.retrieve_pool("q?", pool, qv)
    out = save_model(model, tmp_path / "m", {"note": "x"})
    save_model(model, out, {"note": "y"})  # overwrite in place (atomic replace)
    model2, card = load_model(out)
    assert card["note"] == "y" and card["config"]["merge"] == "nodes"
    g2 = BGRRetriever(model2).retrieve_pool("q?", pool, qv)
    assert g1.to_json() == g2.to_json()
    assert json.loads(g2.dumps())["question"] == "q?"
    assert len(list((tmp_path).iterdir())) == 1  # no temp dirs left behind
    with pytest.raises(InputError):
        load_model(tmp_path / "missing")


def test_baselines():
    ids = ["a", "b", "c", "d"]
    texts = ["paris is the capital of france", "berlin is in germany", "france borders spain", "cats"]
    bm = PoolBM25(texts)
    assert bm.topk("capital of france", ids, texts, 2) == ["a", "c"]
    r = random_topk(ids, 2, seed=1)
    assert len(set(r)) == 2 and r == random_topk(ids, 2, seed=1)
    g = ids_to_graph("q", ["a", "b"], shape="chain")
    assert sorted(g.edges) == [(ROOT, "a"), ("a", "b")]
    g = ids_to_graph("q", ["a", "b"], shape="star")
    assert sorted(g.edges) == [(ROOT, "a"), (ROOT, "b")]


class _StubEncoder:
    """Deterministic 384-d vectors per text (keeps the test independent of the real encoder's load time)."""

    def encode(self, texts, **kw):
        out = []
        for t in texts:
            v = np.random.default_rng(abs(hash(t)) % (2**32)).normal(size=384).astype(np.float32)
            out.append(v / np.linalg.norm(v))
        return np.stack(out)


def test_ask_bgr_closed_pool(tmp_path, monkeypatch):
    """ask_bgr encodes the question and pool with the card's encoder and returns a valid rooted graph."""
    import graphhop.models.encoder as encmod
    from graphhop.pipeline.bgr import ask_bgr

    monkeypatch.setattr(encmod, "load_encoder", lambda name=None: _StubEncoder())

    torch.manual_seed(0)
    model = BGRModel(BGRConfig(dim=32, hidden=32, heads=2))
    save_model(model, tmp_path / "m")
    evidence = ["ann was born in paris.", {"id": "x", "text": "paris is located in france.", "facts": [["paris", "location", "france"]]}]
    g = ask_bgr("where was ann born?", tmp_path / "m", evidence=evidence, mode="forward")
    assert isinstance(g, EvidenceGraph) and len(g) >= 1  # the first step always matches the best candidate
    assert set(g.evidence_ids) <= {"e0", "x"}
    assert g.render_tree().startswith("[Q] where was ann born?")
    with pytest.raises(InputError):
        ask_bgr("q", tmp_path / "m")


def test_pair_features_hand_computed():
    q = np.array([1.0, 0.0], dtype=np.float32)
    cands = np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32)
    toks = [token_set("ann born paris"), token_set("paris located france")]
    f = pair_features(q, token_set("where was ann born"), cands, toks, cands[0], toks[0], toks[0])
    assert f.shape == (2, N_PAIR)
    # cosine to question and to the last node; word shares: cand-in-question, cand-in-last, cand-in-context, question-in-cand
    assert f[0].tolist() == pytest.approx([1.0, 1.0, 2 / 3, 1.0, 1.0, 1.0])
    assert f[1].tolist() == pytest.approx([0.0, 0.0, 0.0, 1 / 3, 1 / 3, 0.0])
    first = pair_features(q, token_set("ann"), cands, toks, None, frozenset(), frozenset())
    assert first[:, 1].tolist() == [0.0, 0.0] and first[:, 3].tolist() == [0.0, 0.0]


def test_merge_union_never_builds_a_cycle():
    f = DirectionResult([(ROOT, "a"), ("a", "b")], {"a": 0.9, "b": 0.9})
    b = DirectionResult([(ROOT, "b"), ("b", "a")], {"a": 0.9, "b": 0.9})
    for rule in ("nodes", "union"):
        edges, _ = merge_graphs(f, b, rule, 0.5)
        import networkx as nx

        assert nx.is_directed_acyclic_graph(nx.DiGraph(edges))
        assert ("a", "b") in edges and ("b", "a") not in edges  # forward edges win
