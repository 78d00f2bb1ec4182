"""Passages read as triples with provenance (graphhop.read.text_kb) over a BM25-only index of the films set."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from graphhop.read.text_kb import TextKB, relation_name

FILMS = Path(__file__).resolve().parents[1] / "pipeline" / "data" / "films" / "passages.jsonl"


@pytest.fixture(scope="module")
def films_kb(tmp_path_factory) -> TextKB:
    from graphhop.index.directory import build_index, documents_from_passages
    from graphhop.kb.loaders import iter_passages
    from graphhop.read.sentence_graph import SentenceGraph
    from graphhop.retrieve.bm25 import BM25Retriever

    index = build_index(documents_from_passages(iter_passages(FILMS)), tmp_path_factory.mktemp("films") / "idx",
                        dense=None, progress=False)
    return TextKB(SentenceGraph(SimpleNamespace(index=index, bm25=BM25Retriever(index), entity_links=None)))


def test_relation_name_cuts_descriptions_roles_and_function_words() -> None:
    assert relation_name(" is a film director born in ") == "born in"
    assert relation_name(" is a 1994 drama film directed by ") == "directed by"
    assert relation_name(" is a small coastal country whose capital is ") == "capital"
    assert relation_name(", a port town in ") == "town in"
    assert relation_name(" was built by the instrument maker ", before_name=True) == "built by"
    assert relation_name(" was built by the instrument maker ") == "built by instrument maker"  # before a number
    assert relation_name(" in ") == ""  # a preposition alone names no relation


def test_triples_of_the_films_passages(films_kb: TextKB) -> None:
    triples = {(t.head, t.relation, t.tail, t.doc) for t in films_kb.triples}
    for expected in [("Night Ferry to Kestrin", "directed by", "Mara Voss", "f1"),
                     ("Night Ferry to Kestrin", "year", "1994", "f1"),
                     ("Night Ferry to Kestrin", "stars", "Tomas Arlen", "f1"),  # ``It ... stars``: the pronoun is the title
                     ("Mara Voss", "born in", "Castelvane", "f2"),  # ``born in 1956 in Castelvane``: the last relation
                     ("Mara Voss", "born year", "1956", "f2"),  # a year and a place are two relations
                     ("Castelvane", "town in", "Eldoria", "f2"),  # an apposition is about the mention before it
                     ("Eldoria", "capital", "Aurenne", "f6")]:
        assert expected in triples
    assert not any(t.head == "Mara Voss" and t.tail == "Eldoria" for t in films_kb.triples)


def test_fact_ids_map_back_to_their_passages(films_kb: TextKB) -> None:
    from graphhop.kb.store import KGStore

    assert all(films_kb.docs[f.id] == f.id.split("#")[0] for f in films_kb.facts)
    store = KGStore.from_facts(films_kb.facts)
    ids = [f.id for f in films_kb.facts if f.relation == "directed by" and f.tail == "Mara Voss"]
    assert sorted(films_kb.passages_of(ids, store)) == ["f1", "f4"]


def test_a_possessive_mention_leaks_no_letters_into_the_relation(tmp_path) -> None:
    from graphhop.core import Passage
    from graphhop.index.directory import build_index, documents_from_passages
    from graphhop.read.sentence_graph import SentenceGraph
    from graphhop.retrieve.bm25 import BM25Retriever

    docs = [{"id": "w1", "title": "Orrel Works", "text": "Orrel Works was founded by Magnus Orrel's brother in 1901."},
            {"id": "w2", "title": "Magnus Orrel", "text": "Magnus Orrel was an engineer born in Porthen."}]
    index = build_index(documents_from_passages(Passage(**d) for d in docs), tmp_path / "idx", dense=None, progress=False)
    kb = TextKB(SentenceGraph(SimpleNamespace(index=index, bm25=BM25Retriever(index), entity_links=None)))
    facts = [(t.head, t.relation, t.tail) for t in kb.triples if t.tail == "Magnus Orrel"]
    assert facts == [("Orrel Works", "founded by", "Magnus Orrel")]
