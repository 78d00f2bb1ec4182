"""The default ``ask`` pipeline for passage indexes: evidence read hop by hop over the whole index ->
evidence graph -> question-type operation -> answer + support.

Nothing to train. The default reader is the walk reader (:mod:`graphhop.read.walk`): it walks sentence
edges from the question's entities (passages from BM25 and entity links over the whole index), and its
walks are the evidence paths. ``reader="candidates"`` / ``"span"`` read the beam of
:mod:`graphhop.retrieve.texthop` (dense + BM25 with the path as the query, plus entity links) with the
span head shipped in ``graphhop/weights/span-head`` (:mod:`graphhop.models.span_head`) instead; so do the
``grr`` baseline, ``bgr``, ``golden`` and ``mdr`` (``paths``: their chains over the whole index). Question types are :mod:`graphhop.read.text_qa`.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any, Sequence

from graphhop.core import InputError, Stage
from graphhop.pipeline.registry import register

__all__ = ["TextPipeline", "GraphPaths"]


class GraphPaths:
    """Any graph retriever (``retrieve_graph``) seen as paths for the reader: every root-to-sink
    chain of its graph, scored by the mean node score (BGR's match probabilities)."""

    def __init__(self, graph_retriever: Any, search: Any) -> None:
        self.graph_retriever = graph_retriever
        self.search = search
        self._graph: Any = None

    def text(self, doc_id: str) -> str:
        return self.search.text(doc_id)

    def title(self, doc_id: str) -> str:
        return self.search.index.docs[doc_id].title

    def retrieve_paths(self, question: str) -> list[list[Any]]:
        from graphhop.retrieve.texthop import TextPath

        graph = self.graph_retriever.retrieve_graph(question)
        self._graph = graph
        paths = []
        for chain in graph.chains(limit=200):
            scores = [float(graph.g.nodes[n].get("score", 0.0)) for n in chain]
            paths.append(TextPath(tuple(chain), sum(scores) / max(1, len(scores))))
        return [paths]

    def graph_from_paths(self, question: str, paths: Any) -> Any:
        """The retriever's own graph (the paths are its chains)."""
        if self._graph is None or self._graph.question != question:
            return self.graph_retriever.retrieve_graph(question)
        return self._graph


class TextPipeline(Stage):
    """Loads the retriever and reader once; :meth:`ask` answers one question (an
    :class:`~graphhop.pipeline.ask.AskResult`). Registered as ``text`` (the default for passage indexes)."""

    name = "text"

    def __init__(self, index: Any, hops: int = 3, beam: int = 5, branch: int = 4, depth: int = 10,
                 head: str | Path | None = None, min_margin: float = 0.0, bgr_model: str | Path | None = None,
                 reader: str = "walk", links_only: bool = False, paths: Any = None, relation_matcher: str | Path | None = None,
                 walk_options: dict[str, Any] | None = None, ranker: str | Path | None = None,
                 bridges: bool = False) -> None:
        from graphhop.models.span_head import FrozenSpanReaderModel
        from graphhop.read.candidates import CandidateReader
        from graphhop.read.text_qa import PathReader, TextQA
        from graphhop.retrieve.texthop import HopSearch, TextHopRetriever

        if index.manifest.get("doc_type") != "passages":
            raise InputError(f"{index.path}: the text pipeline needs a passages index (this one holds "
                             f"{index.manifest.get('doc_type')})")
        if reader not in ("walk", "candidates", "span"):
            raise InputError(f"reader must be walk, candidates or span, not {reader!r}")
        if not 1 <= hops <= 5:
            raise InputError(f"hops must be in 1..5 (got {hops})")
        t0 = time.perf_counter()
        self.index = index
        search = HopSearch(index, depth=depth, links_only=links_only)
        self.retriever: Any = TextHopRetriever(search, hops=hops, beam=beam, branch=branch)
        if bgr_model is not None:
            from graphhop.retrieve.bgr_open import OpenBGR
            from graphhop.retrieve.graphhop import load_model

            self.retriever = GraphPaths(OpenBGR(load_model(bgr_model)[0], search), search)
            self.name = "bgr"
        elif links_only:
            self.name = "grr"
        if paths is not None:  # ``search -> path retriever``: GoldEn / MDR hop by hop over the whole index
            self.retriever = paths(search)
            self.name = self.retriever.name
        if reader == "walk" and bgr_model is None and not links_only and paths is None:
            walk = _walk_reader(search, ranker, relation_matcher=relation_matcher, **(walk_options or {}))
            self.qa = TextQA(self.retriever, walk,
                             min_margin=min_margin, count_margin=0.1,
                             list_margin=0.1, bridges=bridges)
        else:
            model = FrozenSpanReaderModel.load(head)
            path_reader: Any = PathReader(model) if reader == "span" else CandidateReader(model, encoder=search.encoder)
            self.qa = TextQA(self.retriever, path_reader, min_margin=min_margin, bridges=bridges)
        self.load_s = time.perf_counter() - t0

    @property
    def reader(self) -> Any:
        """The passage reader (loaded with the pipeline)."""
        return self.qa.reader

    def retrieve_graph(self, questions: Sequence[str]) -> list[Any]:
        """One evidence graph per question (the retriever's, before reading)."""
        return [self.retriever.graph_from_paths(q, [p for beam in self.retriever.retrieve_paths(q) for p in beam])
                for q in questions]

    def ask(self, question: str, qtype: str | None = None) -> Any:
        """Answer one question: an :class:`~graphhop.pipeline.ask.AskResult`."""
        from graphhop.pipeline.ask import AskResult
        from graphhop.read.graphs import support_graph

        if not question.strip():
            raise InputError("the question is empty")
        t0 = time.perf_counter()
        res = self.qa.answer(question, qtype)
        total = time.perf_counter() - t0
        score = res.score if res.supported and math.isfinite(res.score) else None
        return AskResult(question, self.name, res.qtype, res.answer, res.answers, score, list(res.support), res.graph,
                         support_graph(res.graph, res.support), res.trace, {"total_s": total})


def _walk_reader(search: Any, ranker: str | Path | None, **options: Any) -> Any:
    """The walk reader; with ``ranker`` (a weights file, ``default`` for the shipped one) its readings re-ordered by
    the learned ranker (:mod:`graphhop.read.walk_ranker`)."""
    if ranker is None or ranker == "off":
        from graphhop.read.walk import WalkReader

        return WalkReader(search, **options)
    from graphhop.read.walk_ranker import DEFAULT_WEIGHTS, RankedWalkReader

    return RankedWalkReader(search, ranker=DEFAULT_WEIGHTS if ranker == "default" else ranker, **options)


def _factory(index: Any, **options: Any) -> TextPipeline:
    """``build_pipeline("text", index, hops=3, bgr_model=None, reader="walk", ...)``; the options the
    fact pipelines take (``k``, ``reader_model``, ...) are ignored."""
    keep = {k: v for k, v in options.items() if k in ("hops", "beam", "branch", "depth", "head", "min_margin",
                                                       "bgr_model", "reader", "links_only", "relation_matcher", "walk_options",
                                                       "ranker", "bridges")
            and v is not None}
    if "bridges" in keep:  # `-o bridges=true`: support completion by bridge passages (txt18); bad text is one line
        from graphhop.pipeline.kgqa import _flag

        keep["bridges"] = _flag("bridges", keep["bridges"], "text")
    keep["hops"] = min(int(keep.get("hops", 3)), 3)
    return TextPipeline(index, **keep)


def _grr(index: Any, **options: Any) -> TextPipeline:
    """The GRR-style baseline: after the first hop, only entity links are followed."""
    return _factory(index, **options, links_only=True)


register("text", _factory, kinds=("passages",),
         help="Passages: sentence edges walked hop by hop from the question's entities over the whole index (walk reader).")
register("grr", _grr, kinds=("passages",),
         help="Passages, GRR-style baseline: BM25 + dense first hop, then entity links only; shipped span reader.")


#: The pipeline question type a suite's ``type`` is asked as (``--given-type``).
SUITE_TYPES = {"plain": "query", "list": "query", "yes/no": "boolean", "boolean": "boolean", "count": "count",
             "comparison": "comparison", "query": "query"}


def load_suite(folder_or_file: str | Path) -> list[dict[str, Any]]:
    """Questions of a hand-written suite (``questions.jsonl``: id, question, answers, type, hops, gold_passages)."""
    import json

    path = Path(folder_or_file)
    path = path / "questions.jsonl" if path.is_dir() else path
    if not path.exists():
        raise InputError(f"{path}: no such file")
    out = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise InputError(f"{path}:{lineno}: invalid JSON ({exc.msg})") from None
    return out
