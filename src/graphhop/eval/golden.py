"""GoldEn's evaluation over a text dataset: Paragraph Recall@k, both-gold (all@k) and any-gold (any@k).

:func:`golden_systems` builds single-hop baselines, MDR, the oracle and GoldEn over one index;
:func:`evaluate_methods` runs them in one :class:`~graphhop.eval.experiment.Experiment`;
:func:`open_or_build_index` opens or builds the index.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional, Sequence

from graphhop.core import InputError
from graphhop.datasets.textqa import TextQAExample, iter_worldtree
from graphhop.eval.experiment import Experiment, System, Table
from graphhop.eval.measures import Gold, Measure, Prediction, register_measure

__all__ = ["open_or_build_index", "golden_systems", "evaluate_methods", "GOLDEN_MEASURES", "METHOD_NAMES",
           "DEFAULT_INDEX_DIR"]

DEFAULT_INDEX_DIR = Path(".cache/golden")
#: Methods ``eval-golden`` knows, in table order.
METHOD_NAMES = ("bm25", "dense", "hybrid", "mdr", "texthop", "walk", "golden-path", "oracle", "oracle-rank", "golden",
                "golden-learned", "golden-rule")


def open_or_build_index(dataset: str, corpus: Path, index_dir: Path, dense: bool = True, progress: bool = False):
    """Open ``index_dir/dataset``, building it (BM25 + flat MiniLM vectors) from ``corpus`` if absent
    or if it lacks a dense part that is needed."""
    from graphhop.index.dense import DenseOptions
    from graphhop.index.directory import KnowledgeIndex, build_index, documents_from_passages
    from graphhop.kb.loaders import iter_passages

    from graphhop.index.cache import open_or_build

    path = Path(index_dir) / dataset

    def build() -> KnowledgeIndex:
        passages = iter_worldtree(corpus) if dataset == "entailmentbank" else iter_passages(corpus)
        return build_index(documents_from_passages(passages), path, dense=DenseOptions("flat") if dense else None,
                           overwrite=True, progress=progress, sources=[str(corpus)])

    return open_or_build(path, build, accept=lambda index: index.has_sparse and (index.has_dense or not dense))


#: The table's measures: paragraph recall, both-gold and any-gold at 2/5/10, and hops taken.
GOLDEN_MEASURES = ("R@2", "R@5", "R@10", "all@2", "all@5", "all@10", "any@2", "any@5", "any@10", "hops")


def _hops(preds: Sequence[Prediction], golds: Sequence[Gold]) -> list[float]:
    return [float(p.cache.get("hops", 0)) for p in preds]


register_measure(Measure("hops", "ranking", "retrieval hops the method took", _hops))


def _check(methods: Sequence[str], selector_dir: Optional[Path]) -> bool:
    unknown = [m for m in methods if m not in METHOD_NAMES]
    if unknown:
        raise InputError(f"unknown method {unknown[0]!r}; choose from {', '.join(METHOD_NAMES)}")
    needs_model = [m for m in methods if m.startswith("golden") and m != "golden-path"]
    if needs_model and selector_dir is None:
        raise InputError(f"method {needs_model[0]} needs a trained query generator (--model DIR)")
    if needs_model and not Path(selector_dir).is_dir():
        raise InputError(f"{selector_dir}: no trained query generator there (see `graphhop train query-generator`)")
    return bool(needs_model)


def _traced(traces: Sequence[Any]) -> list[Prediction]:
    return [Prediction(ranking=t.ranking, cache={"hops": len(t.hops), "trace": {
        "question": t.question, "stopped_by": t.stopped_by,
        "hops": [{"hop": r.hop, "query": r.query, "top": [h.id for h in r.hits[:3]]} for r in t.hops]}}) for t in traces]


def golden_systems(
    examples: Sequence[TextQAExample],
    index,
    methods: Sequence[str],
    selector_dir: Optional[Path] = None,
    max_hops: int = 2,
    adaptive_max_hops: int = 4,
    depth: int = 10,
    mdr_beam: int = 5,
    max_words: Optional[int] = None,
) -> dict[str, System]:
    """One system per method (predictions keep ``hops`` and, for GoldEn, the ``trace``: hop queries,
    top-3 ids per hop, and why it stopped).

    ``golden`` uses ``max_hops`` fixed hops; ``golden-path`` is untrained, ``max_hops`` hops whose
    query is the question plus the previous hop's best passage (:class:`~graphhop.retrieve.golden.PathQueryGenerator`);
    ``golden-learned`` / ``golden-rule`` allow 1 to ``adaptive_max_hops``. ``oracle`` merges the oracle queries' hits (the ceiling, labelled oracle;
    ``oracle-rank`` with the best-rank span instead of the shortest); ``mdr`` chains ``max_hops``
    dense hops. ``max_words`` (words per passage in a hop context) defaults to the trained
    generator's setting (its model card), else 25.
    """
    from graphhop.retrieve import make_retriever
    from graphhop.retrieve.golden import GoldEnRetriever, GoldEnSearch, SpanQueryGenerator, merge_hops
    from graphhop.retrieve.golden_oracle import oracle_trajectory

    search, generator = GoldEnSearch(index), None
    if _check(methods, selector_dir):
        from graphhop.models.span import SpanSelector

        selector = SpanSelector.from_pretrained(str(selector_dir))
        generator = SpanQueryGenerator(selector)
        max_words = max_words or selector.card.get("data", {}).get("max_words")
    max_words = max_words or 25

    def single(method: str) -> System:
        stage = make_retriever(index, method)
        return System(lambda qs: [Prediction(ranking=r, cache={"hops": 1}) for r in stage.search(qs, depth)])

    def mdr() -> System:
        from graphhop.pipeline.stages import mdr as mdr_stage

        stage = mdr_stage(index, max_hops, mdr_beam)
        return System(lambda qs: [Prediction(ranking=r, cache={"hops": max_hops}) for r in stage.search(qs, depth)])

    def hop_by_hop(method: str) -> System:
        """Issue 13's passage retrievers over the whole index: ``texthop`` (beam of paths, dense + BM25 +
        entity links) and ``walk`` (the walk reader's evidence walks); both fill ``depth`` from hybrid."""
        from graphhop.read.walk import WalkRetriever
        from graphhop.retrieve.texthop import HopSearch, TextHopRetriever

        hop_search = HopSearch(index, depth=depth)
        stage = TextHopRetriever(hop_search, hops=max_hops) if method == "texthop" else WalkRetriever(hop_search)
        return System(lambda qs: [Prediction(ranking=r, cache={"hops": max_hops}) for r in stage.rank(qs, depth)])

    def oracle(select: str) -> System:
        def predict(qs: list[str]) -> list[Prediction]:
            out = []
            for ex in examples:
                traj = oracle_trajectory(search, ex.question, ex.gold, ex.ordered, max_words=max_words, depth=depth,
                                         stop_hop=False, select=select)
                out.append(Prediction(ranking=merge_hops([h.hits for h in traj], depth), cache={"hops": len(traj)}))
            return out

        return System(predict, oracle="oracle queries from the gold passages")

    def golden(stop: str) -> System:
        from graphhop.retrieve.golden import PathQueryGenerator

        gen = PathQueryGenerator() if stop == "path" else generator
        retriever = GoldEnRetriever(search, gen, max_hops=max_hops if stop in ("fixed", "path") else adaptive_max_hops,
                                    stop="fixed" if stop == "path" else stop, max_words=max_words)
        return System(lambda qs: _traced(retriever.retrieve(qs, depth)))

    makers = {"bm25": lambda: single("bm25"), "dense": lambda: single("dense"), "hybrid": lambda: single("hybrid"),
              "mdr": mdr, "texthop": lambda: hop_by_hop("texthop"), "walk": lambda: hop_by_hop("walk"),
              "golden-path": lambda: golden("path"), "oracle": lambda: oracle("shortest"), "oracle-rank": lambda: oracle("rank"),
              "golden": lambda: golden("fixed"), "golden-learned": lambda: golden("learned"),
              "golden-rule": lambda: golden("rule")}
    return {m: makers[m]() for m in methods}


def evaluate_methods(examples: Sequence[TextQAExample], index, methods: Sequence[str], selector_dir: Optional[Path] = None,
                     split: str = "dev", **options: Any) -> Table:
    """The Experiment behind ``graphhop eval-golden``: :data:`GOLDEN_MEASURES` per method, by question type."""
    from graphhop.eval.tasks import text_golds

    systems = golden_systems(examples, index, methods, selector_dir, **options)
    return Experiment(GOLDEN_MEASURES, report=split).run(systems, [ex.question for ex in examples], text_golds(examples))
