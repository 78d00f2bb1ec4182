"""Span reader: graph-order linearization, answer spans, a tiny reader learns a toy set; the seq2seq reader."""

from __future__ import annotations

import json
import random

import pytest
import torch

from graphhop.graph import EvidenceGraph
from graphhop.models.span import CARD_NAME, SpanExample, SpanSelector
from graphhop.read.span import SpanReader, examples_from_records, find_answer_span, graph_order, linearize
from graphhop.train.reader import evaluate_reader, train_span_reader

CITIES = ["paris", "rome", "berlin", "madrid", "vienna", "prague", "oslo", "dublin", "lisbon", "warsaw"]
COUNTRIES = ["france", "italy", "germany", "spain", "austria", "czechia", "norway", "ireland", "portugal", "poland"]


@pytest.fixture(scope="module")
def tokenizer():
    from transformers import AutoTokenizer

    from graphhop.models.encoder import resolve_model

    return AutoTokenizer.from_pretrained(resolve_model(None))


def tiny_reader(tokenizer) -> SpanReader:
    from transformers import BertConfig, BertForQuestionAnswering

    torch.manual_seed(0)
    config = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=96)
    return SpanReader(SpanSelector(BertForQuestionAnswering(config), tokenizer, {"base_model": "tiny-bert"}, max_length=80))


def chain_graph(question: str, texts: list[str]) -> EvidenceGraph:
    g = EvidenceGraph(question)
    prev = g.root
    for i, t in enumerate(texts):
        g.add_evidence(f"e{i}", t, [["x", "r", str(i)]])
        g.add_edge(prev, f"e{i}")
        prev = f"e{i}"
    return g


def toy_set(n: int, seed: int) -> list[SpanExample]:
    """'what is the capital of X?' over a 2-node chain (a distractor fact, then the capital fact)."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        j, d = rng.sample(range(len(CITIES)), 2)
        text, _ = linearize(chain_graph("q", [f"{CITIES[d]} is a city in {COUNTRIES[d]}",
                                             f"the capital of {COUNTRIES[j]} is {CITIES[j]}"]))
        start = text.rindex(CITIES[j])
        out.append(SpanExample(f"what is the capital of {COUNTRIES[j]}?", text, start, start + len(CITIES[j]), str(i)))
    return out


def test_linearize_follows_graph_order() -> None:
    g = EvidenceGraph("q")
    for n, t in [("b", "second fact"), ("a", "first fact"), ("c", "Third fact.")]:
        g.add_evidence(n, t, [["x", "r", n]])
    g.add_edge("Q", "a"), g.add_edge("a", "b"), g.add_edge("Q", "c")
    assert graph_order(g) == ["a", "c", "b"]
    text, spans = linearize(g)
    assert text == "first fact. Third fact. second fact."
    assert [(n, text[a:z]) for n, a, z in spans] == [("a", "first fact."), ("c", "Third fact."), ("b", "second fact.")]


def test_find_answer_span_prefers_answer_bearing_nodes() -> None:
    text = "enno iii count of ostfriesland had a son. rudolf has a parent named enno iii count of ostfriesland."
    last = text.rindex("enno")
    assert find_answer_span(text, ["enno_iii_count_of_ostfriesland"]) == (0, 30)
    assert find_answer_span(text, ["enno_iii_count_of_ostfriesland"], prefer=[(41, len(text))]) == (last, last + 30)
    assert find_answer_span(text, ["ennox"]) is None


def test_examples_from_builder_records(tmp_path) -> None:
    g = chain_graph("the parent of anna 's son ?", ["anna has a child named rudolf.", "rudolf has a parent named enno iii."])
    rec = {"id": "r1", "question": g.question, "answers": ["enno_iii"], "graph": g.to_json(),
           "evidence": [{"id": "e0", "text": "anna has a child named rudolf."}, {"id": "e1", "text": "rudolf has a parent named enno iii."},
                        {"id": "d0", "text": "enno iii was a count.", "facts": [["enno_iii", "is", "count"]]}]}
    bad = {**rec, "id": "r2", "answers": ["nobody"]}
    path = tmp_path / "train.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in (rec, bad)) + "\n")
    gold, skipped = examples_from_records(path)
    assert skipped == 1 and len(gold) == 1
    assert gold[0].second == "anna has a child named rudolf. rudolf has a parent named enno iii."
    assert gold[0].text == "enno iii"
    pool, _ = examples_from_records(path, evidence="pool")
    text = pool[0].second
    assert sorted(text.split(". ")) == sorted((gold[0].second + " enno iii was a count.").split(". "))
    sink = text.index("rudolf has a parent named enno iii.")
    assert pool[0].text == "enno iii" and pool[0].start > sink  # the gold (sink) mention, not the distractor's


def test_tiny_reader_learns_toy_set(tokenizer, tmp_path) -> None:
    torch.set_num_threads(1)
    reader = tiny_reader(tokenizer)
    train, dev = toy_set(320, seed=1), toy_set(48, seed=2)
    before = evaluate_reader(reader, dev)
    result = train_span_reader(reader, train, dev, out=tmp_path / "reader", epochs=5, batch_size=16, lr=3e-3,
                               warmup=0.1, progress=False)
    after = evaluate_reader(reader, dev)
    assert before["em"] < 0.2
    assert after["em"] >= 0.9
    assert result.steps == 100 and [r["epoch"] for r in result.history] == [0, 1, 2, 3, 4, 5]
    assert result.best["dev_f1"] == pytest.approx(max(r["dev_f1"] for r in result.history))
    card = json.loads((tmp_path / "reader" / CARD_NAME).read_text())
    assert card["task"] == "span-reader" and card["train_examples"] == 320
    loaded = SpanReader.load(str(tmp_path / "reader"))
    q = "what is the capital of austria?"
    graph = chain_graph(q, ["oslo is a city in norway", "the capital of austria is vienna"])
    ans = loaded.answer(q, graph)
    assert ans.text == "vienna" and ans.support == ("e1",)


def test_seq2seq_reader_with_a_tiny_local_model(tokenizer, tmp_path) -> None:
    from transformers import T5Config, T5ForConditionalGeneration

    from graphhop.read.generative import Seq2SeqReader

    torch.manual_seed(0)
    config = T5Config(vocab_size=tokenizer.vocab_size, d_model=16, d_kv=8, d_ff=32, num_layers=1, num_heads=2,
                      decoder_start_token_id=tokenizer.pad_token_id, pad_token_id=tokenizer.pad_token_id,
                      eos_token_id=tokenizer.sep_token_id)
    T5ForConditionalGeneration(config).save_pretrained(tmp_path / "t5")
    tokenizer.save_pretrained(tmp_path / "t5")
    reader = Seq2SeqReader(str(tmp_path / "t5"), max_new_tokens=4)
    graph = chain_graph("q", ["the capital of austria is vienna"])
    assert reader.build_input("capital of austria?", graph) == "question: capital of austria? context: the capital of austria is vienna."
    [a, b] = reader.predict(["capital of austria?", "capital of norway?"], [graph, graph])
    assert isinstance(a.text, str) and a.score <= 0.0  # a mean log-probability
    assert reader.answer("capital of austria?", graph).text == a.text  # greedy decoding is deterministic
