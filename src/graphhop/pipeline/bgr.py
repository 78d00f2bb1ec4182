"""BGR as a pipeline stage: a trained model builds evidence graphs over a first stage's candidates."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from graphhop.core import Hit, InputError, Ranking, Retriever, Stage

if TYPE_CHECKING:  # pragma: no cover
    from graphhop.graph import EvidenceGraph

__all__ = ["BGRGraphs", "ask_bgr"]


class BGRGraphs(Stage):
    """Graph-hop retrieval (BGR): ``first_stage`` top-``top_n`` candidates -> the model's evidence graph.

    ``mode``: forward, backward or bidirectional (the merge rule from the model card). The model and
    its encoder load once, here.
    """

    name = "bgr"

    def __init__(self, model: str | Path, first_stage: Retriever | None = None, docs: Any = None, top_n: int = 25,
                 mode: str = "bidirectional") -> None:
        from graphhop.models.encoder import load_encoder
        from graphhop.retrieve.graphhop import BGRRetriever, load_model

        bgr, _ = load_model(model)
        self.encoder = load_encoder(None if bgr.cfg.encoder == "sentence-transformers/all-MiniLM-L6-v2" else bgr.cfg.encoder)
        self.retriever = BGRRetriever(bgr, encode=self.encode, mode=mode)
        self.first_stage, self.docs, self.top_n = first_stage, docs, top_n

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length float32 vectors of ``texts`` (the model's encoder)."""
        return np.asarray(self.encoder.encode(list(texts), convert_to_numpy=True, normalize_embeddings=True), dtype=np.float32)

    def graph_over(self, question: str, ids: list[str], texts: list[str], facts: list[list[list[str]]]) -> "EvidenceGraph":
        """The evidence graph of ``question`` over the given candidates (the closed setting)."""
        from graphhop.kb.verbalize import normalize_question
        from graphhop.retrieve.graphhop import CandidatePool

        if not ids:
            raise InputError("no candidate evidence for the question")
        vecs = self.encode([normalize_question(question)] + texts)
        return self.retriever.retrieve_pool(question, CandidatePool(ids, texts, vecs[1:], facts), vecs[0])

    def retrieve_graph(self, questions: Sequence[str]) -> list["EvidenceGraph"]:
        """One graph per question over the first stage's top ``top_n`` documents."""
        if self.first_stage is None or self.docs is None:
            raise InputError("BGR over an index needs a first stage and the index's documents")
        out = []
        for question, hits in zip(questions, self.first_stage.search(list(questions), self.top_n)):
            docs = [self.docs[h.id] for h in hits]
            facts = [[list(d.fact.triple)] if getattr(d, "fact", None) is not None else [] for d in docs]
            out.append(self.graph_over(question, [d.id for d in docs], [d.text for d in docs], facts))
        return out

    def search(self, queries: Sequence[str], k: int = 10) -> list[Ranking]:
        """The evidence of each question's graph as a ranking (node score, best first)."""
        rankings = []
        for graph in self.retrieve_graph(queries):
            hits = [Hit(n, float(graph.g.nodes[n].get("score", 0.0))) for n in graph.evidence_ids]
            rankings.append(sorted(hits, key=lambda h: -h.score)[:k])
        return rankings


def _evidence_lists(evidence: Sequence[str | dict[str, Any]]) -> tuple[list[str], list[str], list[list[list[str]]]]:
    ids: list[str] = []
    texts: list[str] = []
    facts: list[list[list[str]]] = []
    for i, e in enumerate(evidence):
        if isinstance(e, str):
            ids.append(f"e{i}"), texts.append(e), facts.append([])
            continue
        if "text" not in e:
            raise InputError(f"evidence[{i}]: missing field 'text'")
        ids.append(str(e.get("id", f"e{i}"))), texts.append(str(e["text"])), facts.append(list(e.get("facts", [])))
    return ids, texts, facts


def ask_bgr(
    question: str,
    model: str | Path,
    evidence: Sequence[str | dict[str, Any]] | None = None,
    index: str | Path | None = None,
    first_stage: str = "dense",
    top_n: int = 25,
    mode: str = "bidirectional",
) -> "EvidenceGraph":
    """The evidence graph of ``question`` from a trained BGR model dir.

    Candidates come from ``evidence`` (texts, or ``{"id", "text", "facts"}`` dicts: the closed
    setting) or from a knowledge ``index`` (the open setting: ``first_stage`` top-``top_n``,
    ``bm25``/``dense``/``hybrid``). ``mode``: forward, backward or bidirectional (merge from the model card).
    """
    if evidence is None and index is None:
        raise InputError("ask_bgr needs candidate evidence or an index")
    if evidence is not None:
        return BGRGraphs(model, mode=mode).graph_over(question, *_evidence_lists(evidence))
    from graphhop.index.directory import KnowledgeIndex
    from graphhop.retrieve import make_retriever

    kidx = KnowledgeIndex.open(index)
    return BGRGraphs(model, make_retriever(kidx, first_stage), kidx.docs, top_n, mode).retrieve_graph([question])[0]
