"""The text relation matcher (relation word ~ edge label) and its trainer's pieces (no encoder download)."""

from __future__ import annotations

import numpy as np
import pytest

from graphhop.core import InputError
from graphhop.read.relation_matcher import RelationMatcher


class _KeyEncoder:
    """A unit vector per text picked by a keyword, so cosines are known: 1 for the same key, 0 otherwise."""

    KEYS = ("lead", "born", "money")

    def encode(self, texts, **_):
        out = np.zeros((len(texts), 4), dtype=np.float32)
        for i, t in enumerate(texts):
            hit = [k for k, key in enumerate(self.KEYS) if key in t]
            out[i, hit[0] if hit else 3] = 1.0
        return out


def test_matches_pairs_at_the_threshold_and_round_trips(tmp_path):
    m = RelationMatcher(np.eye(4, dtype=np.float32), 0.9, _KeyEncoder(), {"note": "toy"})
    assert m.matches(["lead"], ["has been leading by", "was born in", ""]) == {("lead", "has been leading by")}
    assert m.similarity(["born"], ["born in", "money of"]).round(3).tolist() == [[1.0, 0.0]]
    m.save(tmp_path / "m")
    back = RelationMatcher.load(_KeyEncoder(), tmp_path / "m")
    assert back.threshold == 0.9 and back.card["note"] == "toy" and np.allclose(back.weight, np.eye(4))
    with pytest.raises(InputError, match="not a text relation matcher"):
        RelationMatcher.load(_KeyEncoder(), tmp_path)
    RelationMatcher(2 * np.eye(4, dtype=np.float32), 0.5, None, {}).save(tmp_path / "m")  # one atomic dir, replaced
    assert sorted(p.name for p in (tmp_path / "m").iterdir()) == ["card.json", "matcher.npz"]
    assert RelationMatcher.load(None, tmp_path / "m").threshold == 0.5
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("keep", encoding="utf-8")
    with pytest.raises(InputError, match="refusing to replace"):
        m.save(tmp_path / "other")
    assert (tmp_path / "other" / "notes.txt").read_text(encoding="utf-8") == "keep"


def test_builder_labels_and_carve_are_deterministic():
    import random

    from graphhop.datasets.d2t import TemplateDataToText
    from graphhop.train.text_relation import _between, _label, base_relation, held_out

    d2t = TemplateDataToText()
    gold = ("m", "directed_by", "d")
    assert _label(d2t, [gold], gold, random.Random(0)) == "was directed by"
    facts = [gold, ("m", "release_year", "1999"), ("m", "in_language", "English")]
    labels = {_label(d2t, facts, gold, random.Random(s)) for s in range(20)}
    assert "was directed by" in labels and any(lab.endswith(" and was directed by") for lab in labels)
    assert base_relation("plays_in_club_inverse") == "plays_in_club"
    assert held_out("plays_in_club") == held_out("plays_in_club_inverse")
    assert _between("Since 2011 Harnvik has been headed by Joran Pellet.", "Harnvik", "Joran Pellet") == "has been headed by"
    assert _between("It was built by Tobias Quell.", "Harnvik", "Tobias Quell") == "it was built by"
    assert _between("It opened in 1894.", "Harnvik", "Tobias Quell") is None


def test_fit_map_pulls_a_word_to_its_relation_label():
    from graphhop.train.text_relation import Pair, carve_scores, fit_map

    rng = np.random.default_rng(0)
    vec = {t: v / np.linalg.norm(v) for t, v in zip(["coach", "managed by", "born in", "plays at"],
                                                   rng.normal(size=(4, 8)).astype(np.float32))}
    pairs = [Pair(("coach",), ["managed by"], ["manager"], ["born in", "plays at"])] * 8
    before = carve_scores(pairs, vec, np.eye(8, dtype=np.float32))
    weight = fit_map(pairs, vec, epochs=30, lr=0.05, reg=0.0, batch=8)
    after = carve_scores(pairs, vec, weight)
    assert after["rank1"] == 1.0 and after["f1"] >= before["f1"]



def test_a_card_without_threshold_is_one_line(tmp_path):
    RelationMatcher(np.eye(4, dtype=np.float32), 0.5, None, {}).save(tmp_path / "m")
    (tmp_path / "m" / "card.json").write_text('{"note": "no threshold"}', encoding="utf-8")
    with pytest.raises(InputError, match="no numeric 'threshold'"):
        RelationMatcher.load(None, tmp_path / "m")


def test_a_shape_mismatched_encoder_delta_is_one_line(tmp_path):
    import json

    from graphhop.read.relation_matcher import tuned_encoder
    from graphhop.train.relation_encoder import fresh_model

    name = next(n for n, _ in fresh_model().named_parameters())
    np.savez(tmp_path / "encoder.npz", **{name: np.zeros((3, 5), dtype=np.float32)})
    with pytest.raises(InputError, match=f"parameter {name} has shape \\(3, 5\\)"):
        tuned_encoder(tmp_path / "encoder.npz")
    np.savez(tmp_path / "encoder.npz")  # no parameters changed: the bundled MiniLM, its own vector size
    (tmp_path / "card.json").write_text(json.dumps({"threshold": 0.7}), encoding="utf-8")
    m = RelationMatcher.load(None, tmp_path)
    assert m.weight.shape == (384, 384) and m.threshold == 0.7
