"""A trained mention reader for hops read by meaning (issue 13, session 17; ``mention_reader``, off by default).

A sentence read by meaning (:mod:`graphhop.read.walk_sense`) proposes every mention it holds as the hop's next node
(``born in Dunmarrow in 1801``: a town and a year), and the walk could not tell which one the sentence's relation
governs. The mention reader is a MiniLM cross-encoder that reads ``(question, mention text)``, the mention text being
the hop's target, its source and the sentence with the target bracketed (:func:`mention_text`: the chain reranker's
form for one edge, :func:`graphhop.read.chain_rerank.chain_text`), and says whether that mention is on the question's
chain. It is trained (:mod:`graphhop.train.mention_reader`) on passage sets' gold chains: per hop, the mention that is
the answer or the next gold passage's title against the other mentions of its sentence and of the source's other
sentences. Each read hop costs ``mention_w x (1 - p)`` more (``p``: the reader's probability), so within one read
sentence the governed mention leads, and a read hop the reader doubts costs nearly ``mention_w``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import numpy as np

from graphhop.read.chain_rerank import chain_text

__all__ = ["MENTION_W", "MentionReader", "load_mention_reader", "mention_text"]

#: A read hop's largest extra cost (a mention the reader rejects), the scale of the walk's ``read_penalty``.
MENTION_W = 0.4


def mention_text(edge: Any) -> str:
    """What the reader reads of one edge: ``target | source : sentence`` with the target bracketed (cut around it)."""
    return chain_text([edge], edge.target, before=24, after=12)


class MentionReader:
    """Scores read hops' mentions for a question (module docstring); ``scorer`` has ``logits(question, texts)``."""

    def __init__(self, scorer: Any, w: float = MENTION_W) -> None:
        self.scorer, self.w = scorer, float(w)

    @classmethod
    def load(cls, folder: str | Path, w: float = MENTION_W) -> "MentionReader":
        """The reader trained into ``folder`` (top layers over the bundled MiniLM, loaded once per process)."""
        from graphhop.kgqa.rerank import ChainReranker

        return cls(ChainReranker.load(Path(folder)), w)

    def probabilities(self, question: str, edges: Sequence[Any]) -> np.ndarray:
        """The probability that each edge's target is on ``question``'s chain."""
        if not edges:
            return np.zeros(0)
        z = np.asarray(self.scorer.logits(question, [mention_text(e) for e in edges]), dtype=np.float64)
        return 1.0 / (1.0 + np.exp(-z))

    def costs(self, question: str, edges: Sequence[Any]) -> dict[Any, float]:
        """Each edge's extra cost as a read hop: ``w x (1 - p)``."""
        return {e: self.w * (1.0 - float(p)) for e, p in zip(edges, self.probabilities(question, edges))}


def load_mention_reader(folder: str | Path | None, w: float = MENTION_W) -> MentionReader | None:
    """The reader in ``folder``; None for ``None`` / ``off``."""
    return None if folder in (None, "off") else MentionReader.load(folder, w)
