"""Hops read by a sentence's meaning: candidate edges the walk's words do not meet (``sense_k``, off by default).

The walk (:mod:`graphhop.read.walk`) takes a hop only when the edge's words meet a question word (by stem or by a
word the encoder finds close); a relation written in other words (``came into the world in`` for ``born``, ``headed
the board`` for ``chairman``) gives no hop at all, so its answer is never a candidate. Here the encoder reads whole
sentences instead of words: of the sentences around an entity whose edges meet no question word, the ``sense_k``
whose text (the entity's own mention masked) is nearest the question (its entities masked) by cosine, at least
``sense_floor``, propose every mention they hold as the next node; the walk credits such a hop with the question's
relation word nearest the edge's label (as it credits an edge reader's hop) and charges ``read_penalty`` for it.

Which mention a read sentence's relation governs (``sense_lead``, ``sense_full``; off by default): a sentence read by
meaning holds several mentions (``born in Dunmarrow in 1801``: a town and a year), and only one is the argument the
question asks for. :func:`mention_scores` ranks them by how the sentence's words around each meet the question: the
kind the question asks (a number for ``when``/``how many``, else a name), a preposition right before the mention (the
way a verb takes its argument: ``in``, ``at``, ``by``), and the words between it and the sentence's word nearest a
question relation word (by the encoder). Each mention but the leading one of its sentence costs ``sense_lead`` more;
and with ``sense_full`` the read hop's ``read_penalty`` falls linearly with the sentence's cosine to the question,
from the whole of it at ``sense_floor`` to none at ``sense_full`` (:func:`read_costs`: the cost beyond
``read_penalty`` that the walk adds to each read hop).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from graphhop.read.numbers import is_number
from graphhop.read.sentence_graph import STOP, TOKEN, Edge, find_name
from graphhop.read.walk_scorer import answer_kind_ok, mask_entities

__all__ = ["mention_scores", "read_costs", "sense_setup", "sensed_edges"]

#: Prepositions by which a verb takes its argument (general English): a mention right after one is governed by it.
_PREPOSITIONS = frozenset("in at by from to on into near under for with of as".split())


def sense_setup(reader: Any, sense_k: int, sense_floor: float, sense_lead: float, sense_full: float | None,
                mention_reader: str | None, mention_w: float) -> None:
    """The walk reader's options for hops read by meaning (module docstring), its trained mention reader
    (:mod:`graphhop.read.mention_reader`, None unless ``mention_reader`` names a folder) and its per-read map of read
    edges to their cost beyond ``read_penalty`` (``reader._read_cost``)."""
    from graphhop.read.mention_reader import load_mention_reader

    reader.sense_k, reader.sense_floor, reader.sense_lead, reader.sense_full = sense_k, sense_floor, sense_lead, sense_full
    reader.mention = load_mention_reader(mention_reader, mention_w)
    reader._read_cost = {}


def sensed_edges(reader: Any, question: str, entities: Sequence[str], todo: Sequence[Edge],
                 relations: Sequence[str] = ()) -> list[Edge]:
    """The edges of ``todo`` whose sentence is among the ``reader.sense_k`` nearest ``question`` (entities masked) by
    the reader's encoder, at cosine ``reader.sense_floor`` or more; the sentence is read with the edge's source
    masked. ``reader._encode`` caches the vectors (``reader._word_vecs``). With ``reader.sense_lead`` or
    ``reader.sense_full`` each kept edge's extra cost (:func:`read_costs`, by the question's ``relations`` keys), and
    with a mention reader (``reader.mention``) its cost, are noted in ``reader._read_cost``."""
    if reader.sense_k <= 0 or not todo or not question:
        return []
    masked = {e: mask_entities(e.sentence, [e.source]) for e in todo}
    asked = mask_entities(question, entities)
    texts = sorted(set(masked.values()))
    reader._encode([asked, *texts])
    sims = np.stack([reader._word_vecs[t] for t in texts]) @ reader._word_vecs[asked]
    order = np.argsort(-sims, kind="stable")[: reader.sense_k]
    kept = {texts[i]: float(sims[i]) for i in order if sims[i] >= reader.sense_floor}
    out = [e for e in todo if masked[e] in kept and e.label]
    extra: dict[Edge, float] = {}
    if getattr(reader, "sense_lead", 0.0) or getattr(reader, "sense_full", None) is not None:
        extra = read_costs(reader, question, relations, {e: kept[masked[e]] for e in out})
    if getattr(reader, "mention", None) is not None and out:  # the trained mention reader's cost (mention_reader)
        extra = {e: extra.get(e, 0.0) + c for e, c in reader.mention.costs(question, out).items()}
    reader._read_cost.update(extra)
    return out


def read_costs(reader: Any, question: str, relations: Sequence[str], sims: dict[Edge, float]) -> dict[Edge, float]:
    """Each read edge's (the keys of ``sims``: edge -> its sentence's cosine to the question) cost beyond ``reader.read_penalty`` (module docstring): ``reader.sense_lead`` for a mention
    that does not lead its sentence (:func:`mention_scores`), less the part of ``read_penalty`` that the sentence's
    cosine to the question waives when ``reader.sense_full`` is set."""
    out: dict[Edge, float] = {}
    groups: dict[tuple[str, str], list[Edge]] = {}
    for e in sims:
        groups.setdefault((e.source, e.sentence), []).append(e)
    forms = tuple(w for r in sorted(relations) for w in reader._asked_forms(r))
    for group in groups.values():
        scores = mention_scores(reader, question, forms, group) if reader.sense_lead else [0.0] * len(group)
        top = max(scores)
        for e, sc in zip(group, scores):
            waived = 0.0
            if reader.sense_full is not None:
                span = max(reader.sense_full - reader.sense_floor, 1e-6)
                waived = reader.read_penalty * min(max((sims[e] - reader.sense_floor) / span, 0.0), 1.0)
            out[e] = (reader.sense_lead if sc < top else 0.0) - waived
    return out


def mention_scores(reader: Any, question: str, relations: Sequence[str], group: Sequence[Edge]) -> list[float]:
    """How well each mention of one sentence (edges of ``group``: one source, one sentence) is the argument of the
    question's relation there: 1 when its kind (number or name) is the kind asked, 0.5 for a preposition right
    before it, less 0.1 per word between it and the sentence's word nearest a question relation word (``relations``,
    as the question writes them; the encoder's cosine), 0.2 more per word when the mention comes before that word."""
    sentence = group[0].sentence
    tokens = [(m.start(), m.group().lower()) for m in TOKEN.finditer(sentence)]
    spans = [find_name(sentence, e.target) for e in group] + [find_name(sentence, group[0].source)]
    inside = {i for i, (at, _) in enumerate(tokens) for sp in spans if sp and sp[0] <= at < sp[1]}
    words = [i for i, (_, w) in enumerate(tokens) if i not in inside and w not in STOP and not is_number(w)]
    anchor = _anchor(reader, relations, tokens, words, spans[-1])
    out = []
    for e, sp in zip(group, spans):
        score = 1.0 if answer_kind_ok(question, e.target) else 0.0
        if sp is None:  # an inverse edge: the passage's title, not written in the sentence
            out.append(score - 1.0)
            continue
        at = next((i for i, (c, _) in enumerate(tokens) if c >= sp[0]), len(tokens))
        score += 0.5 if at > 0 and tokens[at - 1][1] in _PREPOSITIONS else 0.0
        gap = abs(at - anchor) - 1
        out.append(score - (0.1 if at > anchor else 0.3) * max(gap, 0))
    return out


def _anchor(reader: Any, relations: Sequence[str], tokens: list[tuple[int, str]], words: list[int],
            source: tuple[int, int] | None) -> int:
    """The index (in ``tokens``) of the sentence's word nearest a question relation word by the encoder; the word
    after the source's mention (or the first word) when there is none to compare."""
    if not relations or not words:
        return next((i for i, (c, _) in enumerate(tokens) if source and c >= source[1]), 0)
    texts = [tokens[i][1] for i in words]
    reader._encode([*relations, *texts])
    sims = np.stack([reader._word_vecs[t] for t in texts]) @ np.stack([reader._word_vecs[r] for r in relations]).T
    return words[int(np.argmax(sims.max(axis=1)))]
