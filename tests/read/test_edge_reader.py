"""The walk's opt-in hop readers: the edge reader (an edge it accepts meets the question's relation; none ships with
graphhop) and the hops read by meaning (``sense_k``: the sentences nearest the question by the encoder)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from graphhop.core import InputError
from graphhop.read.edge_reader import EdgeReader
from graphhop.read.walk import WalkReader, word_key


def _walk_fakes():
    """The walk tests' passage and search fakes (``tests/read/test_walk.py``), loaded by path (importlib mode)."""
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("_walk_fakes", Path(__file__).with_name("test_walk.py"))
    module = sys.modules.setdefault(spec.name, importlib.util.module_from_spec(spec))
    spec.loader.exec_module(module)
    return module._Doc, module._Search


_Doc, _Search = _walk_fakes()

DOCS = [
    _Doc("p1", "Hale Orwin", "Hale Orwin is a painter of harbour scenes. He came into the world in Dunmere in 1870. "
         "He spent forty years in Kestow, where he taught drawing."),
    _Doc("p2", "Dunmere", "Dunmere is a fishing village on the north coast of Kessia."),
]


class _FakeReader:
    """Stands in for a trained edge reader: accepts the sentences that contain ``accept``."""

    def __init__(self, accept: str) -> None:
        self.accept = accept
        self.calls: list[tuple[str, str]] = []

    def probabilities(self, question: str, pairs):
        self.calls += list(pairs)
        return np.array([0.95 if self.accept in sentence else 0.05 for _, sentence in pairs], dtype=np.float32)


def test_a_paraphrased_relation_is_walked_when_the_edge_reader_accepts_it_and_not_without():
    born = frozenset({word_key("born")})
    question = "Where was Hale Orwin born?"
    plain = WalkReader(_Search(DOCS), encoder=object())
    assert not any(s.entity == "Dunmere" for s in plain.walk(["Hale Orwin"], born, question=question))
    read = WalkReader(_Search(DOCS), encoder=object())
    read.edge_reader = _FakeReader("came into the world")
    best = read.walk(["Hale Orwin"], born, question=question)[0]
    assert best.entity == "Dunmere" and best.covered == born and best.path == ("p1",)
    assert not any(s.entity == "Kestow" for s in read.walk(["Hale Orwin"], born, question=question))
    assert read.edge_reader.calls  # the reader was consulted for the edges the lexical match left


def test_no_edge_reader_ships_and_a_missing_folder_is_one_line(tmp_path: Path):
    with pytest.raises(InputError, match="no edge reader ships"):
        EdgeReader.load("default")
    with pytest.raises(InputError, match="not a folder"):
        WalkReader(_Search(DOCS), encoder=object(), edge_reader=str(tmp_path / "missing"))


class _MeaningEncoder:
    """Texts about birth (``born``, ``came into the world``) share one axis; every other text its own, so a cosine is
    1 between two birth texts and 0 otherwise."""

    def encode(self, texts, **_):
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for i, t in enumerate(texts):
            out[i, 0 if ("born" in t or "into the world" in t) else 1 + sum(map(ord, t)) % 63] = 1.0
        return out


def _reader(**options) -> WalkReader:
    return WalkReader(_Search(DOCS), encoder=_MeaningEncoder(), matcher=False, **options)


def test_a_paraphrased_relation_is_walked_from_the_sentence_nearest_the_question_and_not_without():
    born, question = frozenset({word_key("born")}), "Where was Hale Orwin born?"
    assert not any(s.entity == "Dunmere" for s in _reader().walk(["Hale Orwin"], born, question=question))
    states = _reader(sense_k=1).walk(["Hale Orwin"], born, question=question)
    ends = {s.entity for s in states}
    assert {"Dunmere", "1870"} <= ends  # every mention of the sentence is proposed
    assert "Kestow" not in ends  # a sentence far from the question proposes nothing
    best = next(s for s in states if s.entity == "Dunmere")
    assert best.covered == born and best.read == 1 and best.path == ("p1",)
    assert not any(s.entity == "Dunmere" for s in _reader(sense_k=1, sense_floor=1.5).walk(["Hale Orwin"], born,
                                                                                            question=question))
    listed = "Which towns was Hale Orwin born in?"  # a list gathers every item that clears its margin: none read
    assert not any(s.entity == "Dunmere" for s in _reader(sense_k=1).walk(["Hale Orwin"], born, question=listed))


def test_a_read_hop_costs_read_penalty_and_crowds_no_chain_the_words_walk_out_of_the_beam():
    question = "Where was Hale Orwin born?"
    cheap = {r.text: r.margin for r in _reader(sense_k=1).read(question)[1]}
    dear = {r.text: r.margin for r in _reader(sense_k=1, read_penalty=0.25).read(question)[1]}
    assert abs(cheap["Dunmere"] - dear["Dunmere"] - 0.25) < 1e-6
    years, asked = frozenset({word_key("years")}), "Where did Hale Orwin spend forty years?"
    plain = {(s.entity, s.path) for s in _reader(beam=1).walk(["Hale Orwin"], years, question=asked)}
    sensed = {(s.entity, s.path, s.read) for s in _reader(beam=1, sense_k=3, sense_floor=0.0).walk(["Hale Orwin"], years,
                                                                                                   question=asked)}
    assert plain  # the words walk ...
    assert {(e, p, 0) for e, p in plain} <= sensed  # ... keeps its chains beside the read ones (a beam of their own)
    assert any(r for _, _, r in sensed)


def test_one_mention_of_a_read_sentence_leads_by_the_kind_asked_and_the_rest_cost_sense_lead():
    from graphhop.read.walk_sense import mention_scores

    reader = _reader(sense_k=1)
    group = [e for e in reader.graph.edges("Hale Orwin") if "came into the world" in e.sentence]
    where, when = "Where was Hale Orwin born?", "When was Hale Orwin born?"
    by_where = dict(zip((e.target for e in group), mention_scores(reader, where, ("born",), group)))
    by_when = dict(zip((e.target for e in group), mention_scores(reader, when, ("born",), group)))
    assert by_where["Dunmere"] > by_where["1870"] and by_when["1870"] > by_when["Dunmere"]
    assert by_where["Dunmere"] - by_where["1870"] == pytest.approx(1.2)  # the kind asked (1), two words nearer (.2)
    plain = {r.text: r.margin for r in _reader(sense_k=1).read(where)[1]}
    led = {r.text: r.margin for r in _reader(sense_k=1, sense_lead=0.3).read(where)[1]}
    assert led["Dunmere"] == pytest.approx(plain["Dunmere"])  # the leading mention costs nothing more
    assert plain["1870"] - led["1870"] == pytest.approx(0.3)  # the other one sense_lead more


def test_with_sense_full_a_read_hop_costs_less_the_nearer_its_sentence_and_the_default_walk_is_unchanged():
    question = "Where was Hale Orwin born?"  # the fake encoder: the birth sentence is at cosine 1 to the question
    dear = {r.text: r.margin for r in _reader(sense_k=1, read_penalty=0.4).read(question)[1]}
    full = {r.text: r.margin for r in _reader(sense_k=1, read_penalty=0.4, sense_full=1.0).read(question)[1]}
    half = {r.text: r.margin for r in _reader(sense_k=1, read_penalty=0.4, sense_full=1.7).read(question)[1]}
    assert full["Dunmere"] - dear["Dunmere"] == pytest.approx(0.4)  # cosine 1 >= sense_full: the penalty waived
    assert half["Dunmere"] - dear["Dunmere"] == pytest.approx(0.4 * 0.7 / 1.4)  # (1 - floor .3) / (1.7 - .3) of it
    off = [(r.text, r.margin, r.path) for r in _reader().read(question)[1]]
    assert off == [(r.text, r.margin, r.path) for r in _reader(sense_lead=0.3, sense_full=0.5).read(question)[1]]


class _MentionScorer:
    """Stands in for a trained mention reader's cross-encoder: logit +3 for a bracketed ``Dunmere``, -3 otherwise."""

    def logits(self, question: str, texts):
        return np.array([3.0 if "[Dunmere]" in t else -3.0 for t in texts])


def test_the_mention_reader_reads_one_bracketed_mention_and_a_doubted_read_hop_costs_mention_w_times_one_less_p():
    from graphhop.read.mention_reader import MentionReader, load_mention_reader, mention_text

    reader = _reader(sense_k=1, read_penalty=0.4)
    born = next(e for e in reader.graph.edges("Hale Orwin") if e.target == "Dunmere")
    assert mention_text(born) == "Dunmere | Hale Orwin : He came into the world in [Dunmere] in 1870."
    question = "Where was Hale Orwin born?"
    plain = {r.text: r.margin for r in reader.read(question)[1]}
    reader.mention = MentionReader(_MentionScorer(), w=0.5)
    read = {r.text: r.margin for r in reader.read(question)[1]}
    p_yes, p_no = 1 / (1 + np.exp(-3.0)), 1 / (1 + np.exp(3.0))
    assert plain["Dunmere"] - read["Dunmere"] == pytest.approx(0.5 * (1 - p_yes))
    assert plain["1870"] - read["1870"] == pytest.approx(0.5 * (1 - p_no))  # the mention the reader rejects
    assert load_mention_reader(None) is None and load_mention_reader("off") is None
    assert _reader(sense_k=1).mention is None  # off by default: nothing scored


def test_mention_lists_put_the_gold_mention_against_every_other_mention_of_its_sentence_and_folds_stride():
    import random

    from graphhop.train.mention_reader import folds, question_lists

    graph = _reader().graph
    q = {"question": "Where was Hale Orwin born?", "answers": ["Dunmere"], "gold_passages": ["p1"]}
    rows = question_lists(graph, q, random.Random(0), others=1)
    assert len(rows) == 1 and len(rows[0]["gold"]) == 1
    chains, gold = rows[0]["chains"], rows[0]["gold"][0]
    assert "[Dunmere]" in chains[gold] and any("[1870]" in c for c in chains)  # the sentence's other mention: negative
    assert len(chains) == 3  # the sentence's two mentions and one of another sentence
    assert folds(["c", "a", "b", "d", "e"], 2) == [["a", "c", "e"], ["b", "d"]]
