"""DiFaR² reranking mechanics: ``first >> reranker`` composition and CrossEncoderReranker scoring."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphhop.core import GraphhopError, Hit, Reranker, Retriever, Stage
from graphhop.pipeline.ops import Rerank
from graphhop.models.cross_encoder import load_sequence_classifier, score_pairs
from graphhop.retrieve.rerank import CrossEncoderReranker


class FixedRetriever(Stage):
    """Returns the same ranking d0..d(n-1) with decreasing scores for every query."""

    name = "fixed"

    def __init__(self, n: int = 8) -> None:
        self.n = n
        self.calls: list[int] = []

    def search(self, queries, k=10):
        self.calls.append(k)
        return [[Hit(f"d{i}", float(self.n - i)) for i in range(min(k, self.n))] for _ in queries]


class ReverseReranker(Stage):
    """Scores a hit by its position: the last hit of each ranking becomes the first."""

    def __init__(self) -> None:
        self.seen: list[int] = []

    def rerank(self, queries, rankings, k=10):
        self.seen += [len(r) for r in rankings]
        return [[Hit(h.id, float(i)) for i, h in reversed(list(enumerate(r)))][:k] for r in rankings]


def test_reranked_retriever_reranks_only_the_top_k():
    first, rr = FixedRetriever(8), ReverseReranker()
    retriever = first % 4 >> rr
    assert isinstance(retriever, Retriever) and isinstance(retriever, Rerank) and retriever.depth == 4
    out = retriever.search(["q1", "q2"], k=3)
    assert first.calls == [4] and rr.seen == [4, 4]
    assert [h.id for h in out[0]] == ["d3", "d2", "d1"]
    assert len(out) == 2


def test_reranked_retriever_keeps_first_stage_tail_below_reranked_hits():
    retriever = Rerank(FixedRetriever(8), ReverseReranker(), depth=3)
    (ranking,) = retriever.search(["q"], k=6)
    assert [h.id for h in ranking] == ["d2", "d1", "d0", "d3", "d4", "d5"]
    scores = [h.score for h in ranking]
    assert scores == sorted(scores, reverse=True)
    assert retriever.search([], k=5) == []
    with pytest.raises(GraphhopError):
        FixedRetriever() % 0


@pytest.fixture(scope="module")
def tiny_ce(tmp_path_factory) -> Path:
    """A one-layer, one-logit BERT with MiniLM's tokenizer, random weights (seeded)."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    from graphhop.models.encoder import resolve_model

    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=30522, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64,
                     max_position_embeddings=128, num_labels=1)
    path = tmp_path_factory.mktemp("ce") / "model"
    BertForSequenceClassification(cfg).save_pretrained(path)
    AutoTokenizer.from_pretrained(resolve_model(None)).save_pretrained(path)
    return path


DOCS = {
    "f0": "top gun [SEP] directed by [SEP] tony scott",
    "f1": "top gun [SEP] release year [SEP] 1986",
    "f2": "tony scott [SEP] directed by [SEP] man on fire",
    "f3": "man on fire [SEP] in language [SEP] english",
}


def test_cross_encoder_reranker_scores_match_direct_scoring(tiny_ce):
    reranker = CrossEncoderReranker(tiny_ce, DOCS, batch_size=2)
    assert isinstance(reranker, Reranker)
    rankings = [[Hit(d, 0.0) for d in DOCS], [Hit("f3", 1.0), Hit("f1", 0.5)]]
    out = reranker.rerank(["who directed [Top_Gun]", "what language"], rankings, k=3)
    model, tok = load_sequence_classifier(tiny_ce)
    direct = score_pairs(model, tok, ["who directed Top Gun"] * 4, list(DOCS.values()), batch_size=64)
    expected = sorted(zip(DOCS, direct), key=lambda p: -p[1])[:3]
    assert [h.id for h in out[0]] == [d for d, _ in expected]
    assert [h.score for h in out[0]] == pytest.approx([s for _, s in expected], abs=1e-5)
    assert len(out[1]) == 2 and reranker.pairs_scored == 6 and reranker.seconds > 0


def test_equal_scores_keep_first_stage_order(tiny_ce):
    reranker = CrossEncoderReranker(tiny_ce, lambda doc_id: "same text for every fact")
    ranking = [Hit(f"x{i}", 10.0 - i) for i in range(5)]
    (out,) = reranker.rerank(["q"], [ranking], k=5)
    assert [h.id for h in out] == [h.id for h in ranking]
    assert len({h.score for h in out}) == 1 and reranker.pairs_scored == 1


def test_save_load_gives_identical_scores(tiny_ce, tmp_path):
    model, tok = load_sequence_classifier(tiny_ce)
    texts = list(DOCS.values())
    before = score_pairs(model, tok, ["who directed top gun"] * 4, texts)
    model.save_pretrained(tmp_path / "copy")
    tok.save_pretrained(tmp_path / "copy")
    model2, tok2 = load_sequence_classifier(tmp_path / "copy")
    after = score_pairs(model2, tok2, ["who directed top gun"] * 4, texts)
    assert after == before


def test_wired_like_the_cli_over_a_knowledge_index(tiny_ce, tmp_path):
    """``retriever >> CrossEncoderReranker(model_dir, index, depth=K)``."""
    from graphhop.core import Fact
    from graphhop.index.directory import build_index, documents_from_facts
    from graphhop.retrieve import make_retriever

    facts = [Fact(*t.split(" [SEP] "), id=str(i)) for i, t in enumerate(DOCS.values())]
    index = build_index(documents_from_facts(facts), tmp_path / "idx", dense=None, progress=False)
    retriever = make_retriever(index, "bm25") >> CrossEncoderReranker(str(tiny_ce), index, depth=3)
    query = "who directed top gun in english 1986 scott"
    (ranking,) = retriever.search([query], k=4)
    first = make_retriever(index, "bm25").search([query], k=4)[0]
    assert len(first) == 4
    assert {h.id for h in ranking[:3]} == {h.id for h in first[:3]}
    assert ranking[3].id == first[3].id
    model, tok = load_sequence_classifier(tiny_ce)
    texts = [index.docs[h.id].text for h in ranking[:3]]
    assert [h.score for h in ranking[:3]] == pytest.approx(score_pairs(model, tok, [query] * 3, texts), abs=1e-5)
