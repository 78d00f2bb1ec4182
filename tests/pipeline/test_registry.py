"""The pipeline registry and AskResult: names, kinds, strict options, one typed answer."""

from __future__ import annotations

import json

import pytest

from graphhop.core import GraphhopError, InputError, Stage
from graphhop.pipeline import registry
from graphhop.pipeline.registry import build_pipeline, pipeline_names, register


class _FakeIndex:
    manifest = {"doc_type": "passages"}


def test_builtin_names_and_kinds() -> None:
    import graphhop.pipeline.text  # noqa: F401  (imported before the built-ins: the order must not change)

    names = pipeline_names()
    assert names[:7] == ["dense", "bm25", "hybrid", "difar2", "golden", "mdr", "bgr"]
    assert set(pipeline_names("facts")) >= {"bm25", "dense", "bgr"}


def test_register_kinds_and_duplicates() -> None:
    made = []

    def factory(index, **options):
        made.append(options)
        return Stage()

    register("test-facts-only", factory, kinds=("facts",), help="a test pipeline")
    try:
        register("test-facts-only", factory, kinds=("facts",))  # same factory again: fine
        with pytest.raises(GraphhopError, match="already registered"):
            register("test-facts-only", lambda index: Stage())
        with pytest.raises(GraphhopError, match="kinds"):
            register("test-bad-kind", factory, kinds=("tables",))
        assert "test-facts-only" in pipeline_names("facts") and "test-facts-only" not in pipeline_names("passages")
        with pytest.raises(InputError, match="runs over facts indexes; this index holds passages"):
            build_pipeline("test-facts-only", _FakeIndex())
        assert made == []
    finally:
        registry._REGISTRY.pop("test-facts-only", None)


def test_unknown_name_and_option() -> None:
    with pytest.raises(InputError, match="unknown pipeline 'nope'; choose one of dense, bm25"):
        build_pipeline("nope", _FakeIndex())
    with pytest.raises(InputError, match="does not take option 'reranker'"):
        build_pipeline("bm25", _FakeIndex(), reranker="x")
    with pytest.raises(InputError, match="difar2 needs --reranker"):
        build_pipeline("difar2", _FakeIndex())


@pytest.fixture(scope="module")
def demo():
    from graphhop.demo import demo_index

    return demo_index(progress=False)


def test_bm25_pipeline_asks_without_loading_dense(demo) -> None:
    pipe = build_pipeline("bm25", demo)
    hits = pipe.search(["Who painted the Mona Lisa?"], k=3)[0]
    assert hits[0].fact is not None and hits[0].text == "Mona Lisa [SEP] painted by [SEP] Leonardo da Vinci"
    assert hits[0].to_json()["head"] == "Mona Lisa"
    assert not pipe.reader_stage.loaded  # retrieval alone never loads the reader


def test_ask_result_json(demo) -> None:
    res = build_pipeline("dense", demo).ask("How many countries border Switzerland?")
    assert res.answer == "5" and res.qtype == "count" and res.supported
    out = res.to_json()
    assert set(out) == {"question", "method", "qtype", "answer", "answers", "score", "supported", "support", "graph",
                        "support_graph", "trace", "timings"}
    assert out["method"] == "dense" and len(out["support_graph"]["nodes"]) == 5
    json.dumps(out, default=float, allow_nan=False)


class _Index:
    def __init__(self, kind: str | None, dense: bool) -> None:
        self.manifest = {"doc_type": kind} if kind else {}
        self.has_dense = dense


@pytest.mark.parametrize("kind,dense,expected", [("facts", True, "kgqa"), ("facts", False, "kgqa"),
                                                  ("passages", True, "text"), ("passages", False, "text"),
                                                  (None, True, "dense"), (None, False, "bm25")])
def test_default_pipeline_by_index_kind(kind, dense, expected) -> None:
    from graphhop.pipeline.registry import default_pipeline

    assert default_pipeline(_Index(kind, dense)) == expected


def test_bm25_only_fact_index_asks_with_kgqa(tmp_path) -> None:
    """`graphhop index --dense none` over facts: `ask` picks kgqa, which reads the KB, never the dense part
    (the CLI side: tests/kgqa/test_cli_kgqa.py)."""
    from graphhop.demo import DEMO_DATA
    from graphhop.index.directory import KnowledgeIndex, build_index, documents_from_facts
    from graphhop.kb.loaders import iter_triples
    from graphhop.pipeline.registry import default_pipeline

    path = tmp_path / "bm25-only"
    build_index(documents_from_facts(iter_triples(DEMO_DATA / "kb.tsv")), path, dense=None, progress=False)
    index = KnowledgeIndex.open(path)
    assert not index.has_dense and default_pipeline(index) == "kgqa"
    res = build_pipeline("kgqa", index).ask("How many countries border Switzerland?")
    assert (res.method, res.answer, res.qtype) == ("kgqa", "5", "count") and len(res.support) == 5
    assert index._dense is None  # the dense part was never opened


@pytest.mark.parametrize("option,value,message", [("rerank_k", "abc", "rerank_k must be a number"),
                                                  ("beam", "2.5", "beam must be a whole number"),
                                                  ("hops", "three", "hops must be a number")])
def test_kgqa_whole_number_options_are_one_line(tmp_path, option, value, message) -> None:
    """A bad whole-number option of kgqa (``-o rerank_k=abc``) is an InputError naming it, not an internal error."""
    from graphhop.index.directory import KnowledgeIndex, build_index, documents_from_facts
    from graphhop.kb.loaders import iter_triples

    (tmp_path / "kb.tsv").write_text("Lilu\tborn in\tVeskaria\n", encoding="utf-8")
    build_index(documents_from_facts(iter_triples(tmp_path / "kb.tsv")), tmp_path / "idx", dense=None, progress=False)
    index = KnowledgeIndex.open(tmp_path / "idx")
    with pytest.raises(InputError, match=message):
        build_pipeline("kgqa", index, **{option: value})
