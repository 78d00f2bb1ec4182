"""BGR training: teacher-forcing targets on a hand-made DAG, and a tiny run that learns a toy chain."""

from __future__ import annotations

import numpy as np
import pytest

from graphhop.graph import ROOT, EvidenceGraph
from graphhop.retrieve.graphhop import BGRConfig, BGRRetriever, CandidatePool
from graphhop.train.bgr import QUESTION_TOKEN, TrainConfig, backward_targets, forward_targets, train_bgr
from graphhop.train.bgr_data import BGRExample


def dag() -> EvidenceGraph:
    """question -> a -> c -> d; question -> b -> c (c reached by two paths); question -> f (1-hop fact)."""
    g = EvidenceGraph("q")
    for n in "abcdf":
        g.add_evidence(n, n, [[n, "r", n + "'"]])
    for u, v in ((ROOT, "a"), ("a", "c"), ("c", "d"), (ROOT, "b"), ("b", "c"), (ROOT, "f")):
        g.add_edge(u, v)
    return g


def test_forward_targets_every_root_path_prefix():
    t = dict(forward_targets(dag()))
    assert t == {
        (): frozenset("abf"),
        ("a",): frozenset("c"), ("a", "c"): frozenset("d"), ("a", "c", "d"): frozenset(),
        ("b",): frozenset("c"), ("b", "c"): frozenset("d"), ("b", "c", "d"): frozenset(),
        ("f",): frozenset(),  # the 1-hop fact: a positive root child (above) that then stops
    }


def test_backward_targets_from_sinks_to_question():
    t = dict(backward_targets(dag()))
    assert t == {
        (): frozenset("df"),  # leaves: both sinks, the 1-hop fact included
        ("d",): frozenset("c"), ("d", "c"): frozenset("ab"),
        ("d", "c", "a"): frozenset({QUESTION_TOKEN}), ("d", "c", "b"): frozenset({QUESTION_TOKEN}),
        ("f",): frozenset({QUESTION_TOKEN}),  # the 1-hop fact's parent is the question, labelled 1
    }


def test_targets_respect_limit():
    assert len(forward_targets(dag(), limit=3)) == 3


def toy_examples(n: int, seed: int) -> list[BGRExample]:
    """Facts as vectors ``[one-hot head | one-hot tail]``; the question is its topic entity in the
    head slot; the gold chain follows tails for 2 hops; distractors never continue the chain."""
    rng = np.random.default_rng(seed)
    E = 12
    out = []
    for k in range(n):
        ents = rng.permutation(E)
        topic, mid, ans = (int(x) for x in ents[:3])
        facts = [(topic, mid), (mid, ans)]
        others = [int(x) for x in ents[3:]]
        while len(facts) < 7:  # distractors: heads never the topic/mid, so they never extend the chain
            h, t = rng.choice(others, 2, replace=False)
            if (int(h), int(t)) not in facts:
                facts.append((int(h), int(t)))
        order = rng.permutation(len(facts))
        vec = np.zeros((len(facts), 2 * E), dtype=np.float32)
        ids = []
        for pos, i in enumerate(order):
            h, t = facts[i]
            vec[pos, h] = 1
            vec[pos, E + t] = 1
            ids.append(f"f{i}")
        qv = np.zeros(2 * E, dtype=np.float32)
        qv[topic] = 1
        g = EvidenceGraph("q")
        g.add_evidence("f0", "", [["x", "r", "y"]])
        g.add_evidence("f1", "", [["y", "r", "z"]])
        g.add_edge(ROOT, "f0")
        g.add_edge("f0", "f1")
        pool = CandidatePool(ids, [f"fact {i}" for i in ids], vec)
        out.append(BGRExample(f"toy{k}", "q", "q", pool, qv, g, 2, g.graph_type()))
    return out


def test_tiny_training_learns_a_toy_chain():
    train, dev = toy_examples(200, 0), toy_examples(30, 1)
    cfg = BGRConfig(dim=32, hidden=64, heads=2, dropout=0.0, max_depth=4, pair_features=False)
    model, card = train_bgr(train, dev, None, cfg, TrainConfig(epochs=8, batch_size=32, lr=3e-3, threads=1, patience=8,
                                                             max_minutes=10.0),  # epochs, not the clock, end it
                            progress=False, log=lambda m: None)
    assert card["history"][-1]["loss"] < card["history"][0]["loss"] and card["finished"]
    assert card["dev_metric"] == "f1" and "dev_f1_forward" in card["history"][0]  # the F1 case keeps its old names
    ret = BGRRetriever(model)
    exact = 0
    for ex in dev:
        g = ret.retrieve_pool("q", ex.pool, ex.question_vec, mode="bidirectional")
        exact += sorted(g.edges) == sorted(ex.gold.edges)
    assert exact / len(dev) >= 0.9, card["best_dev_f1_at_0.5"]


@pytest.mark.data
def test_entailmentbank_trees_give_leaf_targets(data_dir):
    """Real EntailmentBank trees: contracted onto the pool they are question -> leaf sentences, so the
    forward root target and the backward leaf target are both exactly the proof's leaf sentences."""
    from graphhop.datasets.entailmentbank import load_angles, tree_record
    from graphhop.retrieve.graphhop import retrievable_graph

    trees = load_angles(data_dir / "entailmentbank" / "angles" / "task_2" / "train.jsonl")[:30]
    assert len(trees) == 30
    for tree in trees:
        rec = tree_record(tree, "train")
        pool = [e["id"] for e in rec["evidence"]]
        gold = retrievable_graph(EvidenceGraph.from_json(rec["graph"]), pool)
        leaves = set(tree.leaves())
        assert set(gold.evidence_ids) == leaves and len(pool) > len(leaves)  # task 2 has distractors
        fwd, bwd = dict(forward_targets(gold)), dict(backward_targets(gold))
        assert fwd[()] == frozenset(leaves) and bwd[()] == frozenset(leaves)
        assert all(bwd[(leaf,)] == frozenset({QUESTION_TOKEN}) for leaf in leaves)


def test_embedding_cache_merges_concurrent_saves(tmp_path):
    from graphhop.train.bgr_data import EmbeddingCache

    c1, c2 = EmbeddingCache(tmp_path), EmbeddingCache(tmp_path)  # two processes, both start empty
    c1._vec["a"], c1._dirty = np.ones(3, dtype=np.float32), True
    c1.save()
    c2._vec["b"], c2._dirty = np.zeros(3, dtype=np.float32), True
    c2.save()
    c3 = EmbeddingCache(tmp_path)
    assert sorted(c3._vec) == ["a", "b"] and c3.encode(["a"]).tolist() == [[1.0, 1.0, 1.0]]
    assert [p.name for p in tmp_path.iterdir()] == [c3.path.name]  # no temp files left


def test_pool_baselines_run_the_index_code_over_the_pool():
    """dense and mdr over a pool are the index retrievers over the pool as a MemoryIndex."""
    from graphhop.models.encoder import load_encoder
    from graphhop.eval.bgr import method_graph

    texts = ["Mona Lisa was painted by Leonardo da Vinci.", "Leonardo da Vinci was born in Vinci.",
             "The Starry Night was painted by Vincent van Gogh.", "Vinci is in Italy."]
    enc = load_encoder(None)
    vecs = np.asarray(enc.encode(["who painted the mona lisa"] + texts, normalize_embeddings=True), dtype=np.float32)
    gold = EvidenceGraph("who painted the mona lisa")
    gold.add_evidence("e0", texts[0])
    gold.add_edge(ROOT, "e0")
    ex = BGRExample("x", gold.question, "who painted the mona lisa",
                    CandidatePool(["e0", "e1", "e2", "e3"], texts, vecs[1:]), vecs[0], gold, 1, "chain")
    assert method_graph("dense", ex).evidence_ids == ["e0"]
    assert method_graph("mdr", ex).evidence_ids == ["e0"]


def test_link_feature_run_keeps_its_best_epoch_when_every_dev_loss_is_above_one(monkeypatch):
    """The link-feature matcher is scored by minus its dev loss: a loss >= 1 every epoch (score <= -1) must still
    keep the lowest-loss epoch, and the card names the score as a negative loss, not an F1."""
    import graphhop.train.bgr as bgr

    losses = iter([3.0, 3.0, 1.5, 1.5, 2.0, 2.0])  # per epoch: forward, backward
    monkeypatch.setattr(bgr, "_dev_loss", lambda *a, **k: next(losses))
    cfg = BGRConfig(dim=16, hidden=16, heads=2, max_depth=4, pair_features=False, link_feature=True)
    _, card = train_bgr(toy_examples(8, 0), toy_examples(3, 1), None, cfg,
                        TrainConfig(epochs=3, batch_size=8, threads=1, patience=3, max_minutes=10.0),
                        progress=False, log=lambda m: None)
    assert card["dev_metric"] == "neg_loss" and "best_dev_f1_at_0.5" not in card
    assert card["best_epoch"] == {"forward": 2, "backward": 2}
    assert card["best_dev_score"] == {"forward": -1.5, "backward": -1.5}
    assert [row["dev_score_forward"] for row in card["history"]] == [-3.0, -1.5, -2.0]
