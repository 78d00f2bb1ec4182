"""Mentions of the walk's sentence graph (graphhop.read.sentence_graph): capitalized words that name nothing are
dropped, names and index titles are kept."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from graphhop.read.sentence_graph import SentenceGraph


@pytest.fixture(scope="module")
def graph(tmp_path_factory) -> SentenceGraph:
    from graphhop.core import Passage
    from graphhop.index.directory import build_index, documents_from_passages
    from graphhop.retrieve.bm25 import BM25Retriever

    docs = [Passage("p1", "Ealing is a town in London.", "Ealing"),
            Passage("p2", "The Titanic was a liner.", "Titanic")]
    index = build_index(documents_from_passages(docs), tmp_path_factory.mktemp("sg") / "idx", dense=None, progress=False)
    return SentenceGraph(SimpleNamespace(index=index, bm25=BM25Retriever(index), entity_links=None))


def _names(graph: SentenceGraph, sentence: str) -> list[str]:
    return [n for _, _, n in graph.mentions(sentence)]


@pytest.mark.parametrize("sentence, name", [("Italy at the time was a kingdom.", "Italy"),
                                            ("Emily in 1990 moved to Porthen.", "Emily"),
                                            ("Ealing in London has a film studio.", "Ealing"),  # a title
                                            ("The Titanic sank in 1912.", "Titanic")])  # a title after an article
def test_names_and_titles_are_kept(graph: SentenceGraph, sentence: str, name: str) -> None:
    assert name in _names(graph, sentence)


@pytest.mark.parametrize("sentence, word", [("Born in Elsby, she became a painter.", "Born"),
                                            ("Finally in 1901 the bridge opened.", "Finally"),
                                            ("Having no children, he left the house to the town.", "Having"),
                                            ("The Kallundrian capital is Verrin.", "Kallundrian")])
def test_openers_and_adjectives_name_nothing(graph: SentenceGraph, sentence: str, word: str) -> None:
    assert not any(word in n for n in _names(graph, sentence))


@pytest.mark.parametrize("sentence, numbers", [("From 1715 to 1730 she served as warden.", ["1715", "1730"]),
                                               ("Between 1801 and 1805 it was rebuilt.", ["1801", "1805"])])
def test_a_capitalized_run_of_numbers_names_nothing(graph: SentenceGraph, sentence: str, numbers: list[str]) -> None:
    names = _names(graph, sentence)
    assert all(n in names for n in numbers) and not any(" to " in n or "From" in n for n in names)


def test_a_name_with_a_number_stays_one_name(graph: SentenceGraph) -> None:
    assert "Apollo 11" in _names(graph, "Apollo 11 landed in 1969.")
