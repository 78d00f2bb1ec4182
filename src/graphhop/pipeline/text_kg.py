"""The ``text-kg`` pipeline: passages -> a KB of extracted triples -> the trained ``kgqa`` pipeline -> passages.

The passages of a passages index are read into triples with provenance (:class:`graphhop.read.text_kb.TextKB`,
through the walk reader's sentence graph), the triples become a :class:`~graphhop.kb.store.KGStore`, and
:class:`graphhop.kgqa.pipeline.KGQA` (link -> relation paths scored by the shipped head -> the question type's
operation) answers over it; the support is the passages the answer's facts were read in. Built once per
index, on first use.
"""

from __future__ import annotations

import re
import time
from typing import Any, Optional, Sequence

from graphhop.core import InputError, Stage
from graphhop.pipeline.builtin import _options
from graphhop.pipeline.registry import register

__all__ = ["TextKGPipeline"]


class TextKGPipeline(Stage):
    """``text-kg``: passages read as triples, answered by ``kgqa``; support = passages of the facts used."""

    name = "text-kg"

    def __init__(self, index: Any, hops: int = 3, beam: int = 10, threshold: Optional[float] = None,
                 weights: Optional[str] = None) -> None:
        if index.manifest.get("doc_type") != "passages":
            raise InputError(f"{index.path}: the text-kg pipeline needs a passages index (this one holds "
                             f"{index.manifest.get('doc_type')})")
        if not 1 <= hops <= 4:
            raise InputError(f"text-kg reads relation paths of 1..4 hops (got hops={hops})")
        self.index, self.hops, self.beam, self.threshold, self.weights = index, hops, beam, threshold, weights
        self._reader: Any = None
        self.kb: Any = None
        self.load_s = 0.0

    @property
    def reader(self) -> Any:
        """The :class:`~graphhop.kgqa.pipeline.KGQA` over the passages' triples (built on first use)."""
        if self._reader is None:
            from graphhop.kb.store import KGStore
            from graphhop.kgqa.pipeline import KGQA
            from graphhop.kgqa.scorer import PathScorer
            from graphhop.read.sentence_graph import SentenceGraph
            from graphhop.read.text_kb import TextKB
            from graphhop.retrieve.texthop import HopSearch

            t0 = time.perf_counter()
            self.kb = TextKB(SentenceGraph(HopSearch(self.index)))
            if not self.kb.facts:
                raise InputError(f"{self.index.path}: no triples could be read from its passages")
            self._reader = KGQA(KGStore.from_facts(self.kb.facts), PathScorer.load(self.weights), max_hops=self.hops,
                                beam=self.beam, threshold=self.threshold)
            self.load_s = time.perf_counter() - t0
        return self._reader

    def retrieve_graph(self, questions: Sequence[str]) -> list[Any]:
        """The evidence graph (chains of facts read from the passages) of each question."""
        return [self.reader.ask(q)["graph"] for q in questions]

    def ask(self, question: str, qtype: Optional[str] = None) -> Any:
        """Answer one question: an :class:`~graphhop.pipeline.ask.AskResult` whose support is passage ids."""
        from graphhop.pipeline.ask import AskResult

        if not question.strip():
            raise InputError("the question is empty")
        reader = self.reader
        out = reader.ask(question, qtype)
        _stated_count(out)
        support = self.kb.passages_of(out["support"], reader.store)
        trace = dict(out["trace"], facts=[list(reader.store.raw[i][0]) for i in _edges(reader, out["support"])])
        return AskResult(question=question, method=self.name, qtype=out["qtype"], answer=out["answer"],
                         answers=list(out["answers"]), score=float(out["score"]) if out["supported"] else None,
                         support=support, graph=out["graph"], support_graph=out["support_graph"], trace=trace,
                         timings=out["timings"])


def _stated_count(out: dict[str, Any]) -> None:
    """A count the text states in words answers in digits (``Its three arches`` -> ``3``), also when the one
    entity the count reached is such a number (counted as 1 otherwise)."""
    from graphhop.read.numbers import is_number, parse_value

    if out.get("qtype") != "count" or not out.get("supported"):
        return
    counted = out.get("trace", {}).get("counted") or []
    stated = counted[0] if len(counted) == 1 and is_number(counted[0]) else out.get("answer", "")
    value = parse_value(stated) if is_number(stated) and not re.fullmatch(r"[\d,.]+", stated) else None
    if value is not None:
        out["answer"] = f"{value:g}"
        out["answers"] = [out["answer"]]


def _edges(reader: Any, fact_ids: Sequence[str]) -> list[int]:
    first = {ids[0]: i for i, ids in enumerate(reader.store.fact_ids)}
    return [first[f] for f in fact_ids if f in first]


#: The options of ``text-kg`` (besides the ones every built-in pipeline takes), with their defaults.
OPTIONS: dict[str, Any] = {"hops": 3, "beam": 10, "threshold": None, "weights": None}


def _factory(index: Any, **options: Any) -> TextKGPipeline:
    """``build_pipeline("text-kg", index, hops=3, beam=10, threshold=None, weights=None)``; an option no built-in
    pipeline takes is a one-line :class:`InputError`."""
    opts = _options("text-kg", options, OPTIONS)
    return TextKGPipeline(index, **{k: opts[k] for k in OPTIONS})


register("text-kg", _factory, kinds=("passages",),
         help="Experimental, below the walk reader (text) on every hand-written set (docs/RESULTS.md, issue 13): "
              "passages read as triples (subject, words between, mention) with provenance, answered by kgqa; "
              "support = the passages of the facts used.")
