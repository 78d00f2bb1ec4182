"""Closed-pool set baselines through the registry: oracle k as before, k chosen on selection only."""

from __future__ import annotations

import numpy as np
import pytest

from graphhop.core import InputError
from graphhop.graph import ROOT, EvidenceGraph
from graphhop.retrieve.graphhop import CandidatePool
from graphhop.train.bgr_data import BGRExample

WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]


def _example(i: int, gold_size: int) -> BGRExample:
    """A pool of 8 one-word texts; the query names the gold ones (the first ``gold_size`` after a shift)."""
    ids = [f"q{i}e{j}" for j in range(len(WORDS))]
    texts = [f"{w} {i}" for w in WORDS]
    gold_pos = [(i + j) % len(WORDS) for j in range(gold_size)]
    rng = np.random.default_rng(i)
    vecs = rng.normal(size=(len(WORDS), 384)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    qvec = vecs[gold_pos].sum(0)
    gold = EvidenceGraph(" ".join(WORDS[p] for p in gold_pos))
    prev = ROOT
    for p in gold_pos:
        gold.add_evidence(ids[p], texts[p])
        gold.add_edge(prev, ids[p])
        prev = ids[p]
    return BGRExample(f"q{i}", gold.question, gold.question, CandidatePool(ids, texts, vecs), qvec / np.linalg.norm(qvec),
                      gold, gold_size, "chain")


@pytest.fixture(scope="module")
def bm25():
    from graphhop.retrieve.baselines import PoolBM25

    return PoolBM25([f"{w} {i}" for i in range(12) for w in WORDS])


def test_registry_pool_pipelines_give_the_hand_wired_ids_for_oracle_k(bm25) -> None:
    """random / bm25 / dense / mdr through ``pool-<name>`` = the retrievers called by hand with k = gold size."""
    from graphhop.eval.bgr import method_graph, pool_index, pool_retriever
    from graphhop.index.memory import MemoryIndex
    from graphhop.pipeline.registry import build_pipeline, pipeline_names
    from graphhop.retrieve.baselines import random_topk
    from graphhop.retrieve.mdr import MDRRetriever

    assert {"pool-random", "pool-bm25", "pool-dense", "pool-mdr"} <= set(pipeline_names("pool"))
    assert not any(n.startswith("pool-") for n in pipeline_names("facts") + pipeline_names("passages"))
    for i in range(4):
        ex = _example(i, 1 + i % 3)
        k = len(ex.gold.evidence_ids)
        hand = {"random": random_topk(ex.pool.ids, k, f"13|{ex.id}"),
                "bm25": bm25.topk(ex.query, ex.pool.ids, ex.pool.texts, k),
                "dense": [h.id for h in pool_retriever(ex).search_vectors(ex.question_vec[None, :], k)[0]]}
        if i < 2:  # MDR encodes its queries (the pool vectors here are random: only identity is checked)
            hand["mdr"] = list(MDRRetriever(pool_retriever(ex), hops=k, beam=3).retrieve_chains([ex.query])[0][0].ids)
        for m, ids in hand.items():
            assert method_graph(m, ex, bm25=bm25).evidence_ids == ids
        assert sorted(hand["bm25"]) == sorted(ex.gold.evidence_ids)  # the query names the gold texts
    with pytest.raises(InputError, match="does not take option 'hops'"):
        build_pipeline("pool-bm25", pool_index(ex), k=2, bm25=bm25, hops=3)
    with pytest.raises(InputError, match="needs bm25"):
        build_pipeline("pool-bm25", pool_index(ex), k=2)
    passages = MemoryIndex.from_texts(ex.pool.ids, ex.pool.texts, sparse=None, dense=False)
    with pytest.raises(InputError, match="runs over pool indexes"):  # not over a knowledge index
        build_pipeline("pool-bm25", passages, k=2, bm25=bm25)


def test_k_is_chosen_on_selection_examples_only_and_labelled_apart_from_oracle(bm25) -> None:
    """Selection golds have 2 items, reported ones 4: the chosen k is 2 (selection's), never 4."""
    from graphhop.eval.bgr import choose_ks
    from graphhop.eval.experiment import Experiment
    from graphhop.eval.measures import graph_measures
    from graphhop.eval.tasks import ORACLE_K, bgr_systems, builder_golds

    select = [_example(i, 2) for i in range(6)]
    report = [_example(i, 4) for i in range(6, 10)]
    ks = choose_ks(select, bm25, methods=("bm25", "dense"))
    assert ks["bm25"] == 2
    assert choose_ks(report, bm25, methods=("bm25",)) == {"bm25": 4}  # the report split would have chosen otherwise
    with pytest.raises(InputError):
        choose_ks([], bm25)
    systems = bgr_systems(None, report, ["bm25"], bm25, ks=ks)
    assert list(systems) == ["bm25", "bm25 (k=2 chosen on selection)"]
    table = Experiment(graph_measures(0.05), report="dev", select="train-carve").run(
        systems, [ex.question for ex in report], builder_golds(report))
    rows = {r["method"]: r for r in table.rows}
    assert rows[f"bm25 (oracle: {ORACLE_K})"]["F1"] == pytest.approx(1.0)
    chosen = rows["bm25 (k=2 chosen on selection)"]
    assert chosen["P"] == pytest.approx(1.0) and chosen["R"] == pytest.approx(0.5)
    with pytest.raises(InputError):
        Experiment(graph_measures(0.05), report="dev", select="dev")


def test_selection_ks_choose_on_the_models_selection_split_and_say_when_it_is_missing(tmp_path) -> None:
    """eval-bgr's chosen-k rows: k comes from the card's selection split (the train carve here), and a
    folder without that split is one InputError naming the way out."""
    import json

    from graphhop.eval.bgr import selection_ks
    from graphhop.train.bgr_data import EmbeddingCache

    def record(i: int) -> dict:  # chain c asked three times; its gold graph: two sentences in a row
        c = i % 20
        ev = [{"id": f"e{j}", "text": f"fact {j} of chain {c}", "facts": [[f"h{c}", f"r{j}", f"t{c}"]]} for j in (0, 1)]
        graph = {"root": ROOT, "question": "q", "nodes": [{**e, "kind": "evidence"} for e in ev],
                 "edges": [[ROOT, "e0"], ["e0", "e1"]]}
        return {"id": f"t{i}", "question": f"question {i} on chain {c}", "answers": [f"t{c}"], "hops": 2,
                "evidence": ev, "graph": graph}

    (tmp_path / "train.jsonl").write_text("".join(json.dumps(record(i)) + "\n" for i in range(60)))
    emb = EmbeddingCache(tmp_path / "cache", None)
    ks = selection_ks(tmp_path, {"select_split": "train-carve"}, ["bm25", "bgr-forward"], emb, sample=6)
    assert ks == {"bm25": 2}  # every gold graph holds two sentences
    with pytest.raises(InputError, match="dev.jsonl: no such file.*--oracle-k-only"):
        selection_ks(tmp_path, {"select_split": "dev"}, ["bm25"], emb)
    assert selection_ks(tmp_path, {"select_split": "dev"}, ["bgr-forward"], emb) == {}
