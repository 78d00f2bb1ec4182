"""BGR as a pipeline stage: a trained model builds evidence graphs over a first stage's candidates."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from graphhop.core import InputError, Ranking, Stage

if TYPE_CHECKING:  # pragma: no cover
    from graphhop.graph import EvidenceGraph

__all__ = ["BGRGraphs", "ask_bgr"]


class BGRGraphs(Stage):
    """Graph-hop retrieval (BGR) as a graph builder: ``first_stage % top_n >> BGRGraphs(model)``.

    Over each question's candidates the trained model walks forward, backward, or both
    (``mode="bidirectional"``: the merge rule from the model card). ``docs`` looks up a candidate's
    text and fact when its hit carries none. The model and its encoder load once, here.
    """

    name = "bgr"

    def __init__(self, model: str | Path, docs: Any = None, top_n: int = 25, mode: str = "bidirectional") -> None:
        from graphhop.models.encoder import load_encoder
        from graphhop.retrieve.graphhop import BGRRetriever, load_model

        bgr, _ = load_model(model)
        self.encoder = load_encoder(bgr.cfg.encoder_to_load())
        self.retriever = BGRRetriever(bgr, encode=self.encode, mode=mode)
        self.docs, self.depth = docs, top_n

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

    def graphs(self, questions: Sequence[str], rankings: Sequence[Ranking]) -> list["EvidenceGraph"]:
        """One graph per question over its candidate ranking."""
        out = []
        for question, hits in zip(questions, rankings):
            hits = [h if h.text or self.docs is None else self.docs[h.id].hit(h.score) for h in hits]
            facts = [[list(h.fact.triple)] if h.fact is not None else [] for h in hits]
            out.append(self.graph_over(question, [h.id for h in hits], [h.text for h in hits], facts))
        return out


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
    pipe = make_retriever(kidx, first_stage) >> BGRGraphs(model, kidx.docs, top_n, mode)
    return pipe.retrieve_graph([question])[0]
