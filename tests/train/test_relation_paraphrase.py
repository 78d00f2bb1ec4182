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


@pytest.mark.data
def test_kqapro_and_musique_pairs_name_their_programs_relations(data_dir):
    pairs = name_pairs(data_dir, sources=("kqapro", "musique"))
    assert len(pairs) > 150 and all(p.source == "names" and p.labels == p.relations for p in pairs)
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
