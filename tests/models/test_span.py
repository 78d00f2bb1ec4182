"""Span selector: span labels from char offsets, a tiny model learns a toy mapping, atomic save/load."""

from __future__ import annotations

import json
import random

import pytest
import torch

from graphhop.models.span import CARD_NAME, SpanExample, SpanSelector
from graphhop.train.query_generator import evaluate_spans, train_span_selector

KEYS = ["alpha", "beta", "gamma", "delta"]
FILLER = ["tree", "house", "river", "stone", "cloud", "road", "apple", "chair", "green", "music"]


@pytest.fixture(scope="module")
def tokenizer():
    from transformers import AutoTokenizer

    from graphhop.models.encoder import resolve_model

    return AutoTokenizer.from_pretrained(resolve_model(None))


def tiny_selector(tokenizer, seed: int = 0) -> SpanSelector:
    from transformers import BertConfig, BertForQuestionAnswering

    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
    )
    return SpanSelector(BertForQuestionAnswering(config), tokenizer, {"base_model": "tiny-bert"}, max_length=48)


def toy_examples(n: int, seed: int) -> list[SpanExample]:
    """The span is the one key word in a filler sentence; a sentence without one has the null span."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        words = rng.choices(FILLER, k=rng.randint(4, 9))
        if i % 4 == 3:
            text = " ".join(words)
            out.append(SpanExample("find", text, None, None, str(i)))
            continue
        pos = rng.randrange(len(words) + 1)
        key = rng.choice(KEYS)
        words.insert(pos, key)
        text = " ".join(words)
        start = len(" ".join(words[:pos])) + (1 if pos else 0)
        out.append(SpanExample("find", text, start, start + len(key), str(i)))
    return out


def test_features_map_char_spans_to_tokens(tokenizer) -> None:
    sel = tiny_selector(tokenizer)
    ex = SpanExample("hop 1", "the river stone alpha road", 16, 21)
    assert ex.text == "alpha"
    batch, usable = sel.features([ex, SpanExample("hop 2", "tree", None, None)])
    assert usable == [True, True]
    ids = batch["input_ids"][0].tolist()
    s, e = int(batch["start_positions"][0]), int(batch["end_positions"][0])
    assert tokenizer.decode(ids[s : e + 1]) == "alpha"
    assert int(batch["start_positions"][1]) == 0 and int(batch["end_positions"][1]) == 0  # null = [CLS]
    long = SpanExample("x", "road " * 80 + "alpha", 400, 405)  # cut by max_length=48
    assert sel.features([long])[1] == [False]


def test_tiny_model_learns_toy_mapping(tokenizer, tmp_path) -> None:
    torch.set_num_threads(1)
    sel = tiny_selector(tokenizer)
    train, dev = toy_examples(320, seed=1), toy_examples(60, seed=2)
    before = evaluate_spans(sel, dev)
    result = train_span_selector(
        sel, train, dev, epochs=6, batch_size=16, lr=3e-3, warmup=0.1, seed=0, progress=False, out=tmp_path / "sel"
    )
    after = evaluate_spans(sel, dev)
    assert before["exact"] < 0.3
    assert after["exact"] >= 0.9 and after["null_acc"] >= 0.9
    assert result.steps == 6 * 20 and len(result.history) == 6
    assert result.best["dev_f1"] == pytest.approx(max(r["dev_f1"] for r in result.history))
    # the saved best model predicts the same, and its card says what it was trained on
    card = json.loads((tmp_path / "sel" / CARD_NAME).read_text())
    assert card["steps"] == 120 and card["train_examples"] == 320 and card["base_model"] == "tiny-bert"
    assert card["metrics"]["dev_f1"] == pytest.approx(result.best["dev_f1"])
    loaded = SpanSelector.load(str(tmp_path / "sel"))
    pairs = [(e.first, e.second) for e in dev[:8]]
    assert [p.text for p in loaded.predict(pairs)] == [p.text for p in sel.predict(pairs)]
    assert loaded.max_length == 48


def test_save_replaces_atomically(tokenizer, tmp_path) -> None:
    sel = tiny_selector(tokenizer)
    target = tmp_path / "model"
    sel.save(target, {"steps": 1})
    sel.save(target, {"steps": 2})
    assert json.loads((target / CARD_NAME).read_text())["steps"] == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]  # no temp or backup dirs left
    (tmp_path / "file").write_text("x")
    from graphhop.core import InputError

    with pytest.raises(InputError):
        sel.save(tmp_path / "file")


def test_minilm_gets_a_fresh_head() -> None:
    sel = SpanSelector.from_pretrained(None, max_length=64)
    assert sel.card["base_model"] == "sentence-transformers/all-MiniLM-L6-v2"
    [pred] = sel.predict([("hop 1", "Lilu is a demon of Akkadian mythology")], max_answer_tokens=4)
    assert pred.text and pred.text in "Lilu is a demon of Akkadian mythology"
    assert len(sel.tokenizer.tokenize(pred.text)) <= 4
