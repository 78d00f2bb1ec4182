"""Relation-aware matching: relation words outside entity names, path-aware features, the fitted head."""

from __future__ import annotations

import numpy as np
import pytest

from graphhop.retrieve.bgr_relation import RELATION_FEATURES, RelationHead, RelationWords, association_table
from graphhop.retrieve.mention_links import MentionIndex

NAMES = {"anna", "rudolf", "enno", "aurich", "female"}
CONCEPT = {"child": 0, "son": 0, "children": 0, "parent": 1, "father": 1, "mother": 1, "born": 2, "birth": 2,
           "place": 2, "gender": 3, "married": 4, "couple": 4}


class WordEncoder:
    """Unit vectors by concept: words of one concept are identical, others orthogonal."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def encode(self, words, convert_to_numpy=True, normalize_embeddings=True):
        self.calls.append(list(words))
        out = np.zeros((len(words), 16), dtype=np.float32)
        for i, w in enumerate(words):
            out[i, CONCEPT.get(w, 5 + sum(map(ord, w)) % 11)] = 1.0
        return out


def _words(table=None) -> RelationWords:
    return RelationWords(MentionIndex(NAMES, {}), WordEncoder(), table)


def test_outside_keeps_the_words_between_entity_names():
    m = MentionIndex(NAMES, {})
    assert m.outside("anna has a child named rudolf.") == ["has", "a", "child", "named"]
    assert m.mentioned("anna has a child named rudolf.") == ["anna", "rudolf"]


def test_relation_words_drop_names_and_function_words_and_are_encoded_once():
    w = _words()
    assert w.words("anna has a child named rudolf.") == ("child",)
    assert w.words("rudolf is of gender female.") == ("gender",)
    assert w.words("the place of birth of anna 's son 's father ?") == ("place", "birth", "son", "father")
    w.vectors(["child", "child", "son"]), w.vectors(["son"])
    assert w.encoder.calls == [["child", "son"]]


DOCS = {"p": "rudolf has a parent named enno.", "c": "rudolf has a child named x.", "g": "rudolf is of gender female.",
        "a": "anna has a child named rudolf.", "o": "enno has a child named aurich."}


def test_left_feature_points_at_the_relation_the_path_has_not_used():
    w = RelationWords(MentionIndex.build(DOCS.items(), NAMES), WordEncoder())
    q = "who is the father of anna 's son ?"
    cands = ["p", "c", "g", "o"]
    step1 = w.features(q, [], cands, DOCS)
    assert step1.shape == (4, len(RELATION_FEATURES))
    assert step1[0, 0] == step1[1, 0] == 1.0 and step1[2, 0] == 0.0        # any: both relations are asked
    step2 = w.features(q, ["a"], cands, DOCS)                                # "son" is used by the path
    assert step2[0, 1] == 1.0 and step2[1, 1] == 0.0                        # left: only "parent" is still asked
    assert step2[1, 2] == 1.0                                               # used: "child" repeats the path
    # next: hop order is son (after the entity) then father; step 1 prefers the child sentence
    assert w.hop_order(q) == ("son", "father")
    assert step1[1, 5] == 1.0 and step1[0, 5] == pytest.approx(np.exp(-0.5))
    assert step2[0, 5] == 1.0 and step2[1, 5] == 0.0
    # link: after "a" the bridge is rudolf: p, c, g name it, o (a look-alike "child" sentence) does not
    assert step2[:, 7].tolist() == [1.0, 1.0, 1.0, 0.0]
    assert step2[:, 8].tolist() == [1.0, 0.0, 0.0, 0.0]                     # linked and the relation still asked


def test_hop_order_reads_of_chains_right_to_left():
    w = _words()
    assert w.hop_order("the place of birth of anna 's son ?") == ("son", "birth", "place")
    assert w.hop_order("what is the mother of the son of anna ?") == ("son", "mother")


def test_association_table_learns_paraphrases_from_training_pairs():
    pairs = [(("couple",), ("married",)), (("couple", "nationality"), ("married", "nationality")),
             (("nationality",), ("nationality",)), (("son",), ("child",)), (("son",), ("child",))]
    table = association_table(pairs)
    assert table["couple"]["married"] == pytest.approx(1.0)               # P(couple | married) = 1, P(couple) = .4
    assert table["son"]["child"] == pytest.approx(1.0)
    assert "child" not in table.get("couple", {})                           # never together
    w = _words(table)
    f = w.features("anna 's couple ?", [], ["m", "c"], {"m": "anna is married to rudolf.", "c": "anna has a child named rudolf."})
    assert f[0, 3] == 1.0 and f[1, 3] == 0.0


def test_relation_head_combines_logits_per_direction_and_round_trips(tmp_path):
    head = RelationHead([0.5, -1.0, 1.0, 2.0] + [0.0] * 9, [1.0, 0.0] + [0.0] * 11, "test", {"son": {"child": 0.9}})
    feats = np.zeros((2, 11), dtype=np.float32)
    feats[0, 0] = feats[1, 1] = 1.0
    out = head.logits(np.array([2.0, 2.0, 4.0]), feats)                    # the third: a question token
    assert out.tolist() == pytest.approx([1.0, 2.0, 1.0])
    assert head.logits(np.array([2.0, 2.0]), feats, "backward").tolist() == [2.0, 2.0]
    head.save(tmp_path / "r.json")
    assert RelationHead.load(tmp_path / "r.json") == head
    (tmp_path / "bad.json").write_text('{"forward": [1], "backward": [1]}')
    from graphhop.core import InputError

    with pytest.raises(InputError, match="weights"):
        RelationHead.load(tmp_path / "bad.json")
    with pytest.raises(InputError, match="not a relation head"):
        RelationHead.load(tmp_path / "missing.json")
