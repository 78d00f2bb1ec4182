"""The walk's chain reranker (graphhop.read.chain_rerank): chain texts, reordering with the margin ladder kept,
training lists from the walk's own reads, the option's parsing."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from graphhop.core import GraphhopError
from graphhop.read.chain_rerank import TextChainReranker, chain_text
from graphhop.read.sentence_graph import Edge
from graphhop.read.walk import WalkReader
from graphhop.train.text_reranker import reading_labels, training_lists

_SPEC = importlib.util.spec_from_file_location("walk_ranker_tests", Path(__file__).with_name("test_walk_ranker.py"))
_ranker = sys.modules.setdefault("walk_ranker_tests", importlib.util.module_from_spec(_SPEC))
_SPEC.loader.exec_module(_ranker)  # the walk ranker tests' two passages, over the walk tests' fakes
_Doc, _Search, _WordEncoder, DOCS = _ranker._Doc, _ranker._Search, _ranker._WordEncoder, _ranker.DOCS
QUESTION = "Where was the founder of Harnvik Observatory born?"


class _Fake:
    """Stands in for the trained cross-encoder: a high logit for a chain whose bracketed answer is ``right``."""

    def __init__(self, right: str) -> None:
        self.right, self.seen = right, []

    def logits(self, question: str, texts):
        self.seen += list(texts)
        return np.array([8.0 if f"[{self.right}]" in t else 0.0 for t in texts])


def _reader(**options) -> WalkReader:
    return WalkReader(_Search(DOCS), encoder=_WordEncoder(), matcher=False, **options)


def test_chain_text_reads_the_hops_in_order_with_each_reached_entity_marked():
    e1 = Edge("Harnvik Observatory", "Elena Marsk", "o1", "It was founded by Elena Marsk.", frozenset({"found"}))
    e2 = Edge("Elena Marsk", "Corran", "o2", "Elena Marsk was born in Corran.", frozenset({"born"}))
    assert chain_text([e1, e2], "Corran") == ("Corran | Harnvik Observatory : It was founded by [Elena Marsk]. | "
                                              "Elena Marsk was born in [Corran].")
    long = Edge("X", "Y", "d", " ".join(f"w{i}" for i in range(30)) + " Y and then some more words here.", frozenset())
    assert chain_text([long], "Y", before=3, after=2) == "Y | X : w27 w28 w29 [Y] and then"  # cut around the bracket
    same = Edge("Harnvik Observatory", "1887", "o1", "It was founded in 1887 by Elena Marsk.", frozenset())
    both = Edge("1887", "Elena Marsk", "o1", same.sentence, frozenset())
    assert chain_text([same, both], "Elena Marsk").count("founded") == 1  # one sentence, read twice: once
    assert "[1887]" in chain_text([same, both], "Elena Marsk") and "[Elena Marsk]" in chain_text([same, both], "x")


def test_the_reranker_puts_the_right_chain_first_and_keeps_the_walks_margins():
    _, walk = _reader().read(QUESTION)
    best = max(walk, key=lambda r: r.margin)
    texts = [r.text for r in walk]
    assert best.text != "Corran" and "Corran" in texts  # the walk's first chain is wrong, the right one is a candidate
    reader = _reader()
    reader.reranker = TextChainReranker(_Fake("Corran"), k=8, w=0.5)
    _, ranked = reader.read(QUESTION)
    assert sorted(r.text for r in ranked) == sorted(texts)
    assert ranked[0].text == "Corran" and max(ranked, key=lambda r: r.margin).text == "Corran"
    assert sorted(r.margin for r in ranked) == pytest.approx(sorted(r.margin for r in walk))  # the ladder kept
    assert any("[Corran]" in t for t in reader.reranker.scorer.seen)
    tiny = _reader()
    tiny.reranker = TextChainReranker(_Fake("Corran"), k=8, w=0.0)  # weight 0: the walk's order
    assert tiny.read(QUESTION)[1] == walk
    claim = "Harnvik Observatory was founded by Elena Marsk"
    kept = _reader()
    kept.reranker = TextChainReranker(_Fake("Corran"), k=8, w=0.5, queries=False)  # a claim's read: as walked
    assert kept.read(QUESTION, query=claim)[1] == _reader().read(QUESTION, query=claim)[1]
    assert reader.read(QUESTION, query=claim)[1][0].text == "Corran"  # by default a claim's read is reordered too
    assert kept.read(QUESTION)[1][0].text == "Corran"  # the question's own read still reordered


def test_only_the_best_k_are_reordered():
    _, walk = _reader().read(QUESTION)
    order = sorted(range(len(walk)), key=lambda i: -walk[i].margin)
    at = next(j for j, i in enumerate(order) if walk[i].text == "Corran")
    reader = _reader()
    reader.reranker = TextChainReranker(_Fake("Corran"), k=at, w=0.5)  # Corran just below the reordered ones
    assert at >= 1 and max(reader.read(QUESTION)[1], key=lambda r: r.margin).text == walk[order[0]].text


def test_recorded_reads_make_training_lists_with_gold_and_hard_negatives():
    record: list = []
    reader = _reader()
    reader.reranker = TextChainReranker(None, record=record)
    _, walk = reader.read(QUESTION)
    assert walk == _reader().read(QUESTION)[1]  # recording alone changes nothing
    (read,) = record
    row = {"set": "s", "id": "q1", "type": "plain", "question": QUESTION, "gold": ["Corran"],
           "evidence": ["o1", "o2"], "reads": record}
    y = reading_labels(row, read)
    assert sum(y) >= 1 and all(read["texts"][i] == "Corran" for i in range(len(y)) if y[i])
    (lst,) = training_lists([row])
    assert len(lst["chains"]) == len(walk) and all("[Corran]" in lst["chains"][g] or "Corran |" in lst["chains"][g]
                                                   for g in lst["gold"])
    assert training_lists([{**row, "evidence": ["o1", "o2", "o9"]}]) == []  # no gold chain: no list
    assert training_lists([{**row, "type": "comparison"}]) == []  # only plain and list questions are labelled


def test_the_walk_option_parses_and_a_folder_without_weights_is_one_line(tmp_path):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from text_ask_eval import walk_options

    assert walk_options(["reranker=runs/x", "rerank_k=4", "rerank_w=0.25", "rerank_claims=false"]) == {
        "reranker": "runs/x", "rerank_k": 4, "rerank_w": 0.25, "rerank_claims": False}
    assert _reader(reranker="off").reranker is None and _reader().reranker is None
    with pytest.raises(GraphhopError, match="top.npz"):
        _reader(reranker=str(tmp_path))


def test_the_retrain_command_trains_on_the_walks_own_lists_and_refuses_a_regression_suite(tmp_path):
    import json

    from typer.testing import CliRunner

    from graphhop.cli import app

    films = Path(__file__).resolve().parents[1] / "pipeline" / "data" / "films"
    out = tmp_path / "model"
    res = CliRunner().invoke(app, ["train", "text-reranker", "--set", str(films), "--out", str(out), "--work",
                                   str(tmp_path / "work"), "--epochs", "1", "--k", "4", "--w", "0.25"])
    assert res.exit_code == 0, res.output
    card = json.loads((out / "config.json").read_text())
    assert card["layers"] == 1 and card["k"] == 4 and card["lists"] >= 3 and len(card["loss"]) == 1
    assert (tmp_path / "work" / "films-chains.pkl").exists()  # the walk's reads, kept for the next run
    loaded = TextChainReranker.load(out)
    assert (loaded.k, loaded.w) == (4, 0.25) and (out / "top.npz").stat().st_size < 5_000_000
    bad = CliRunner().invoke(app, ["train", "text-reranker", "--set", str(tmp_path / "regression" / "x"), "--out",
                                   str(out)])
    assert bad.exit_code != 0 and "never tests/regression" in str(bad.exception)
