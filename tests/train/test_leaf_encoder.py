"""Fine-tuning the leaf encoder (EntailmentBank task 3): batches, the multi-positive loss, a tiny run, the
cache key and the fallback when setup did not train it."""

from __future__ import annotations

import json

import numpy as np
import pytest


def test_batch_documents_put_gold_rows_first_and_never_a_doc_as_a_hard_negative():
    from graphhop.train.leaf_encoder import batch_documents

    golds = [[0, 1], [1, 2], [], [3]]
    negatives = [[1, 4, 5], [6, 0], [7], [0, 8]]
    docs = batch_documents([0, 1], golds, negatives, hard=1, rng=np.random.default_rng(0))
    assert docs[:3] == [0, 1, 2] and len(docs) == 5 and len(set(docs)) == 5      # one hard negative per tree
    assert set(docs[3:]) <= {4, 5, 6}                                            # never a batch document (0, 1)
    assert batch_documents([0, 1], golds, negatives, 1, np.random.default_rng(0)) == docs   # seeded
    assert batch_documents([3], golds, [[3]] * 4, 1, np.random.default_rng(0)) == [3]       # nothing left to draw


def test_loss_falls_when_the_gold_leaves_score_higher_and_ignores_other_positives():
    import torch

    from graphhop.train.leaf_encoder import _loss

    q = torch.nn.functional.normalize(torch.tensor([[1.0, 0.0, 0.0]]), dim=-1)
    docs_good = torch.nn.functional.normalize(torch.tensor([[1.0, 0.1, 0], [0.9, 0.2, 0], [0, 1.0, 0]]), dim=-1)
    docs_bad = torch.nn.functional.normalize(torch.tensor([[0, 1.0, 0.1], [0.1, 0.9, 0], [1.0, 0, 0]]), dim=-1)
    mask = torch.tensor([[True, True, False]])
    assert float(_loss(q, docs_good, mask, 20.0)) < 0.01 < float(_loss(q, docs_bad, mask, 20.0))
    # two identical positives: each is scored against the negative only, so neither pushes the other down
    twins = torch.nn.functional.normalize(torch.tensor([[1.0, 0, 0], [1.0, 0, 0], [0, 1.0, 0]]), dim=-1)
    alone = torch.nn.functional.normalize(torch.tensor([[1.0, 0, 0], [0, 1.0, 0]]), dim=-1)
    assert abs(float(_loss(q, twins, mask, 20.0)) - float(_loss(q, alone, torch.tensor([[True, False]]), 20.0))) < 1e-6


def test_cache_key_follows_the_recipe(tmp_path, monkeypatch):
    from graphhop.core import InputError
    from graphhop.train.leaf_encoder import EncoderRecipe, leaf_encoder_dir

    monkeypatch.setenv("GRAPHHOP_CACHE", str(tmp_path / "cache"))
    train = tmp_path / "data" / "entailmentbank" / "angles" / "task_1" / "train.jsonl"
    with pytest.raises(InputError, match="no such file"):
        leaf_encoder_dir(tmp_path / "data")
    train.parent.mkdir(parents=True)
    train.write_text("{}\n", encoding="utf-8")
    a, b = leaf_encoder_dir(tmp_path / "data"), leaf_encoder_dir(tmp_path / "data", EncoderRecipe(epochs=1))
    assert a != b and a == leaf_encoder_dir(tmp_path / "data") and a.parent == tmp_path / "cache" / "encoders"


@pytest.mark.slow
def test_a_tiny_fine_tune_saves_a_model_that_ranks_the_gold_leaf_higher(tmp_path):
    from sentence_transformers import SentenceTransformer

    from graphhop.train.leaf_encoder import EncoderRecipe, fine_tune_leaf_encoder

    corpus = ["a constellation contains stars", "a bird has feathers", "water boils at 100 degrees celsius",
              "a fish lives in water"]
    queries = ["leo appears in different areas of the sky", "a robin can fly"]
    golds, negatives = [[0], [1]], [[2, 3], [2, 3]]
    recipe = EncoderRecipe(epochs=3, batch=2, lr=2e-4, train_layers=1)

    def margin(model) -> float:
        q, d = model.encode(queries, normalize_embeddings=True), model.encode(corpus, normalize_embeddings=True)
        s = q @ d.T
        return float(s[0, 0] - s[0, 2:].max() + s[1, 1] - s[1, 2:].max())

    from graphhop.models.encoder import resolve_model

    before = margin(SentenceTransformer(resolve_model(None), device="cpu"))
    card = fine_tune_leaf_encoder(queries, golds, corpus, negatives, tmp_path / "enc", recipe, progress=False)
    assert card["steps"] == 3 and card["trees"] == 2 and card["loop"] == "train.common.run_epoch"
    assert json.loads((tmp_path / "enc" / "graphhop_card.json").read_text())["recipe"]["train_layers"] == 1
    assert margin(SentenceTransformer(str(tmp_path / "enc"), device="cpu")) > before


def test_without_a_cached_encoder_the_frozen_index_and_shipped_head_are_used_with_a_warning(tmp_path, monkeypatch):
    from graphhop.retrieve.leaves import DEFAULT_HEAD, default_head
    from graphhop.train.leaf_encoder import open_leaf_index

    monkeypatch.setenv("GRAPHHOP_CACHE", str(tmp_path / "cache"))
    eb = tmp_path / "data" / "entailmentbank"
    (eb / "angles" / "task_1").mkdir(parents=True)
    (eb / "angles" / "task_1" / "train.jsonl").write_text("{}\n", encoding="utf-8")
    (eb / "worldtree_corpus_sentences_extended.json").write_text(json.dumps(
        {"ET_addon:0": "DUMMY", "a": "a constellation contains stars", "b": "a bird has feathers"}), encoding="utf-8")
    with pytest.warns(UserWarning, match="no fine-tuned leaf encoder"):
        index = open_leaf_index(tmp_path / "data", tmp_path / "idx")
    assert default_head(index) == DEFAULT_HEAD and index.has_dense and sorted(d.id for d in index.docs.docs) == ["a", "b"]
    frozen = open_leaf_index(tmp_path / "data", tmp_path / "idx", fine_tuned=False)
    assert frozen.path == index.path


def test_the_loop_is_in_the_key_and_loop_1_names_the_session_4_cache(tmp_path, monkeypatch):
    import hashlib
    from dataclasses import asdict

    from graphhop.core import InputError
    from graphhop.train.leaf_encoder import EncoderRecipe, ensure_leaf_encoder, leaf_encoder_dir

    monkeypatch.setenv("GRAPHHOP_CACHE", str(tmp_path / "cache"))
    train = tmp_path / "data" / "entailmentbank" / "angles" / "task_1" / "train.jsonl"
    train.parent.mkdir(parents=True)
    train.write_text("{}\n", encoding="utf-8")
    old = {k: v for k, v in asdict(EncoderRecipe()).items() if k != "loop"}  # session 4's recipe had no loop
    digest = hashlib.sha1(json.dumps(old, sort_keys=True).encode())
    digest.update(str(train.stat().st_size).encode())
    session4 = leaf_encoder_dir(tmp_path / "data", EncoderRecipe(loop=1))
    assert session4.name == f"eb-leaves-{digest.hexdigest()[:10]}" != leaf_encoder_dir(tmp_path / "data").name
    with pytest.raises(InputError, match="only loop 2"):
        ensure_leaf_encoder(None, tmp_path / "data", EncoderRecipe(loop=1), progress=False)
