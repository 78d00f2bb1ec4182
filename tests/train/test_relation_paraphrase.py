"""Question <-> relation-name paraphrase pairs for the text relation matcher (graphhop.train.relation_paraphrase)."""

from __future__ import annotations

import pytest

from graphhop.train.relation_paraphrase import METAQA_RELATIONS, name_pairs, relation_name
from graphhop.train.text_relation import held_out


def test_relation_names_are_read_as_words():
    assert relation_name("__people__person__place_of_birth_inverse") == "place of birth"
    assert relation_name("plays_in_club") == "plays in club"
    assert relation_name("located in the administrative territorial entity") == "located in the administrative territorial entity"
    assert relation_name("directed_by") == "directed by"
    assert relation_name("") == "" and relation_name("__") == "" and relation_name("_inverse") == ""


def test_kopl_names_that_strip_to_nothing_are_skipped(tmp_path, monkeypatch):
    import json

    from graphhop.datasets import builder
    from graphhop.train.relation_paraphrase import _kqapro_questions

    path = tmp_path / builder.KQAPRO_PROGRAMS
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps([{"sample_id": "a", "question": "Who?", "answer": "x", "program": [],
                                 "kopl": "Find( ).Relate( ,forward).Relate(capital of,backward).What()"}]))
    monkeypatch.setattr(builder, "kqapro_splits", lambda kb, root, programs=None: {"a": "train"})
    assert _kqapro_questions(tmp_path) == [("Who?", [], ["capital of"])]


@pytest.mark.data
def test_kqapro_and_musique_pairs_name_their_programs_relations(data_dir):
    pairs = name_pairs(data_dir, sources=("kqapro", "musique"))
    assert len(pairs) > 100 and all(p.source == "names" and p.labels == p.relations for p in pairs)
    assert all(w == w.lower() for p in pairs for w in p.words)
    names = {n for p in pairs for n in p.labels}
    assert {"place of birth", "population", "country"} <= names
    for p in pairs:  # a pair of trained relations never sees a held-out name, even as a negative
        assert set(p.negatives).isdisjoint(p.labels)
        if not any(held_out(n) for n in p.labels):
            assert not any(held_out(n) for n in p.negatives)


@pytest.mark.data
def test_metaqa_pairs_come_from_the_fit_half_only(data_dir):
    from graphhop.datasets.kgqa import load_dataset
    from graphhop.kb.verbalize import normalize_question
    from graphhop.kgqa.train import metaqa_part
    from graphhop.train.relation_paraphrase import _kb_questions

    items = _kb_questions("metaqa", data_dir, 0)
    report = {normalize_question(ex.question) for h in ("1h", "2h", "3h") for ex in load_dataset(f"metaqa-{h}", "dev", data_dir)
              if metaqa_part(ex.question) == "report"}
    assert len(items) > 10000 and not report & {q for q, _, _ in items}
    assert {r for _, _, rels in items for r in rels} <= set(METAQA_RELATIONS.values())


@pytest.mark.data
def test_kqapro_pairs_come_from_the_builders_train_split_only(data_dir):
    from graphhop.datasets.builder import KQAPRO_PROGRAMS, kqapro_splits
    from graphhop.datasets.kqapro import load_programs
    from graphhop.train.relation_paraphrase import _kqapro_questions

    split = kqapro_splits("wc-c", data_dir)
    held = {p.question for p in load_programs(data_dir / KQAPRO_PROGRAMS) if split.get(p.id) in ("dev", "test")}
    used = {q for q, _, _ in _kqapro_questions(data_dir)}
    assert len(held) >= 20 and len(used) >= 60 and not used & held
    assert used == {p.question for p in load_programs(data_dir / KQAPRO_PROGRAMS) if split.get(p.id) == "train"}
