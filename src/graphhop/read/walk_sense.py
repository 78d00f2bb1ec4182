"""Hops read by a sentence's meaning: candidate edges the walk's words do not meet (``sense_k``, off by default).

The walk (:mod:`graphhop.read.walk`) takes a hop only when the edge's words meet a question word (by stem or by a
word the encoder finds close); a relation written in other words (``came into the world in`` for ``born``, ``headed
the board`` for ``chairman``) gives no hop at all, so its answer is never a candidate. Here the encoder reads whole
sentences instead of words: of the sentences around an entity whose edges meet no question word, the ``sense_k``
whose text (the entity's own mention masked) is nearest the question (its entities masked) by cosine, at least
``sense_floor``, propose every mention they hold as the next node; the walk credits such a hop with the question's
relation word nearest the edge's label (as it credits an edge reader's hop) and charges ``read_penalty`` for it.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from graphhop.read.sentence_graph import Edge
from graphhop.read.walk_scorer import mask_entities

__all__ = ["sensed_edges"]


def sensed_edges(reader: Any, question: str, entities: Sequence[str], todo: Sequence[Edge]) -> list[Edge]:
    """The edges of ``todo`` whose sentence is among the ``reader.sense_k`` nearest ``question`` (entities masked) by
    the reader's encoder, at cosine ``reader.sense_floor`` or more; the sentence is read with the edge's source
    masked. ``reader._encode`` caches the vectors (``reader._word_vecs``)."""
    if reader.sense_k <= 0 or not todo or not question:
        return []
    masked = {e: mask_entities(e.sentence, [e.source]) for e in todo}
    asked = mask_entities(question, entities)
    texts = sorted(set(masked.values()))
    reader._encode([asked, *texts])
    sims = np.stack([reader._word_vecs[t] for t in texts]) @ reader._word_vecs[asked]
    order = np.argsort(-sims, kind="stable")[: reader.sense_k]
    kept = {texts[i] for i in order if sims[i] >= reader.sense_floor}
    return [e for e in todo if masked[e] in kept and e.label]
