"""The built-in pipelines (today's methods), registered under their names.

Every factory takes the index and keyword options: ``k`` (first-hop hits, 20), ``hops`` (longest
chain, 3), ``loops`` (hop-wise walks may revisit entities, as PathQuestion's gold paths do; False), ``model`` (the index's encoder), ``reader_model`` / ``span_model`` (readers; ``reader``: an
:class:`~graphhop.read.ops.OperationReader` to share between pipelines) and the
method's own options. An option a pipeline does not take is an error, not silently ignored
(``None`` values are dropped first, so a CLI can pass all of its options).
"""

from __future__ import annotations

from typing import Any

from graphhop.core import InputError
from graphhop.pipeline import stages as S
from graphhop.pipeline.ask import AskPipeline
from graphhop.pipeline.ops import as_stage
from graphhop.pipeline.registry import register

__all__ = ["COMMON_OPTIONS"]

#: Options every built-in pipeline takes, with their defaults.
COMMON_OPTIONS: dict[str, Any] = {"k": 20, "hops": 3, "model": None, "reader_model": None, "span_model": None,
                                  "reader": None, "loops": False}


def _options(name: str, options: dict[str, Any], own: dict[str, Any]) -> dict[str, Any]:
    given = {k: v for k, v in options.items() if v is not None}
    allowed = {**COMMON_OPTIONS, **own}
    unknown = sorted(set(given) - set(allowed))
    if unknown:
        raise InputError(f"pipeline {name!r} does not take option {unknown[0]!r} (it takes {', '.join(allowed)})")
    return {**allowed, **given}


def _hop_pipeline(name: str, index: Any, retriever: Any, opts: dict[str, Any]) -> AskPipeline:
    """``retriever >> hops >> reader``: the retriever at every hop, then the fact reader."""
    graphs = as_stage(retriever) >> S.hops(index, k=opts["k"], max_hops=opts["hops"], loops=opts["loops"])
    return AskPipeline(name, graphs, _reader(opts))


def _reader(opts: dict[str, Any]) -> Any:
    return S.reader(opts["reader_model"], opts["hops"], opts["span_model"], opts["reader"])


def _first_stage(method: str):
    """The factory of ``retriever >> hops >> reader`` for a first-stage method of :func:`graphhop.retrieve.make_retriever`."""
    def factory(index: Any, **options: Any) -> AskPipeline:
        from graphhop.retrieve import make_retriever

        opts = _options(method, options, {})
        return _hop_pipeline(method, index, make_retriever(index, method, opts["model"]), opts)

    return factory


def _difar2(index: Any, **options: Any) -> AskPipeline:
    opts = _options("difar2", options, {"reranker": None, "rerank_k": 50})
    if opts["reranker"] is None:
        raise InputError("difar2 needs --reranker DIR (option reranker=DIR: a model from `graphhop train reranker`): "
                         "an untrained cross-encoder head would rank at random")
    retriever = S.dense(index, opts["model"]) >> S.rerank(index, opts["reranker"], opts["rerank_k"])
    return _hop_pipeline("difar2", index, retriever, opts)


def _passages(index: Any) -> bool:
    return index.manifest.get("doc_type") == "passages"


def _chain_text_pipeline(name: str, index: Any, retriever: Any) -> Any:
    """On a passages index: ``retriever``'s chains (every hop searches the whole index with the path so
    far) read by the text pipeline's candidate reader (issue 13)."""
    from graphhop.pipeline.text import TextPipeline
    from graphhop.retrieve.texthop import ChainPaths, golden_paths, mdr_paths

    chains = mdr_paths(retriever) if name == "mdr" else golden_paths(retriever)
    return TextPipeline(index, reader="candidates", paths=lambda search: ChainPaths(search, chains, name))


def _golden(index: Any, **options: Any) -> AskPipeline:
    opts = _options("golden", options, {"query_generator": None, "golden_hops": 2})
    if _passages(index):  # untrained default: the next query is the question plus the previous hop's best passage
        retriever = S.golden(index, opts["query_generator"], opts["golden_hops"], path_queries=True)
        return _chain_text_pipeline("golden", index, retriever)
    return _hop_pipeline("golden", index, S.golden(index, opts["query_generator"], opts["golden_hops"]), opts)


def _mdr(index: Any, **options: Any) -> AskPipeline:
    opts = _options("mdr", options, {"mdr_hops": 2, "beam": 5})
    retriever = S.mdr(index, opts["mdr_hops"], opts["beam"], opts["model"])
    if _passages(index):
        return _chain_text_pipeline("mdr", index, retriever)
    return _hop_pipeline("mdr", index, retriever, opts)


def _bgr(index: Any, **options: Any) -> AskPipeline:
    from graphhop.retrieve import make_retriever

    opts = _options("bgr", options, {"bgr_model": None, "first_stage": "dense", "top_n": 25, "mode": "bidirectional"})
    if opts["bgr_model"] is None:
        raise InputError("bgr needs --bgr-model DIR (option bgr_model=DIR: a model from `graphhop train bgr`)")
    if _passages(index):  # hop by hop over the whole text index (issue 13)
        from graphhop.pipeline.text import TextPipeline

        return TextPipeline(index, hops=min(opts["hops"], 3), bgr_model=opts["bgr_model"])
    first = as_stage(make_retriever(index, opts["first_stage"], opts["model"])) % opts["top_n"]
    return AskPipeline("bgr", first >> S.bgr(opts["bgr_model"], index, opts["mode"], opts["top_n"]), _reader(opts))


def _leaves(index: Any, **options: Any) -> AskPipeline:
    """EntailmentBank-style leaf sets over a sentence index (issue 13): greedy conditioned selection with the
    shipped leaf head (``leaf_head=DIR`` another), with ``leaf_fusion=DIR`` that cross-encoder mixed into the head's
    steps and stop (its rule chosen on the carve), or with ``leaf_reranker=DIR`` the cross-encoder's thresholded set."""
    opts = _options("leaves", options, {"leaf_head": None, "leaf_reranker": None, "leaf_fusion": None})
    if opts["leaf_fusion"] is not None:
        from graphhop.retrieve.leaves_fused import FusedLeafRetriever

        return AskPipeline("leaves", FusedLeafRetriever(index, opts["leaf_fusion"], opts["leaf_head"]), _reader(opts))
    if opts["leaf_reranker"] is not None:
        from graphhop.retrieve.leaves_rerank import LeafReranker

        return AskPipeline("leaves", LeafReranker(index, opts["leaf_reranker"]), _reader(opts))
    from graphhop.retrieve.leaves import LeafRetriever

    return AskPipeline("leaves", LeafRetriever(index, opts["leaf_head"]), _reader(opts))


register("dense", _first_stage("dense"), help="DiFaR: dense (FAISS) retrieval at every hop, then the fact reader.")
register("bm25", _first_stage("bm25"), help="BM25 (tantivy) retrieval at every hop, then the fact reader.")
register("hybrid", _first_stage("hybrid"), help="BM25 + dense fused by reciprocal rank at every hop, then the fact reader.")
register("difar2", _difar2, help="DiFaR²: dense >> a trained cross-encoder (reranker=DIR, rerank_k), then the fact reader.")
register("golden", _golden, help="GoldEn: iterative queries (query_generator=DIR, default the question), then the fact reader.")
register("mdr", _mdr, help="MDR: multi-hop dense retrieval (question + previous hit is the next query), then the fact reader.")
register("bgr", _bgr, help="Graph-hop retrieval: first_stage % top_n >> a trained BGR model (bgr_model=DIR) >> the fact reader.")
register("milvus-dense", _first_stage("milvus-dense"), help="Dense retrieval served by the Milvus collection of an index built with --milvus-uri.")
register("milvus-bm25", _first_stage("milvus-bm25"), help="Milvus full-text BM25 over the collection of an index built with --milvus-uri.")
register("two-tier", _first_stage("two-tier"), help="Static-vector first stage (--backend static index), MiniLM over its top 100.")
register("leaves", _leaves, kinds=("passages",),
         help="Leaf sets from a sentence index (EntailmentBank task 3): the greedy leaf head (leaf_fusion=DIR: with a "
              "leaf cross-encoder in its steps), or leaf_reranker=DIR (`graphhop train leaf-reranker`), then the reader.")
