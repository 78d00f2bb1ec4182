"""Entity links by gazetteer mentions: question entities at hop 1, bridge entities after, hubs left out."""

from __future__ import annotations

from graphhop.retrieve.mention_links import MentionIndex, fold_entity, gazetteer

DOCS = {
    "a": "claudius is married to aelia paetina and was born in lyon.",
    "b": "aelia paetina is of gender female.",
    "c": "claudius has a parent named nero claudius drusus.",
    "d": "nero claudius drusus is of gender male.",
    "e": "agrippina the younger is married to claudius.",
    "f": "aelia paetina has a child named claudia antonia.",
}
RECORDS = [{"evidence": [{"facts": [["claudius", "spouse", "aelia_paetina"], ["claudius", "place_of_birth", "lyon"]]},
                         {"facts": [["aelia_paetina", "gender", "female"], ["nero_claudius_drusus", "gender", "male"]]},
                         {"facts": [["claudius", "parents", "nero_claudius_drusus"], ["Agrippina_the_Younger", "spouse", "claudius"]]},
                         {"facts": [["aelia_paetina", "children", "claudia_antonia"]]}]}]


def _index(max_df: int = 100) -> MentionIndex:
    return MentionIndex.build(DOCS.items(), gazetteer(RECORDS), max_df=max_df)


def test_gazetteer_folds_entity_ids():
    assert fold_entity("Chelsea_FC") == "chelsea fc"
    names = gazetteer(RECORDS)
    assert {"claudius", "aelia paetina", "nero claudius drusus", "agrippina the younger", "female"} <= names


def test_longest_match_wins_and_nested_names_are_not_mentions():
    m = _index()
    assert m.mentioned("claudius has a parent named nero claudius drusus.") == ["claudius", "nero claudius drusus"]
    assert m.doc_names["d"] == ("nero claudius drusus", "male")      # not "claudius"
    assert m.df("claudius") == 3                                        # a, c, e


def test_hop_one_is_the_question_entity_and_later_hops_follow_the_bridge_first():
    m = _index()
    q = "the sex of claudius 's husband ?"
    assert m.question_names(q) == ["claudius"]
    assert set(m.linked(q, ())) == {"a", "c", "e"}
    hop2 = m.linked(q, ("a",))
    # new names of "a" (aelia paetina, lyon) weigh 1; the question's own entity only old_weight
    assert hop2["b"] == 1.0 and hop2["f"] == 1.0
    assert hop2["c"] == m.old_weight and hop2["e"] == m.old_weight
    assert "a" not in hop2


def test_hubs_are_not_followed():
    m = _index(max_df=1)   # aelia paetina is in 3 sentences: a hub here; female in 1
    assert m.bridge_names("who is aelia paetina ?", ("b",)) == (["female"], [])
    hub = _index(max_df=2)
    assert "claudius" not in hub.bridge_names("x", ("a",))[0] + hub.bridge_names("x", ("a",))[1]
    # the question still links through its rarest entity when every one is a hub
    assert hub.question_names("claudius ?") == ["claudius"]


def test_hop_search_ranks_linked_first(tmp_path):
    import pytest

    pytest.importorskip("faiss")
    from graphhop.core import Passage
    from graphhop.index.dense import DenseOptions
    from graphhop.index.directory import build_index, documents_from_passages
    from graphhop.retrieve.texthop import HopSearch

    index = build_index(documents_from_passages(Passage(k, v) for k, v in DOCS.items()), tmp_path / "idx",
                        dense=DenseOptions("flat"), overwrite=True)
    search = HopSearch(index, depth=6, link_bonus=1.0, mentions=_index())
    first = [h.id for h in search.candidates("the sex of claudius 's husband ?", [()], 3)[0]]
    assert set(first) == {"a", "c", "e"}
    second = [h.id for h in search.candidates("the sex of claudius 's husband ?", [("a",)], 2)[0]]
    assert set(second) == {"b", "f"}
    only = HopSearch(index, depth=6, link_bonus=1.0, mentions=_index(), links_only=True)
    assert {h.id for h in only.candidates("the sex of claudius 's husband ?", [("a",)], 6)[0]} == {"b", "c", "e", "f"}
    # nothing linked (no gazetteer name in the question): dense + BM25 still answer
    assert only.candidates("what is the weather ?", [()], 2)[0]


def test_neighbourhood_is_the_question_entities_passages_then_their_links_by_distance():
    m = _index()
    q = "the sex of claudius 's husband ?"
    assert m.neighbourhood(q, 0) == {"a": 0, "c": 0, "e": 0}
    # one link on: the names of a, c, e (not the question's own claudius) name b, f (aelia paetina), d (drusus)
    assert m.neighbourhood(q, 1) == {"a": 0, "c": 0, "e": 0, "b": 1, "f": 1, "d": 1}
    assert list(m.neighbourhood(q, 1, limit=4)) == ["a", "c", "e", "b"]     # nearest first, capped


def test_answer_candidates_reach_the_sentence_the_question_does_not_name(tmp_path):
    import pytest

    pytest.importorskip("faiss")
    from graphhop.core import Passage
    from graphhop.index.dense import DenseOptions
    from graphhop.index.directory import build_index, documents_from_passages
    from graphhop.retrieve.bgr_relation import relation_words
    from graphhop.retrieve.texthop import HopSearch

    index = build_index(documents_from_passages(Passage(k, v) for k, v in DOCS.items()), tmp_path / "idx",
                        dense=DenseOptions("flat"), overwrite=True)
    search = HopSearch(index, depth=1, link_bonus=1.0, mentions=_index())
    q = "the sex of claudius 's husband ?"           # the answer is stated in b, which names aelia paetina only
    assert relation_words(search.mentions, q) == ("sex", "husband")
    assert "b" not in {h.id for h in search.candidates(q, [()], 6)[0]}
    assert "b" not in {h.id for h in search.answer_candidates(q, 6, reach=0)}
    top = [h.id for h in search.answer_candidates(q, 3, reach=1)]
    assert "b" in top and "d" in top               # the gender sentences one link away rank first
