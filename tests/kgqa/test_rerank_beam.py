"""The chain reranker inside the beam (docs/RESULTS.md, issue 12, "Session 15 (kgr15)"): each hop's best new paths
are reordered by head score + w x logit before the beam is cut, so a prefix the cross-encoder prefers keeps growing."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pytest

from graphhop.core import Fact, InputError
from graphhop.kb.store import KGStore
from graphhop.kgqa.paths import RelPath, expand, path_signature
from graphhop.kgqa.rerank import ChainReranker

#: Made up (no selection KB's names): "the boss of X" is X's chief executive; the head prefers X's head office.
FASHION = [("Orla Veste", "head_office", "Castrine"), ("Orla Veste", "chief_executive", "Mara Quill"),
           ("Orla Veste", "founded_by", "Teo Brann"), ("Mara Quill", "born_in", "Lisk"), ("Castrine", "located_in", "Valdoria"),
           ("Orla Veste", "founded_year", "1954"), ("Teo Brann", "born_in", "Castrine"),
           ("Mara Quill", "studied_at", "Hallow College"), ("Hallow College", "located_in", "Brindle"),
           ("Lisk", "located_in", "Ostmark"), ("Castrine", "twinned_with", "Lisk"), ("Brindle", "located_in", "Ostmark")]


def _store(facts: Sequence[tuple[str, str, str]]) -> KGStore:
    return KGStore.from_facts(Fact(h, r, t, f"f{i}") for i, (h, r, t) in enumerate(facts))


class _Fixed(ChainReranker):
    """A reranker whose logit is given per chain text's first relation word (no model)."""

    def __init__(self, by_word: dict[str, float], w: float = 1.0) -> None:
        super().__init__(None, None, {"k": 8, "w": w})
        self.by_word = by_word

    def logits(self, text: str, chains: Sequence[str]) -> np.ndarray:
        return np.asarray([next((z for word, z in self.by_word.items() if word in c), 0.0) for c in chains])


def test_reorder_beam_moves_only_the_best_m_and_keeps_their_scores() -> None:
    store = _store(FASHION)
    paths = [RelPath(((store.relation_id[r], True),), [np.array([0]), np.array([1])], score=s)
             for r, s in (("head_office", 3.0), ("founded_by", 2.0), ("chief_executive", 1.0), ("founded_year", 0.5))]
    got = _Fixed({"chief executive": 5.0}).reorder_beam("who is the boss of X", store, paths, m=3)
    assert [p.steps[0][0] for p in got] == [store.relation_id[r] for r in ("chief_executive", "head_office", "founded_by", "founded_year")]
    assert [p.score for p in got] == [1.0, 3.0, 2.0, 0.5]  # scores unchanged: the final order is the head's + reranker's
    untouched = _Fixed({"founded year": 50.0}).reorder_beam("x", store, paths, m=3)  # beyond m: not rescored
    assert [p.score for p in untouched] == [3.0, 2.0, 1.0, 0.5]
    assert _Fixed({"chief executive": 5.0}).reorder_beam("x", store, paths, m=3, w=0.0) == paths


def test_expand_reorders_before_the_cut_and_not_at_the_last_hop() -> None:
    store = _store(FASHION)
    topic = [store.entity_id["Orla Veste"]]
    calls: list[int] = []

    def reorder(new: list[RelPath]) -> list[RelPath]:
        calls.append(len(new[0].steps))
        return new[::-1]
    score = lambda ps: [-len(path_signature(store, p.steps)[-1]) for p in ps]  # noqa: E731
    plain = expand(store, topic, score, max_hops=2, beam=1)
    turned = expand(store, topic, score, max_hops=2, beam=1, reorder=reorder)
    assert calls == [1]  # hop 1 only: the last hop's paths grow no further
    first = lambda out: {p.steps[0] for p in out if len(p.steps) == 2}  # noqa: E731
    assert len(first(plain)) == len(first(turned)) == 1 and first(plain) != first(turned)


def test_the_in_beam_reranker_keeps_the_gold_prefix_the_head_drops() -> None:
    """Beam 1: the head grows only ``head_office`` at hop 1 and answers over it; with the reranker in the beam,
    ``chief_executive`` grows and the 3-hop chain answers, its three facts the whole support."""
    from graphhop.cli.kgqa import support_triples
    from graphhop.kgqa.pipeline import KGQA

    store, question = _store(FASHION), "Which country was the boss of Orla Veste born in?"
    plain = KGQA(store, abstain=False, beam=1, rerank=True).ask(question)
    assert plain["trace"]["relation_path"][0] == "head_office" and plain["answer"] != "Ostmark"
    got = KGQA(store, abstain=False, beam=1, rerank=True, rerank_beam=4, rerank_beam_w=2.0).ask(question)
    assert (got["answer"], got["trace"]["relation_path"]) == ("Ostmark", ["chief_executive", "born_in", "located_in"])
    assert [list(t) for t in support_triples(got)] == [["Orla Veste", "chief_executive", "Mara Quill"],
                                                       ["Mara Quill", "born_in", "Lisk"], ["Lisk", "located_in", "Ostmark"]]


def test_the_option_parses_as_a_whole_number() -> None:
    from graphhop.pipeline.kgqa import OPTIONS, _factory

    assert OPTIONS["rerank_beam"] == 0
    pipe = _factory(None, rerank_beam="16", rerank_beam_w="1.5")
    assert (pipe.rerank_beam, pipe.rerank_beam_w) == (16, 1.5)
    assert _factory(None).rerank_beam == OPTIONS["rerank_beam"]
    for bad, why in (("1.5", "a whole number"), ("many", "a number"), ("-2", r"0 \(off\) or more")):
        with pytest.raises(InputError, match=f"kgqa: rerank_beam must be {why}"):
            _factory(None, rerank_beam=bad)
