"""MDR-style dense chain retrieval (Xiong et al., 2021), with an off-the-shelf bi-encoder.

Hop 1 encodes the question; hop ``h`` encodes ``question [SEP] evidence_1 [SEP] … evidence_{h-1}``
(the chain so far) and searches the same dense index. A beam of ``beam`` partial chains is kept,
scored by the sum of the hops' inner products; a passage never repeats inside a chain.

This is the *inference* recipe of MDR only: the encoder is the index's (by default the bundled
MiniLM, not trained for chains), so figures measure the recipe, not a trained MDR model. Works for
any index with a dense part: passages (``title: text``) or verbalized facts (graph hops).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from graphhop.core import Hit, InputError, Ranking, Stage
from graphhop.retrieve.dense import DenseRetriever

__all__ = ["Chain", "MDRRetriever", "chains_to_ranking"]


@dataclass(frozen=True, slots=True)
class Chain:
    """A retrieved evidence chain: ids in hop order and the summed score."""

    ids: tuple[str, ...]
    score: float


def chains_to_ranking(chains: Sequence[Chain], k: int) -> Ranking:
    """Flatten chains (best first) into a ranking: each chain's ids in hop order, repeats dropped.

    A hit's score is the score of the first chain it came from, so the top 2 of a 2-hop run are the
    best chain (MDR's own evaluation unit).
    """
    out: Ranking = []
    seen: set[str] = set()
    for chain in chains:
        for doc_id in chain.ids:
            if doc_id not in seen:
                seen.add(doc_id)
                out.append(Hit(doc_id, chain.score))
                if len(out) >= k:
                    return out
    return out


class MDRRetriever(Stage):
    """Beam search over dense hops; implements the :class:`~graphhop.core.Retriever` protocol."""

    name = "mdr"

    def __init__(self, dense: DenseRetriever, hops: int = 2, beam: int = 5, max_words: int = 100, sep: str = " [SEP] ") -> None:
        if hops < 1 or beam < 1:
            raise InputError(f"hops and beam must be positive (got hops={hops}, beam={beam})")
        self.dense = dense
        self.hops = hops
        self.beam = beam
        self.max_words = max_words
        self.sep = sep
        self._docs = dense.index.docs

    def evidence_text(self, doc_id: str) -> str:
        """What a chain step adds to the next query: ``title: text`` (first ``max_words`` words)."""
        doc = self._docs[doc_id]
        text = " ".join(doc.text.replace("[SEP]", " ").split()[: self.max_words])
        return f"{doc.title}: {text}" if doc.title else text

    def query_text(self, question: str, chain: Sequence[str]) -> str:
        """``question [SEP] evidence_1 [SEP] …``."""
        return self.sep.join([question, *(self.evidence_text(d) for d in chain)])

    def retrieve_chains(self, questions: Sequence[str]) -> list[list[Chain]]:
        """The final beam of chains per question, best first (ties: earlier found first)."""
        beams: list[list[Chain]] = [[Chain((), 0.0)] for _ in questions]
        for hop in range(self.hops):
            flat = [(qi, chain) for qi, beam in enumerate(beams) for chain in beam]
            texts = [self.query_text(questions[qi], chain.ids) for qi, chain in flat]
            depth = self.beam + hop  # enough to still have `beam` new ids after excluding the chain
            rankings = self.dense.search_vectors(self.dense.encode_queries(texts), depth) if texts else []
            grown: list[list[Chain]] = [[] for _ in questions]
            for (qi, chain), ranking in zip(flat, rankings):
                fresh = [h for h in ranking if h.id not in chain.ids][: self.beam]
                grown[qi].extend(Chain(chain.ids + (h.id,), chain.score + h.score) for h in fresh)
            beams = [sorted(g, key=lambda c: -c.score)[: self.beam] or b for g, b in zip(grown, beams)]
        return beams

    def search(self, queries: Sequence[str], k: int = 10) -> list[Ranking]:
        """Passages of the best chains, flattened (see :func:`chains_to_ranking`)."""
        return [chains_to_ranking(chains, k) for chains in self.retrieve_chains(queries)]
