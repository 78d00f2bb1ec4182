"""Entity mentions, evidence graphs from retrieved facts, walks, and the fact reader."""

from __future__ import annotations

from graphhop.core import Fact, Hit
from graphhop.index.directory import DocStore, Document
from graphhop.read.facts import (
    BiEncoderScorer,
    FactReader,
    answer_type,
    find_entities,
    walks,
)
from graphhop.read.graphs import build_evidence_graph, graph_from_paths, support_graph
from graphhop.retrieve.hops import retrieve_evidence

KB = [
    ("Mona Lisa", "painted_by", "Leonardo da Vinci"),
    ("Leonardo da Vinci", "born_in", "Vinci"),
    ("Vinci", "located_in", "Italy"),
    ("Leonardo da Vinci", "occupation", "painter"),
    ("Mona Lisa", "held_by_museum", "Louvre"),
    ("Louvre", "located_in", "Paris"),
    ("Paris", "capital_of", "France"),
    ("Italy", "currency", "Euro"),
]


def test_find_entities_longest_mention_wins() -> None:
    ents = ["Vinci", "Leonardo da Vinci", "Mona Lisa", "Alcalá de Henares", "Paris", "a"]
    assert find_entities("Where was Leonardo da Vinci born?", ents) == ["Leonardo da Vinci"]
    assert find_entities("the painter of the Mona Lisa", ents) == ["Mona Lisa"]
    assert find_entities("Is alcala de henares near paris?", ents) == ["Alcalá de Henares", "Paris"]
    assert find_entities("sylvia_brett 's parent", ["sylvia_brett"]) == ["sylvia_brett"]
    assert find_entities("Parisian food", ents) == []


def test_answer_type_from_the_wh_phrase() -> None:
    assert answer_type("In which country was the painter of the Mona Lisa born?") == "country"
    assert answer_type("What is the official language of X?") == "official language"
    assert answer_type("Who painted the Mona Lisa?") == "person"
    assert answer_type("the parent of anna 's son ?") is None


def test_build_evidence_graph_chains_facts_from_the_question_entity() -> None:
    facts = [(f"f{i}", Fact(*t)) for i, t in enumerate(KB)]
    graph = build_evidence_graph("In which country was the painter of the Mona Lisa born?", facts, max_hops=3)
    graph.validate()  # a DAG rooted at the question, every node on a root path
    # the facts of the mentions: Mona Lisa, and "painter" (an entity of the occupation fact)
    assert set(graph.g.successors(graph.root)) == {"f0", "f3", "f4"}
    assert graph.g.has_edge("f0", "f1") and graph.g.has_edge("f1", "f2")
    assert "f7" not in graph.g  # Italy -currency- Euro is 4 facts away
    ws = walks(graph, ["Mona Lisa"])
    ends = {w.end for w in ws}
    assert {"Leonardo da Vinci", "Vinci", "Italy", "Louvre", "Paris", "France"} == ends
    deep = [w for w in ws if w.end == "Italy"][0]
    assert deep.relation_path == ("Mona Lisa", "painted_by", "born_in", "located_in")
    assert support_graph(graph, deep.nodes).evidence_ids == ["f0", "f1", "f2"]


def test_fact_reader_follows_the_chain_to_the_typed_answer(encoder) -> None:
    graph = graph_from_paths("q", [KB[:3], KB[3:4], KB[4:7]])
    reader = FactReader(BiEncoderScorer(encoder=encoder))
    reading = reader.read("In which country was the painter of the Mona Lisa born?", graph)
    assert reading.starts == ["painter", "Mona Lisa"]  # walks from "painter" compete, and lose
    assert reading.top.entity == "Italy"
    assert reading.best_path == ("Mona Lisa", "painted_by", "born_in", "located_in")
    ans = reader.answer("Which museum holds the Mona Lisa?", graph)
    assert ans.text == "Louvre" and len(ans.support) == 1


class _ListRetriever:
    """Returns, for any query, the facts whose words overlap it most (a stand-in retriever)."""

    def __init__(self, docs: list[Document]) -> None:
        self.docs = docs

    def search(self, queries, k=10):
        out = []
        for q in queries:
            words = set(q.lower().replace("?", "").split())
            scored = sorted(self.docs, key=lambda d: -len(words & set(d.text.lower().split())))
            out.append([Hit(d.id, 1.0) for d in scored[:k]])
        return out


def test_retrieve_evidence_expands_frontier_entities() -> None:
    docs = [Document(f"f{i}", " ".join(t).replace("_", " "), "", Fact(*t, id=f"f{i}")) for i, t in enumerate(KB)]
    retriever = _ListRetriever(docs)
    [graph] = retrieve_evidence(retriever, DocStore(docs), ["Where was the painter of the Mona Lisa born?"], k=1, hops=3,
                                beam=4, per_entity=2)
    facts = {tuple(f) for n in graph.evidence_ids for f in graph.g.nodes[n]["facts"]}
    # hop 1 finds one Mona Lisa fact; hops 2-3 add facts of the entities it reaches
    assert ("Leonardo da Vinci", "born_in", "Vinci") in facts
    assert len(facts) >= 3
    graph.validate()
