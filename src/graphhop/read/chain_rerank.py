"""A trained reranker of the walk reader's candidate chains (issue 13, session 15).

The walk reader (:mod:`graphhop.read.walk`) scores each chain it walked by hand-set lexical weights.
:class:`TextChainReranker` reads the question and a chain's evidence sentences in order, with the candidate
answer marked (:func:`chain_text`), through a MiniLM cross-encoder (the KG chain reranker's model class,
:class:`graphhop.kgqa.rerank.ChainReranker`: top layers fine-tuned, float16 deltas over the bundled MiniLM,
:mod:`graphhop.models.top_layers`), and reorders the walk's ``k`` best readings by ``margin + w x logit``. The
walk's score ladder is kept (the i-th reading in the new order gets the i-th best margin and path score), so
whether an answer is given, how many list items clear their margins and every question type's rules see the
same distribution in the new order. ``graphhop train text-reranker`` trains one
(:mod:`graphhop.train.text_reranker`).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Sequence

__all__ = ["TEXT_RERANK_K", "TEXT_RERANK_W", "chain_text", "TextChainReranker"]

#: Readings reordered (the walk's best ``k`` by margin) and the logit's weight beside the walk's margin.
TEXT_RERANK_K = 8
TEXT_RERANK_W = 0.5


def _window(sentence: str, targets: Sequence[str], before: int, after: int) -> str:
    """``sentence`` with each of ``targets`` bracketed where it first stands, cut to ``before`` words before the
    first bracket and ``after`` after the last (the words that state the hop's relation)."""
    for t in dict.fromkeys(targets):
        at = sentence.find(t) if t else -1
        if at >= 0:
            sentence = f"{sentence[:at]}[{t}]{sentence[at + len(t):]}"
    words = sentence.split()
    marked = [i for i, w in enumerate(words) if "[" in w or "]" in w]
    if not marked:
        return " ".join(words[: before + after])
    return " ".join(words[max(0, marked[0] - before): marked[-1] + after + 1])


def chain_text(edges: Sequence[Any], answer: str, before: int = 12, after: int = 4) -> str:
    """What the cross-encoder reads of one chain: the answer, the start entity, then each hop's sentence in order
    with the entity the hop reaches bracketed (the answer last), cut around the brackets (:func:`_window`); hops read
    in one sentence share it."""
    groups: list[tuple[str, list[str]]] = []
    for e in edges:
        if groups and groups[-1][0] == e.sentence:
            groups[-1][1].append(e.target)
        else:
            groups.append((e.sentence, [e.target]))
    start = edges[0].source if edges else ""
    return f"{answer} | {start} : " + " | ".join(_window(s, t, before, after) for s, t in groups)


class TextChainReranker:
    """Reorders a walk read's best readings (module docstring). ``scorer``: an object with
    ``logits(question, texts)`` (a loaded :class:`~graphhop.kgqa.rerank.ChainReranker`), or None to only record;
    ``record``: a list that gets one dict per read (question, query, answers, supports, margins, chain texts)."""

    def __init__(self, scorer: Any, k: int = TEXT_RERANK_K, w: float = TEXT_RERANK_W, record: list | None = None,
                 queries: bool = True) -> None:
        self.scorer, self.k, self.w, self.record, self.queries = scorer, int(k), float(w), record, queries

    @classmethod
    def load(cls, folder: str | Path, k: int | None = None, w: float | None = None,
             queries: bool = True) -> "TextChainReranker":
        """The reranker trained into ``folder`` (its config's ``k`` and ``w`` unless given; ``queries`` False: a
        claim's or a part's read, one given its unmasked ``query``, is left in the walk's order)."""
        from graphhop.kgqa.rerank import ChainReranker

        scorer = ChainReranker.load(folder)
        return cls(scorer, scorer.config.get("k", TEXT_RERANK_K) if k is None else k,
                   scorer.config.get("w", TEXT_RERANK_W) if w is None else w, queries=queries)

    def reorder(self, question: str, query: str | None, states: Sequence[Any], paths: list[Any],
                readings: list[Any]) -> tuple[list[Any], list[Any]]:
        """``(paths, readings)`` of one read (aligned with the walk ``states`` they were read from), the ``k`` best
        by margin reordered by margin + ``w`` x logit with the margin ladder kept; those ``k`` come first, in the
        new order."""
        texts = [chain_text(st.edges, r.text) for st, r in zip(states, readings)]
        if self.record is not None:
            self.record.append({"question": question, "query": query, "texts": [r.text for r in readings],
                                "paths": [r.path for r in readings], "margins": [r.margin for r in readings],
                                "chains": texts, "edges": [st.edges for st in states]})
        if self.scorer is None or len(readings) < 2 or self.w <= 0 or (query is not None and not self.queries):
            return paths, readings
        top = sorted(range(len(readings)), key=lambda i: (-readings[i].margin, i))[: self.k]
        z = self.scorer.logits(question, [texts[i] for i in top])
        combined = [readings[i].margin + self.w * float(z[j]) for j, i in enumerate(top)]
        order = sorted(range(len(top)), key=lambda j: (-combined[j], j))
        if order == list(range(len(top))):
            return paths, readings
        ladder = [(readings[i].margin, readings[i].path_score) for i in top]
        moved = [top[j] for j in order]  # first in the lists too, so a tie on the ladder goes the new order's way
        rest = [i for i in range(len(readings)) if i not in set(top)]
        out_paths = [replace(paths[i], score=s) for i, (_, s) in zip(moved, ladder)] + [paths[i] for i in rest]
        out = [replace(readings[i], margin=m, path_score=s) for i, (m, s) in zip(moved, ladder)]
        return out_paths, out + [readings[i] for i in rest]
