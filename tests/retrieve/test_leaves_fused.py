"""The leaf head's greedy steps with the leaf cross-encoder mixed into their score and stop (a fake cross-encoder:
its logit is fixed per sentence, so each expectation follows from the numbers)."""

from __future__ import annotations

import json

import pytest

from graphhop.core import InputError

from .test_leaves import CORPUS, QUERY, _head, tiny_index  # noqa: F401 (fixture)

#: The fake cross-encoder's logit per sentence: it likes s4 and s5 (unrelated to QUERY), dislikes the rest.
LOGITS = {"a bird has feathers": 4.0, "water boils at 100 degrees celsius": 2.0}


@pytest.fixture
def fake_cross_encoder(monkeypatch, tmp_path):
    """A reranker dir with a card and a cross-encoder whose logit is :data:`LOGITS` (else -4); counts the pairs."""
    from graphhop.models import cross_encoder

    scored: list[tuple[str, str]] = []

    def score_pairs(model, tokenizer, queries, texts, batch_size=64, max_length=96):
        scored.extend(zip(queries, texts))
        return [LOGITS.get(t, -4.0) for t in texts]

    monkeypatch.setattr(cross_encoder, "load_sequence_classifier", lambda name: (None, None))
    monkeypatch.setattr(cross_encoder, "score_pairs", score_pairs)
    (tmp_path / "graphhop_card.json").write_text(json.dumps({"recipe": {"max_length": 64}}), encoding="utf-8")
    return tmp_path, scored


def _ids(retriever) -> list[str]:
    return [h.id for h in retriever.select([QUERY])[0][0]]


def test_mix_zero_is_the_head_alone_and_scores_nothing(tiny_index, fake_cross_encoder):
    from graphhop.retrieve.leaves import LeafRetriever
    from graphhop.retrieve.leaves_fused import FusedLeafRetriever

    model_dir, scored = fake_cross_encoder
    fused = FusedLeafRetriever(tiny_index, model_dir, _head(0.5, 4), depth=6, mix=0.0)
    assert _ids(fused) == _ids(LeafRetriever(tiny_index, _head(0.5, 4))) == ["s3", "s2", "s1"]
    assert scored == []


def test_the_cross_encoder_moves_the_pick_and_the_stop_and_scores_each_pair_once(tiny_index, fake_cross_encoder):
    from graphhop.retrieve.leaves_fused import FusedLeafRetriever

    model_dir, scored = fake_cross_encoder
    fused = FusedLeafRetriever(tiny_index, model_dir, _head(0.5, 4), depth=6, mix=1.0)
    hits = fused.select([QUERY])[0][0]
    assert [h.id for h in hits] == ["s4", "s5"]            # by the cross-encoder alone: p(s4) .98, p(s5) .88
    assert hits[1].score == pytest.approx(1 / (1 + 2.718281828 ** -2.0), abs=1e-4)
    assert len(scored) == len(set(scored)) == 6            # every sentence once, cached over the steps
    assert _ids(FusedLeafRetriever(tiny_index, model_dir, _head(0.5, 4), depth=6, mix=1.0, threshold=0.9)) == ["s4"]
    half = FusedLeafRetriever(tiny_index, model_dir, _head(0.5, 4), depth=1, mix=0.5)
    assert _ids(half)[0] == "s3"                           # depth 1: only the head's best is rescored


def test_choose_fusion_stores_the_carve_rule_and_a_new_retriever_reads_it(tiny_index, fake_cross_encoder):
    from graphhop.retrieve.leaves_fused import FusedLeafRetriever, fusion_path
    from graphhop.train.leaf_reranker import choose_fusion
    from graphhop.train.leaves import LeafExample

    model_dir, _ = fake_cross_encoder
    with pytest.warns(UserWarning, match="no fusion rule"):
        FusedLeafRetriever(tiny_index, model_dir, _head(0.5, 4))
    fused = FusedLeafRetriever(tiny_index, model_dir, _head(0.5, 4), depth=10, mix=0.0)
    rule = choose_fusion(fused, [LeafExample("a", QUERY, ["s4", "s5"], 2)])     # gold = what the cross-encoder likes
    assert rule["mix"] > 0 and rule["f1"] == 1.0 and rule["best_f1_by_mix"]["0.0"] < 1.0
    assert rule["best_rule_by_mix"]["0.0"]["mix"] == 0.0 and rule["best_rule_by_mix"][str(rule["mix"])]["f1"] == 1.0
    assert json.loads(fusion_path(model_dir, tiny_index).read_text())["mix"] == rule["mix"]
    again = FusedLeafRetriever(tiny_index, model_dir, _head(0.5, 4))
    assert (again.depth, again.mix, again.threshold, again.max_leaves) == (
        rule["depth"], rule["mix"], rule["threshold"], rule["max_leaves"])
    assert sorted(_ids(again)) == ["s4", "s5"]
    from graphhop.pipeline.registry import build_pipeline

    _head(0.5, 4).save(model_dir / "head")
    pipe = build_pipeline("leaves", tiny_index, leaf_head=str(model_dir / "head"), leaf_fusion=str(model_dir))
    assert sorted(pipe.retrieve_graph([QUERY])[0].evidence_ids) == ["s4", "s5"]      # `ask --method leaves` runs it
    rule = choose_fusion(fused, [LeafExample("a", QUERY, ["s3", "s1", "s2"], 3)])  # gold = the head's: mix 0 wins ties
    assert rule["mix"] == 0.0 and rule["f1"] == 1.0
    from graphhop.eval.leaves import leaf_fused

    record = leaf_fused(tiny_index, None, str(model_dir), head=str(model_dir / "head"), mix=1.0)  # for the record
    assert record.mix == 1.0 and record.depth == rule["best_rule_by_mix"]["1.0"]["depth"] and record.rule["mix"] == 0.0
    with pytest.raises(InputError, match="fusion mix 0.3: not in the carve grid"):
        leaf_fused(tiny_index, None, str(model_dir), head=str(model_dir / "head"), mix=0.3)


def test_a_missing_reranker_dir_is_one_line(tiny_index, tmp_path):
    from graphhop.retrieve.leaves_fused import FusedLeafRetriever

    with pytest.raises(InputError, match="no leaf reranker there"):
        FusedLeafRetriever(tiny_index, tmp_path / "nope", _head())
