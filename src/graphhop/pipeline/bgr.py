"""BGR for one question: a trained model over given evidence or an index's first-stage hits."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from graphhop.core import InputError

if TYPE_CHECKING:  # pragma: no cover
    from graphhop.graph import EvidenceGraph

__all__ = ["ask_bgr"]


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
    import numpy as np

    from graphhop.kb.verbalize import normalize_question
    from graphhop.models.encoder import load_encoder
    from graphhop.retrieve.graphhop import BGRRetriever, CandidatePool, load_model

    bgr, _ = load_model(model)
    enc = load_encoder(None if bgr.cfg.encoder == "sentence-transformers/all-MiniLM-L6-v2" else bgr.cfg.encoder)
    if evidence is None and index is None:
        raise InputError("ask_bgr needs candidate evidence or an index")
    ids: list[str]
    texts: list[str]
    facts: list[list[list[str]]]
    if evidence is not None:
        ids, texts, facts = [], [], []
        for i, e in enumerate(evidence):
            if isinstance(e, str):
                ids.append(f"e{i}"), texts.append(e), facts.append([])
            else:
                if "text" not in e:
                    raise InputError(f"evidence[{i}]: missing field 'text'")
                ids.append(str(e.get("id", f"e{i}"))), texts.append(str(e["text"])), facts.append(list(e.get("facts", [])))
    else:
        from graphhop.index.directory import KnowledgeIndex
        from graphhop.retrieve import make_retriever

        kidx = KnowledgeIndex.open(index)
        hits = make_retriever(kidx, first_stage).search([question], top_n)[0]
        docs = [kidx.docs[h.id] for h in hits]
        ids, texts = [d.id for d in docs], [d.text for d in docs]
        facts = [[list(d.fact.triple)] if getattr(d, "fact", None) is not None else [] for d in docs]
    if not ids:
        raise InputError("no candidate evidence for the question")
    query = normalize_question(question)
    vecs = np.asarray(enc.encode([query] + texts, convert_to_numpy=True, normalize_embeddings=True), dtype=np.float32)
    pool = CandidatePool(ids, texts, vecs[1:], facts)
    encode = lambda t: np.asarray(enc.encode(t, convert_to_numpy=True, normalize_embeddings=True), dtype=np.float32)  # noqa: E731
    return BGRRetriever(bgr, encode=encode).retrieve_pool(question, pool, vecs[0], mode=mode)
