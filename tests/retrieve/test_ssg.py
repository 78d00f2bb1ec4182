"""SSG: support-set generation over a pool, sets as graphs, save/load."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from graphhop.core import InputError
from graphhop.retrieve.graphhop import CandidatePool
from graphhop.retrieve.ssg import SSGConfig, SSGModel, SSGRetriever, load_ssg, save_ssg, sets_to_graph, state_text, support_sets

D = 8
IDS = ["e0", "e1", "e2", "e3"]
TEXTS = ["alpha", "beta", "gamma", "delta"]


def unit(i: int) -> np.ndarray:
    v = np.zeros(D, dtype=np.float32)
    v[i] = 1.0
    return v


def scripted_encode(states: dict[str, np.ndarray]):
    """An encoder returning a chosen vector per state text."""
    return lambda texts: np.stack([states[t] for t in texts])


def model_with_eos(eos_axis: int) -> SSGModel:
    m = SSGModel(SSGConfig(input_dim=D, threshold=0.5, max_branch=3, max_steps=3))
    with torch.no_grad():
        m.eos.copy_(torch.from_numpy(unit(eos_axis)))
        m.tau.fill_(10.0)
        m.beta.fill_(-5.0)  # cos 1 -> p = sigmoid(5) = 0.993; cos 0 -> sigmoid(-5) = 0.007
    return m


def test_state_text_joins_query_and_facts() -> None:
    assert state_text("q", ["a", "b"]) == "q [SEP] a [SEP] b"


def test_support_sets_follow_the_scores() -> None:
    vecs = np.stack([unit(i) for i in range(4)])
    # state "q" points at e1 and e2 (two sets open), "q+beta" at e3, "q+gamma" and "q+beta+delta" at <eos>
    s = {"q": (unit(1) + unit(2)) / np.sqrt(2), state_text("q", ["beta"]): unit(3),
         state_text("q", ["gamma"]): unit(7), state_text("q", ["beta", "delta"]): unit(7)}
    m = model_with_eos(7)
    sets = support_sets(m, "q", TEXTS, vecs, scripted_encode(s))
    assert sorted(c for c, _ in sets) == [(1, 3), (2,)]
    assert all(0 < score <= 1 for _, score in sets)
    g = sets_to_graph("q?", [c for c, _ in sets], IDS, TEXTS)
    assert set(g.edges) == {("Q", "e1"), ("e1", "e3"), ("Q", "e2")}
    assert g.g.nodes["e3"]["text"] == "delta"


def test_first_step_never_empty_and_max_steps_closes() -> None:
    vecs = np.stack([unit(i) for i in range(4)])
    s = {"q": unit(5) + 0.3 * unit(2)}  # nothing passes 0.5: the best candidate (e2) is taken anyway
    s[state_text("q", ["gamma"])] = unit(6)  # no action passes, no eos: the set closes as it is
    m = model_with_eos(7)
    sets = support_sets(m, "q", TEXTS, vecs, scripted_encode({k: v / np.linalg.norm(v) for k, v in s.items()}))
    assert [c for c, _ in sets] == [(2,)]


def test_sets_to_graph_merges_orders_and_skips_cycles() -> None:
    g = sets_to_graph("q", [(0, 1), (1, 0), (2,)], IDS, TEXTS)
    assert ("e1", "e0") not in set(g.edges) and ("e0", "e1") in set(g.edges)
    assert set(g.evidence_ids) == {"e0", "e1", "e2"}


def test_retriever_and_round_trip(tmp_path: Path) -> None:
    m = model_with_eos(7)
    vecs = np.stack([unit(i) for i in range(4)])
    pool = CandidatePool(IDS, TEXTS, vecs, [[["h", "r", t]] for t in TEXTS])
    s = {"q": unit(0), state_text("q", ["alpha"]): unit(7)}
    ret = SSGRetriever(m, scripted_encode(s))
    g = ret.retrieve_pool("Q?", pool, query="q")
    assert list(g.edges) == [("Q", "e0")] and g.is_valid()
    save_ssg(m, tmp_path / "ssg", {"note": "x"})
    m2, card = load_ssg(tmp_path / "ssg")
    assert card["note"] == "x" and m2.cfg.input_dim == D
    assert torch.allclose(m2.eos, m.eos)
    with pytest.raises(InputError, match="not an SSG model dir"):
        load_ssg(tmp_path)
    with pytest.raises(InputError, match="threshold"):
        SSGConfig(threshold=2.0).check()
