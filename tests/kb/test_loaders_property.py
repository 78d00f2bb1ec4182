"""Property tests: any bytes in any loader give items or one clean InputError (never a traceback),
and an index build from them is complete or absent (never partial)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphhop.core import InputError
from graphhop.kb.loaders import iter_passages, iter_triples, read_json

_SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
_LINE_ENDS = st.sampled_from(["\n", "\r\n", "\r", ""])

# lines that look like real inputs, joined with mixed line ends, sometimes with raw bytes mixed in
_field = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=12)
_tsv_line = st.tuples(_field, _field, _field).map("\t".join)
_jsonl_line = st.one_of(
    st.fixed_dictionaries({"head": _field, "relation": _field, "tail": _field}).map(lambda d: __import__("json").dumps(d)),
    st.fixed_dictionaries({"text": _field}, optional={"title": _field, "id": _field}).map(lambda d: __import__("json").dumps(d)),
)
_lines = st.lists(st.tuples(st.one_of(_tsv_line, _jsonl_line, _field), _LINE_ENDS), max_size=8).map(
    lambda parts: "".join(a + b for a, b in parts).encode("utf-8"))
_huge = st.integers(10_000, 200_000).map(lambda n: (b"a\tb\t" + b"c" * n + b"\n") * 2)
_CONTENT = st.one_of(st.binary(max_size=400), _lines, st.text(max_size=300).map(lambda t: t.encode("utf-8", "surrogatepass")), _huge)
_SUFFIX = st.sampled_from([".tsv", ".txt", ".jsonl", ".nt", ".json"])


def _one_line_error(exc: InputError, path: Path) -> None:
    message = str(exc)
    assert "\n" not in message and str(path) in message, message


@_SETTINGS
@given(content=_CONTENT, suffix=_SUFFIX, skip=st.booleans(), passages=st.booleans())
def test_triple_and_passage_loaders_never_traceback(tmp_path, content, suffix, skip, passages):
    path = tmp_path / f"kb{suffix}"
    path.write_bytes(content)
    loader = iter_passages if passages else iter_triples
    try:
        items = list(itertools.islice(loader(path, skip_bad_lines=skip), 1000))
    except InputError as exc:
        _one_line_error(exc, path)
        return
    for item in items:  # everything kept is non-empty and encodable (it will be written as UTF-8)
        fields = (item.id, item.text, item.title or "") if passages else (item.head, item.relation, item.tail)
        "".join(fields).encode("utf-8")
        assert passages or all(f.strip() for f in fields)


@_SETTINGS
@given(content=_CONTENT)
def test_json_reader_never_tracebacks(tmp_path, content):
    path = tmp_path / "x.json"
    path.write_bytes(content)
    try:
        read_json(path)
    except InputError as exc:
        _one_line_error(exc, path)


@_SETTINGS
@given(content=_CONTENT, loader=st.sampled_from(["pathquestion", "wc2014", "metaqa", "records"]))
def test_dataset_loaders_never_traceback(tmp_path, content, loader):
    from graphhop.datasets.builder import read_records
    from graphhop.datasets.kgqa import load_metaqa, load_pathquestion, load_wc2014

    path = tmp_path / "q.txt"
    path.write_bytes(content)
    fn = {"pathquestion": load_pathquestion, "wc2014": load_wc2014, "metaqa": load_metaqa,
          "records": lambda p: list(read_records(p))}[loader]
    try:
        fn(path)
    except InputError as exc:
        _one_line_error(exc, path)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=st.one_of(_lines, st.binary(max_size=200)), suffix=st.sampled_from([".tsv", ".txt", ".jsonl"]))
def test_index_build_is_complete_or_absent(tmp_path_factory, content, suffix):
    from graphhop.index.directory import KnowledgeIndex, build_index, documents_from_facts

    root = tmp_path_factory.mktemp("b")
    path = root / f"kb{suffix}"
    path.write_bytes(content)
    out = root / "idx"
    try:
        build_index(documents_from_facts(iter_triples(path)), out, dense=None, progress=False)
    except InputError as exc:
        assert "\n" not in str(exc)
        assert sorted(p.name for p in root.iterdir()) == [path.name]  # nothing partial left
    else:
        assert len(KnowledgeIndex.open(out).docs) >= 1
        assert sorted(p.name for p in root.iterdir()) == sorted([path.name, "idx"])


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["question", "answer", "id", "_id", "title", "text", "paragraphs", "supporting_facts",
                         "context", "proof", "hypothesis", "program", "meta", "is_supporting", "paragraph_support_idx",
                         "question_decomposition", "triples", "intermediate_conclusions"]), inner, max_size=5),
    max_leaves=12)


@_SETTINGS
@given(rows=st.lists(_JSON, max_size=4), loader=st.sampled_from(["hotpotqa", "musique", "programs", "entailmentbank", "angles"]))
def test_text_dataset_loaders_never_traceback(tmp_path, rows, loader):
    import json as _json

    from graphhop.datasets.entailmentbank import load_angles, load_entailmentbank
    from graphhop.datasets.kqapro import load_programs
    from graphhop.datasets.textqa import load_hotpotqa, load_musique

    jsonl = loader in ("entailmentbank", "angles")
    path = tmp_path / ("q.jsonl" if jsonl else "q.json")
    path.write_text("\n".join(_json.dumps(r) for r in rows) if jsonl else _json.dumps(rows), encoding="utf-8")
    corpus = tmp_path / "corpus.json"
    corpus.write_text(_json.dumps({"T": ["a sentence."]} if loader == "hotpotqa" else [{"title": "T", "text": "x"}]))
    fn = {"hotpotqa": lambda p: load_hotpotqa(p, corpus), "musique": lambda p: load_musique(p, corpus),
          "programs": load_programs, "entailmentbank": load_entailmentbank, "angles": load_angles}[loader]
    try:
        fn(path)
    except InputError as exc:
        assert "\n" not in str(exc)
