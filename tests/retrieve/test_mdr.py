"""MDR-style dense chains: beam search on scripted scores, flattening, and a real-encoder smoke run."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pytest

from graphhop.core import Hit, InputError, Passage
from graphhop.index.directory import Document, DocStore
from graphhop.retrieve.mdr import Chain, MDRRetriever, chains_to_ranking


class _Index:
    def __init__(self, docs: list[Document]) -> None:
        self.docs = DocStore(docs)


class ScriptedDense:
    """A stand-in DenseRetriever: 'vectors' are the query texts; scores depend on the evidence in them."""

    def __init__(self) -> None:
        self.index = _Index(
            [Document("A", "alpha text", "Alpha"), Document("B", "beta text", "Beta"), Document("C", "gamma text", "Gamma")]
        )
        self.queries: list[str] = []

    def encode_queries(self, texts: Sequence[str]) -> list[str]:
        self.queries.extend(texts)
        return list(texts)

    def search_vectors(self, vectors: Sequence[str], k: int) -> list[list[Hit]]:
        out = []
        for text in vectors:
            if "Alpha:" in text:
                ranking = [Hit("A", 0.95), Hit("B", 0.8), Hit("C", 0.2)]
            elif "Gamma:" in text:
                ranking = [Hit("C", 0.9), Hit("B", 0.3), Hit("A", 0.1)]
            else:  # the question alone
                ranking = [Hit("A", 0.9), Hit("C", 0.5), Hit("B", 0.1)]
            out.append(ranking[:k])
        return out


def test_beam_search_scores_and_order() -> None:
    dense = ScriptedDense()
    mdr = MDRRetriever(dense, hops=2, beam=2)  # type: ignore[arg-type]
    chains = mdr.retrieve_chains(["q?"])[0]
    # hop 1 beam: A (.9), C (.5); hop 2: A->B (.9+.8), A->C (.9+.2), C->B (.5+.3), C->A (.5+.1)
    assert [c.ids for c in chains] == [("A", "B"), ("A", "C")]
    assert [c.score for c in chains] == pytest.approx([1.7, 1.1])
    assert [h.id for h in mdr.search(["q?"], 10)[0]] == ["A", "B", "C"]
    assert "q? [SEP] Alpha: alpha text" in dense.queries  # query = question + previous evidence


def test_one_hop_and_bad_arguments() -> None:
    mdr = MDRRetriever(ScriptedDense(), hops=1, beam=3)  # type: ignore[arg-type]
    assert [c.ids for c in mdr.retrieve_chains(["q?"])[0]] == [("A",), ("C",), ("B",)]
    with pytest.raises(InputError):
        MDRRetriever(ScriptedDense(), hops=0)  # type: ignore[arg-type]


def test_chains_to_ranking_dedups_and_cuts() -> None:
    chains = [Chain(("a", "b"), 2.0), Chain(("a", "c"), 1.5), Chain(("d", "b"), 1.0)]
    assert [h.id for h in chains_to_ranking(chains, 10)] == ["a", "b", "c", "d"]
    assert [h.score for h in chains_to_ranking(chains, 3)] == [2.0, 2.0, 1.5]
    assert chains_to_ranking([], 5) == []


@pytest.mark.slow
def test_real_encoder_chain(tmp_path, encoder) -> None:
    from graphhop.index.dense import DenseOptions
    from graphhop.index.directory import build_index, documents_from_passages
    from graphhop.retrieve.dense import DenseRetriever

    passages = [
        Passage("1", "The Hukilau Song was written by Jack Owens after a luau in Laie, Hawaii.", "The Hukilau Song"),
        Passage("2", "Laie is a census-designated place in the Koolauloa District on Oahu.", "Laie, Hawaii"),
        Passage("3", "Paris is the capital of France.", "Paris"),
        Passage("4", "The violin is a string instrument.", "Violin"),
    ]
    index = build_index(documents_from_passages(passages), tmp_path / "idx", sparse=None, dense=DenseOptions("flat"), progress=False)
    mdr = MDRRetriever(DenseRetriever(index), hops=2, beam=2)
    chains = mdr.retrieve_chains(["Who wrote a song after attending a luau in the Koolauloa District?"])[0]
    assert all(len(c.ids) == 2 and len(set(c.ids)) == 2 for c in chains)
    assert set(chains[0].ids) == {"1", "2"}
    assert np.isfinite([c.score for c in chains]).all()
