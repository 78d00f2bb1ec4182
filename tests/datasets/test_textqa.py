"""HotpotQA / MuSiQue / EntailmentBank-task-3 loaders on tiny fixtures in the published formats."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphhop.core import InputError
from graphhop.datasets.textqa import (
    iter_worldtree,
    load_entailmentbank_task3,
    load_hotpotqa,
    load_musique,
    load_text_dataset,
)


def _write(path: Path, obj) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj), encoding="utf-8")
    return path


def test_hotpotqa(tmp_path: Path) -> None:
    _write(tmp_path / "hotpotqa_corpus.json", {"Alû": ["Alû is a demon."], "Lilu (mythology)": ["Lilu is a spirit."], "X": ["x"]})
    qs = _write(
        tmp_path / "hotpotqa_sample.dev.json",
        [
            {
                "_id": "q1",
                "question": "If Gallu is a demon Lilu is what?",
                "answer": "a spirit",
                "type": "bridge",
                "level": "easy",
                "supporting_facts": [["Lilu (mythology)", 0], ["Alû", 3], ["Lilu (mythology)", 1]],
                "context": [],
            }
        ],
    )
    [ex] = load_hotpotqa(qs)
    assert ex.gold == ["Lilu (mythology)", "Alû"] and ex.gold_titles == ex.gold
    assert (ex.qtype, ex.dataset, ex.hops, ex.ordered, ex.answer) == ("bridge", "hotpotqa", 2, False, "a spirit")
    _write(tmp_path / "hotpotqa_corpus.json", {"Alû": ["Alû is a demon."]})
    with pytest.raises(InputError, match=r"item 0: gold title 'Lilu \(mythology\)' is not in the corpus"):
        load_hotpotqa(qs)
    _write(qs, [{"_id": "q1", "question": "?", "answer": "a"}])
    with pytest.raises(InputError, match="item 0: missing field 'supporting_facts'"):
        load_hotpotqa(qs)


def _musique_row(supporting_text: str = "Enola Gay dropped the bomb.") -> dict:
    return {
        "id": "2hop__1_2",
        "question": "What plane bombed Kenji's birthplace?",
        "answer": "B-29",
        "answer_aliases": ["Superfortress"],
        "answerable": True,
        "paragraphs": [
            {"idx": 0, "title": "Enola Gay", "paragraph_text": supporting_text, "is_supporting": True},
            {"idx": 1, "title": "Noise", "paragraph_text": "unrelated", "is_supporting": False},
            {"idx": 2, "title": "Akinoshu Kenji", "paragraph_text": "Kenji was born in Hiroshima.", "is_supporting": True},
        ],
        "question_decomposition": [
            {"id": 1, "question": "Kenji's birthplace?", "answer": "Hiroshima", "paragraph_support_idx": 2},
            {"id": 2, "question": "plane that bombed #1?", "answer": "B-29", "paragraph_support_idx": 0},
        ],
    }


def test_musique_follows_the_decomposition(tmp_path: Path) -> None:
    corpus = [
        {"title": "Namibia", "text": "one"},
        {"title": "Enola Gay", "text": "Enola Gay dropped the bomb."},
        {"title": "Akinoshu Kenji", "text": "Kenji was born in Hiroshima."},
    ]
    _write(tmp_path / "musique_corpus.json", corpus)
    qs = _write(tmp_path / "musique_sample.dev.json", [_musique_row()])
    [ex] = load_musique(qs)
    assert ex.gold == ["2", "1"]  # chain order: birthplace first
    assert ex.gold_titles == ["Akinoshu Kenji", "Enola Gay"]
    assert ex.ordered and ex.qtype == "2hop" and ex.answers == ["B-29", "Superfortress"]
    _write(qs, [_musique_row("a different text")])
    with pytest.raises(InputError, match="supporting paragraph 0 .* is not in the corpus"):
        load_musique(qs)
    with pytest.raises(InputError, match="MuSiQue corpus not found"):
        load_musique(qs, corpus=tmp_path / "missing.json")


def test_entailmentbank_task3_gold_leaves(tmp_path: Path) -> None:
    eb = tmp_path / "entailmentbank"
    _write(eb / "worldtree_corpus_sentences_extended.json", {"ET_addon:0": "DUMMY", "u1": "the sun is a star", "u2": "a star emits light", "u3": "noise"})
    (eb / "task_3").mkdir(parents=True)
    (eb / "task_3" / "dev.jsonl").write_text(
        json.dumps({"id": "Q1", "question": "Why does the sun shine?", "answer": "it is a star", "proof": "", "meta": {}}) + "\n"
    )
    (eb / "task_1").mkdir()
    tree = {
        "id": "Q1",
        "proof": "sent1 & sent2 -> int1: the sun emits light; int1 & sent3 -> hypothesis;",
        "meta": {
            "triples": {"sent1": "the sun is a star", "sent2": "A star emits  light", "sent3": "it is august"},
            "worldtree_provenance": {"sent1": {"uuid": "u1"}, "sent2": {"uuid": ""}},
        },
    }
    (eb / "task_1" / "dev.jsonl").write_text(json.dumps(tree) + "\n")
    [ex] = load_entailmentbank_task3(eb / "task_3" / "dev.jsonl")
    assert ex.gold == ["u1", "u2"]  # sent2 mapped by its text, sent3 is in no corpus
    assert ex.unmapped == 1 and ex.hops == 3 and ex.qtype == "entailment"
    assert [p.id for p in iter_worldtree(eb / "worldtree_corpus_sentences_extended.json")] == ["u1", "u2", "u3"]
    (eb / "task_1" / "dev.jsonl").write_text("")
    with pytest.raises(InputError, match="Q1.* has no entailment tree"):
        load_entailmentbank_task3(eb / "task_3" / "dev.jsonl")


def test_unknown_dataset(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="unknown text dataset"):
        load_text_dataset("squad", "dev", tmp_path)


@pytest.mark.data
def test_real_samples(data_dir: Path) -> None:
    hp, _ = load_text_dataset("hotpotqa", "train", data_dir)
    assert len(hp) == 74 and {e.qtype for e in hp} == {"bridge", "comparison"} and all(e.hops == 2 for e in hp)
    mu, _ = load_text_dataset("musique", "dev", data_dir)
    assert len(mu) == 15 and all(e.ordered for e in mu) and sum(e.hops for e in mu) == 36
    eb, _ = load_text_dataset("entailmentbank", "dev", data_dir)
    assert len(eb) == 187
    assert sum(len(e.gold) for e in eb) == 693 and sum(e.unmapped for e in eb) == 32
