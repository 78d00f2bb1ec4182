"""SSG training: teacher-forced states from gold chains, and a run that learns a scripted task."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from graphhop.core import InputError
from graphhop.graph import EvidenceGraph
from graphhop.retrieve.graphhop import CandidatePool
from graphhop.retrieve.ssg import load_ssg
from graphhop.train.ssg import ssg_graph, ssg_states, train_ssg

D, P = 16, 6


def example(k: int, chains: list[list[int]], rng: np.random.Generator):
    ids = [f"e{i}" for i in range(P)]
    texts = [f"q{k} fact {i}" for i in range(P)]
    vecs = rng.normal(size=(P, D)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    info = {f"e{i}": {"text": texts[i], "facts": [["h", "r", texts[i]]]} for i in range(P)}
    gold = EvidenceGraph.from_chains(f"question {k}", [[f"e{i}" for i in c] for c in chains], info)
    pool = CandidatePool(ids, texts, vecs, [[["h", "r", t]] for t in texts])
    return SimpleNamespace(id=str(k), question=f"question {k}", query=f"q{k}", pool=pool, gold=gold)


def test_states_follow_the_gold_chains() -> None:
    ex = example(0, [[2, 4], [2, 5]], np.random.default_rng(0))
    states = ssg_states(ex)
    assert [(s.text, sorted(s.positives), s.eos) for s in states] == [
        ("q0", [2], False), ("q0 [SEP] q0 fact 2", [4, 5], False),
        ("q0 [SEP] q0 fact 2 [SEP] q0 fact 4", [], True), ("q0 [SEP] q0 fact 2 [SEP] q0 fact 5", [], True)]


def test_training_learns_a_scripted_task(tmp_path) -> None:
    """The encoder is scripted: a state's vector points at its next gold fact (or at a fixed 'stop'
    direction once the chain is complete), so a trained SSG should recover the gold graphs."""
    rng = np.random.default_rng(1)
    exs = [example(k, [[int(a), int(b)]], rng) for k, (a, b) in enumerate(rng.integers(0, P, size=(60, 2))) if a != b]
    stop = rng.normal(size=D).astype(np.float32)
    table: dict[str, np.ndarray] = {}
    for ex in exs:
        for s in ssg_states(ex):
            v = stop / np.linalg.norm(stop) if s.eos else ex.pool.vectors[next(iter(s.positives))]
            table[s.text] = v + 0.05 * rng.normal(size=D).astype(np.float32)

    def encode(texts):
        return np.stack([table.get(t, stop) for t in texts]).astype(np.float32)

    model, card = train_ssg(exs[:40], exs[40:], tmp_path / "ssg", encode, epochs=25, max_minutes=1.0)
    hist = [h["select_loss"] for h in card["history"]]
    assert min(hist) < hist[0] and card["selection"]["threshold"] in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
    assert model.cfg.max_steps == 2
    exact = sum(set(ssg_graph(model, ex, encode).edges) == set(ex.gold.edges) for ex in exs[40:])
    assert exact >= 0.8 * len(exs[40:])
    loaded, card2 = load_ssg(tmp_path / "ssg")
    assert card2["best_epoch"] == card["best_epoch"] and loaded.cfg.threshold == model.cfg.threshold
    with pytest.raises(InputError, match="needs training and selection"):
        train_ssg([], exs[:2], None, encode)
