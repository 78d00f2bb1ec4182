"""BGR's matcher with scalar features at steps >= 2, pools with other questions' positives, and
BGR hop by hop over a whole text index."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from graphhop.retrieve.graphhop import BGRConfig, BGRModel, CandidatePool

FILMS = Path(__file__).resolve().parents[1] / "pipeline" / "data" / "films" / "passages.jsonl"


def test_scalar_after_first_ignores_candidate_vectors_on_later_steps():
    torch.manual_seed(0)
    model = BGRModel(BGRConfig(dim=32, hidden=32, heads=4, scalar_after_first=True)).eval()
    dm = model.forward_model
    code, q = torch.randn(2, 32), torch.randn(2, 32)
    pair = torch.rand(2, 5, dm.matcher.n_pair)
    a, b = torch.randn(2, 5, 32), torch.randn(2, 5, 32)
    later = torch.tensor([True, False])  # row 0 is at step >= 2, row 1 at step 1
    la = dm.logits(code, q, a, False, pair, later)
    lb = dm.logits(code, q, b, False, pair, later)
    assert torch.allclose(la[0], lb[0]) and not torch.allclose(la[1], lb[1])
    # backward: the question token keeps its vector, so its logit still depends on the path code
    t1 = dm.logits(code, q, a, True, pair, later)[0, -1]
    t2 = dm.logits(torch.randn(2, 32), q, a, True, pair, later)[0, -1]
    assert not torch.allclose(t1, t2)


def test_other_positives_are_added_as_negatives():
    from graphhop.graph import EvidenceGraph
    from graphhop.train.bgr_data import BGRExample, add_other_positives

    def ex(i: int) -> BGRExample:
        ids = [f"g{i}", f"d{i}"]
        pool = CandidatePool(ids, [f"gold {i}", f"distractor {i}"], np.eye(4, dtype=np.float32)[:2] + i)
        gold = EvidenceGraph(f"q{i}")
        gold.add_evidence(f"g{i}", f"gold {i}")
        gold.add_edge(gold.root, f"g{i}")
        return BGRExample(f"q{i}", f"q{i}", f"q{i}", pool, np.ones(4, dtype=np.float32), gold, 1, "single-hop")

    out = add_other_positives([ex(0), ex(1), ex(2)], n=2)
    for i, e in enumerate(out):
        assert len(e.pool.ids) == 4 and e.pool.vectors.shape == (4, 4)
        added = e.pool.texts[2:]
        assert all(t.startswith("gold ") and t != f"gold {i}" for t in added)
        assert set(e.gold.evidence_ids) == {f"g{i}"}      # the added sentences are negatives here


@pytest.mark.slow
def test_open_bgr_retrieves_a_rooted_graph_from_the_whole_index(tmp_path):
    from graphhop.core import Passage
    from graphhop.index.dense import DenseOptions
    from graphhop.index.directory import build_index, documents_from_passages
    from graphhop.retrieve.bgr_open import OpenBGR
    from graphhop.retrieve.texthop import HopSearch

    rows = [json.loads(line) for line in FILMS.read_text(encoding="utf-8").splitlines()]
    index = build_index(documents_from_passages(Passage(r["id"], r["text"], r["title"]) for r in rows), tmp_path / "i",
                        dense=DenseOptions("flat"), progress=False)
    torch.manual_seed(0)
    model = BGRModel(BGRConfig(max_depth=2, max_edges=6, threshold_forward=0.0, threshold_backward=0.0))
    for mode in ("forward", "backward", "bidirectional"):
        bgr = OpenBGR(model, HopSearch(index), k=4, mode=mode, merge="union")
        graph = bgr.retrieve_graph("Where was the director of Night Ferry to Kestrin born?")
        assert graph.is_valid() and 1 <= len(graph) <= 7
        assert set(graph.evidence_ids) <= {r["id"] for r in rows}
        assert set(graph.evidence_ids) <= set(bgr.last_candidates)


class _Search:
    """Counts retrievals; backward's answer candidates differ from the question's."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def candidates(self, question, paths, k):
        from graphhop.core import Hit

        self.calls.append("candidates")
        return [[Hit(f"n{len(p)}-{i}", 1.0) for i in range(k)] for p in paths]

    def answer_candidates(self, question, k, reach):
        from graphhop.core import Hit

        self.calls.append(f"answer{reach}")
        return [Hit(f"ans{reach}-{i}", 1.0) for i in range(k)]


def test_candidate_cache_gives_backward_first_step_the_answer_candidates_only_when_asked():
    from graphhop.retrieve.bgr_open import CandidateCache

    search = _Search()
    plain = CandidateCache(search, k=4)
    assert plain.ids("q", (), 2, "backward") == plain.ids("q", (), 2, "forward") == ["n0-0", "n0-1"]
    reach = plain.with_reach(1)
    assert reach.ids("q", (), 3, "backward") == ["ans1-0", "ans1-1", "ans1-2"]
    assert reach.ids("q", (), 2, "forward") == ["n0-0", "n0-1"]                   # forward unchanged
    assert reach.ids("q", ("x",), 2, "backward") == ["n1-0", "n1-1"]              # later steps unchanged
    reach.ids("q", (), 1, "backward")
    plain.with_reach(1).ids("q", (), 4, "backward")
    # one retrieval per (question, path): the caches share their store
    assert search.calls == ["candidates", "answer1", "candidates"]


def test_prune_paths_keeps_the_best_root_to_end_paths():
    from graphhop.core import InputError
    from graphhop.graph import ROOT
    from graphhop.retrieve.bgr_open import OpenSettings, prune_paths
    from graphhop.retrieve.graphhop import DirectionResult

    # root -> a -> b (0.9 * 0.3), root -> c (0.8, a dead end), root -> a -> d (0.9 * 0.5)
    res = DirectionResult([(ROOT, "a"), ("a", "b"), ("a", "d"), (ROOT, "c")], {"a": 0.9, "b": 0.3, "c": 0.8, "d": 0.5}, 4)
    assert prune_paths(res, 0) is res and prune_paths(res, 3) is res
    deep = prune_paths(res, 1, "deep")                       # more hops first, then the product
    assert deep.edges == [(ROOT, "a"), ("a", "d")] and set(deep.scores) == {"a", "d"} and deep.steps == 4
    assert prune_paths(res, 1, "prob").edges == [(ROOT, "c")]  # the product alone: the sure dead end wins
    assert prune_paths(res, 2, "deep").edges == [(ROOT, "a"), ("a", "b"), ("a", "d")]
    with pytest.raises(InputError, match="path rank"):
        prune_paths(res, 1, "widest")
    s = OpenSettings(keep_paths=2, path_rank_backward="prob")
    assert s.pruning("forward") == (2, "deep") and s.pruning("backward") == (0, "prob")
