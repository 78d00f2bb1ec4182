"""The default passage reader: candidate answers in each passage, scored by the shipped span head
and by how the question's words surround them.

Candidates of a passage are its proper names, its numbers (digits and number words) and the span
head's ``n_best`` spans (snapped to names, :func:`graphhop.read.text_qa.snap`); a candidate the
question already mentions is never an answer. Each candidate gets

``local``
    the share of the question's content words (crudely stemmed: first five letters) found in the
    words around it in its sentence (``window_before`` words before, ``window_after`` after) — the
    sliding-window cue of reading comprehension (``... born in 1956 in Castelvane``);
``type``
    the fit to the question's answer type (:func:`graphhop.read.facts.answer_type`): a year for
    ``when``/``what year``, a number for ``how many``; otherwise the encoder cosine between the type
    (``country``, ``person``, ``film``) and how the passage describes the candidate (the words after it,
    and the first sentence of a passage titled with it: ``Norvania is a northern country``);
``head``
    ``1 / (1 + rank)`` when the span head lists it among its ``n_best`` for the passage, else 0;

``score = w_local * local + w_type * type + w_head * head``, plus ``w_last`` when its passage ends the
path and ``w_anchor`` when the path up to it reaches a passage naming one of the question's names
(the answer must be connected to what the question is about). Words of the question's names do
not count in ``local``.
the reading's margin is ``score - threshold``. Weights and threshold were set on the selection sets
``tests/pipeline/data`` (films, europe), not on the reported regression suites.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from graphhop.kb.names import fold_name, name_mentions, name_spans
from graphhop.read.numbers import NUMBER, is_number, parse_value
from graphhop.models.span_head import FrozenSpanReaderModel

__all__ = ["CandidateReader", "content_stems", "candidate_spans", "type_fit"]

_STOP = set("""a an the of in on at to for from by with and or is was are were be been do does did has have had what which
who whom whose where when why how that this these those it its he she they his her their there as into than
many much""".split())


def content_stems(text: str) -> set[str]:
    """Content words of ``text`` (no stop words), cut to five letters."""
    return {w[:5] for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in _STOP and len(w) > 1}


def candidate_spans(text: str) -> list[tuple[int, int]]:
    """Char ranges of the proper names and numbers of ``text``."""
    spans = [(a, z) for a, z, _ in name_spans(text)]
    spans += [(m.start(), m.end()) for m in NUMBER.finditer(text)]
    return sorted(set(spans))


class CandidateReader:
    """Scores candidate answers of passages (see the module docstring); ``read`` has the interface of
    :class:`graphhop.read.text_qa.PathReader`."""

    def __init__(self, model: FrozenSpanReaderModel | None = None, encoder: Any = None, n_best: int = 5,
                 window_before: int = 8, window_after: int = 3, w_local: float = 1.0, w_type: float = 0.6,
                 w_head: float = 0.4, w_last: float = 0.2, w_anchor: float = 0.4, threshold: float = 0.85) -> None:
        from graphhop.models.encoder import load_encoder

        self.model = model or FrozenSpanReaderModel.load()
        self.encoder = encoder or load_encoder(None)
        self.n_best = n_best
        self.window_before, self.window_after = window_before, window_after
        self.w = (w_local, w_type, w_head, w_last)
        self.w_anchor = w_anchor
        self.threshold = threshold

    def _local(self, q_stems: set[str], text: str, a: int, z: int) -> float:
        sent_a = max(text.rfind(". ", 0, a) + 2, 0)
        sent_z = text.find(". ", z)
        before = re.findall(r"\w+", text[sent_a:a])[-self.window_before :]
        after = re.findall(r"\w+", text[z : sent_z if sent_z >= 0 else len(text)])[: self.window_after]
        return len(q_stems & content_stems(" ".join(before + after))) / max(1, len(q_stems))

    def _type_fit(self, wanted: str | None, question: str, cands: Sequence[tuple[str, int, int]], text: str,
                  titled: Any) -> list[float]:
        """The answer-type fit of each candidate (one encoder call for the passage's candidates)."""
        after = [(cand, " ".join(re.findall(r"[\w'-]+", text[z:])[:6])) for cand, _, z in cands]
        return type_fit(self.encoder, wanted, question, after, titled)

    def score_passage(self, question: str, text: str, head: Sequence[Any], titled: Any) -> list[tuple[str, float, int, int]]:
        """``(candidate, score without the path bonuses, start, end)`` of one passage, best first."""
        from graphhop.read.facts import answer_type
        from graphhop.read.text_qa import snap

        names = name_spans(text)
        spans = {s: 0.0 for s in candidate_spans(text)}
        for rank, p in enumerate(head):
            if p.text.strip() and p.score > float("-inf"):
                s = snap(text, p.start, p.end, names)
                if s in spans:  # the head ranks names and numbers; it adds none of its own
                    spans[s] = max(spans[s], 1.0 / (1 + rank))
        q_fold = f" {fold_name(question)} "
        q_stems = content_stems(question) - content_stems(" ".join(n for _, _, n in name_spans(question)))
        cands = [(text[a:z].strip(" .,;:"), a, z) for a, z in spans]
        cands = [c for c in cands if c[0] and f" {fold_name(c[0])} " not in q_fold]
        types = self._type_fit(answer_type(question), question, cands, text, titled)
        w_local, w_type, w_head, _ = self.w
        out = [(c, w_local * self._local(q_stems, text, a, z) + w_type * t + w_head * spans[(a, z)], a, z)
               for (c, a, z), t in zip(cands, types)]
        return sorted(out, key=lambda c: -c[1])

    def read(self, question: str, retriever: Any, paths: Sequence[Any]) -> list[Any]:
        """Readings of every candidate of every passage on every path (prefix up to its passage)."""
        from graphhop.read.text_qa import Reading, _sentence

        ids = list(dict.fromkeys(d for p in paths for d in p.ids))
        texts = {d: retriever.text(d) for d in ids}
        heads = self.model.predict([(question, texts[d]) for d in ids], n_best=self.n_best)
        titles = {fold_name(retriever.title(d)): texts[d] for d in ids if retriever.title(d)}
        scored = {d: self.score_passage(question, texts[d], h, lambda c: titles.get(fold_name(c), ""))
                  for d, h in zip(ids, heads)}
        anchors = [fold_name(n) for n in name_mentions(question)]
        anchored = {d: any(f" {a} " in f" {fold_name(texts[d])} " for a in anchors) for d in ids}
        out = []
        for path in paths:
            for i, d in enumerate(path.ids):
                last = i == len(path.ids) - 1
                grounded = not anchors or any(anchored[x] for x in path.ids[: i + 1])
                for cand, score, a, z in scored[d][:8]:
                    margin = score + (self.w[3] if last else 0.0) + (self.w_anchor if grounded else 0.0) - self.threshold
                    out.append(Reading(cand, margin, path.ids[: i + 1], path.score, _sentence(texts[d], a, z)))
        return out


def type_fit(encoder: Any, wanted: str | None, question: str, cands: Sequence[tuple[str, str]],
             titled: Any) -> list[float]:
    """The fit of each candidate ``(name, words after it)`` to the question's answer type ``wanted``:
    a year for ``when``/``what year``, a number (not a year) for ``how many``; otherwise the encoder
    cosine between the type and how the text describes the candidate (the words after it, and
    ``titled(name)``: the first sentence of a passage titled with it). One encoder call."""
    q = question.lower()
    out: list[float | None] = []
    contexts: list[str] = []
    for cand, after in cands:
        value = _number(cand)
        if wanted == "year" or re.search(r"\b(?:what|which) year\b", q):
            out.append(float(value is not None and 1000 <= value <= 2100))
        elif q.startswith("how many"):
            out.append(float(value is not None and not 1000 <= value <= 2100))
        elif wanted is None or value is not None:
            out.append(0.0)
        else:
            out.append(None)
            contexts.append(after + ". " + titled(cand).split(". ")[0])
    if contexts:
        vecs = encoder.encode([wanted, *contexts], convert_to_numpy=True, normalize_embeddings=True)
        sims = iter((vecs[1:] @ vecs[0]).tolist())
        out = [next(sims) if v is None else v for v in out]
    return [float(v) for v in out]


def _number(text: str) -> float | None:
    return parse_value(text) if is_number(text) else None
