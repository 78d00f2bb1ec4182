import pytest

from graphhop.core import Fact, InputError, QAExample
from graphhop.datasets.kgqa import (
    DATASETS,
    equivalent_triples,
    gold_fact_ids,
    load_dataset,
    load_metaqa,
    load_pathquestion,
    load_wc2014,
    metaqa_gold_paths,
    metaqa_relation_chain,
    parse_path,
)
from graphhop.kb.store import TripleStore


def test_parse_path_variants():
    assert parse_path("a#r1#b#r2#c#<end>#c") == [("a", "r1", "b"), ("b", "r2", "c")]
    assert parse_path("a#r1#b") == [("a", "r1", "b")]
    with pytest.raises(InputError, match="malformed path"):
        parse_path("a#r1", "f.txt:3")


def test_pathquestion_groups_lines_by_question(tmp_path):
    p = tmp_path / "PQL.txt"
    p.write_text(
        "what is x ?\tA(A/B/)\ts#r#m#r2#A\n"
        "what is x ?\tB(A/B/)\ts#r#m#r2#B\n"
        "other q ?\tC(C/)\ts#r#m#r3#C#<end>#C\n"
    )
    ex = load_pathquestion(p, name="pql")
    assert len(ex) == 2
    assert ex[0].answers == ["A", "B"] and len(ex[0].gold_paths) == 2
    assert ex[0].gold_facts == [("s", "r", "m"), ("m", "r2", "A"), ("m", "r2", "B")]
    assert ex[0].hops == 2 and ex[0].topic_entities == ["s"]
    bad = tmp_path / "bad.txt"
    bad.write_text("q\tA\n")
    with pytest.raises(InputError, match=r"bad.txt:1: expected 3 tab-separated fields, found 2"):
        load_pathquestion(bad)


def test_wc_conjunction_has_two_chains(tmp_path):
    p = tmp_path / "WC-C.txt"
    p.write_text("who plays ?\tAbel\tForward#pp_inverse#Abel#<end>#Abel*Club#pc_inverse#Abel#<end>#Abel\tAbel/\tlocal\tForward/Club\n")
    (ex,) = load_wc2014(p)
    assert ex.gold_paths == [[("Forward", "pp_inverse", "Abel")], [("Club", "pc_inverse", "Abel")]]
    assert ex.topic_entities == ["Forward", "Club"]


def test_inverse_equivalence_and_gold_ids():
    assert equivalent_triples(("x", "r_inverse", "y")) == [("x", "r_inverse", "y"), ("y", "r", "x")]
    store = TripleStore.from_facts([Fact("y", "r", "x", "0"), Fact("a", "b", "c", "1")])
    ex = QAExample("q", "?", ["x"], gold_facts=[("x", "r_inverse", "y")])
    assert gold_fact_ids(ex, store) == {"0"}


def test_metaqa_chain_and_path_search(tmp_path):
    assert metaqa_relation_chain("director_to_movie_to_language") == [("directed_by", False), ("in_language", True)]
    assert metaqa_relation_chain("movie_to_tags") == [("has_tags", True)]
    store = TripleStore.from_facts(
        [
            Fact("M1", "directed_by", "Joel", "0"),
            Fact("M2", "directed_by", "Joel", "1"),
            Fact("M1", "in_language", "Greek", "2"),
            Fact("M2", "in_language", "English", "3"),
        ]
    )
    qa = tmp_path / "qa.txt"
    qa.write_text("what languages are the films directed by [Joel] in\tGreek\n")
    qt = tmp_path / "qt.txt"
    qt.write_text("director_to_movie_to_language\n")
    (ex,) = load_metaqa(qa, qt, hops=2)
    assert ex.topic_entities == ["Joel"] and ex.qtype == "director_to_movie_to_language"
    assert metaqa_gold_paths(ex, store) == [[("M1", "directed_by", "Joel"), ("M1", "in_language", "Greek")]]
    qt.write_text("director_to_movie_to_language\nextra\n")
    with pytest.raises(InputError, match="2 question types for 1 questions"):
        load_metaqa(qa, qt)


@pytest.mark.data
def test_real_datasets_load_and_gold_facts_are_in_the_kb(data_dir):
    from graphhop.datasets.kgqa import kb_path
    from graphhop.kb.loaders import iter_triples

    expected = {"pq-2h": 186, "pq-3h": 492, "pql-2h": 118, "wc-p2": 93, "wc-c": 138, "metaqa-1h": 9992}
    for name, n in expected.items():
        examples = load_dataset(name, "dev", data_dir)
        assert len(examples) == n, name
        if DATASETS[name].family != "metaqa":
            store = TripleStore.from_facts(iter_triples(kb_path(name, data_dir)))
            assert all(gold_fact_ids(e, store) for e in examples), name
    wc_c = load_dataset("wc-c", "dev", data_dir)
    assert all(len(e.gold_paths) >= 2 for e in wc_c)
