"""Every epoch's head kept (train kgqa --epoch-dir), and the epoch and threshold chosen end to end on the carve."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from graphhop.core import InputError
from graphhop.kgqa.epoch_heads import choose_head, epoch_saver, write_chosen
from graphhop.kgqa.scorer import DEFAULT_WEIGHTS, PathScorer


def _scores(probs, hits, hops=None):
    probs = np.asarray(probs, dtype=float)
    return {"probs": probs, "hits": np.asarray(hits, dtype=bool),
            "hops": np.asarray(hops if hops is not None else [2] * len(probs))}


def test_the_head_that_nets_most_right_minus_wrong_at_its_own_carve_threshold_is_chosen():
    heads = {
        # 8 right at 0.9, 2 wrong at 0.3: its threshold 0.9 (the lowest that leaves the 0.3s out) answers 8 right,
        # none wrong -> net 8
        "epoch_1": _scores([0.9] * 8 + [0.3] * 2, [True] * 8 + [False] * 2),
        # 9 right but its wrong answers are as sure as its right ones: best net 9 - 1 = 8 at 0.0 ... and 0.6
        "epoch_2": _scores([0.6] * 9 + [0.6], [True] * 9 + [False]),
        # 7 right, 3 wrong, all sure: net 4
        "epoch_3": _scores([0.8] * 10, [True] * 7 + [False] * 3),
    }
    best, rows = choose_head(heads)
    by = {r["head"]: r for r in rows}
    assert by["epoch_1"]["net_at_threshold"] == 8 and by["epoch_1"]["threshold"] == pytest.approx(0.9)
    assert by["epoch_1"]["answered_at_threshold"] == 8
    assert by["epoch_2"]["net_at_threshold"] == 8 and by["epoch_2"]["right"] == 9
    assert by["epoch_3"]["net_at_threshold"] == 4
    assert best == "epoch_2"  # net ties 8 = 8: more right with no threshold wins
    heads["epoch_2"] = _scores([0.6] * 8 + [0.6] * 2, [True] * 8 + [False] * 2)  # net 6 now
    assert choose_head(heads)[0] == "epoch_1"
    same = _scores([0.9] * 8 + [0.3] * 2, [True] * 8 + [False] * 2)
    assert choose_head({"epoch_1": same, "epoch_2": same})[0] == "epoch_1"  # a full tie: the earlier epoch


def test_the_chosen_head_is_written_with_its_carve_thresholds(tmp_path):
    row = {"head": "x", "n": 10, "right": 8, "threshold": 0.37, "net_at_threshold": 8, "answered_at_threshold": 8,
           "thresholds_by_hops": {"3": 0.6}}
    out = tmp_path / "chosen"
    write_chosen(DEFAULT_WEIGHTS, out, row, "the carve")
    config = json.loads((out / "config.json").read_text(encoding="utf-8"))
    shipped = json.loads((DEFAULT_WEIGHTS / "config.json").read_text(encoding="utf-8"))
    assert config["threshold"] == 0.37 and config["thresholds_by_hops"] == {"3": 0.6}
    assert config["selection_threshold"] == shipped["threshold"] and config["chosen_on"] == "the carve"
    assert config["carve"] == {"n": 10, "right": 8, "net_at_threshold": 8, "answered_at_threshold": 8}
    assert (out / "head.npz").read_bytes() == (DEFAULT_WEIGHTS / "head.npz").read_bytes()
    assert PathScorer.load(out).config["threshold"] == 0.37
    with pytest.raises(InputError, match="already exists"):
        write_chosen(DEFAULT_WEIGHTS, out, row, "the carve")


def test_every_epochs_head_is_written_with_its_selection_threshold(tmp_path):
    """A tiny corpus from two hand-written schemas (no shared data needed), two epochs."""
    from graphhop.kgqa.schemas import SCHEMAS
    from graphhop.kgqa.scorer import make_head
    from graphhop.kgqa.synthetic import schema_examples
    from graphhop.kgqa.train import Corpus, fit

    scorer = PathScorer.load()
    stores, examples = schema_examples(40, random.Random(0), hard=False, schemas=SCHEMAS[:2])
    assert any(e.selection for e in examples) and not all(e.selection for e in examples)
    offsets, tables, n = {}, [], 0
    for kb, store in stores.items():
        offsets[kb], n = n, n + len(store.relations)
        tables.append(scorer.relation_vectors(store))
    texts = list(dict.fromkeys(e.masked for e in examples))
    vec = dict(zip(texts, scorer.encode(texts)))
    corpus = Corpus(examples, np.stack([vec[e.masked] for e in examples]).astype(np.float32),
                    np.concatenate(tables).astype(np.float32), offsets)
    corpus.attach_words(scorer)
    head = make_head()
    config = {"dim": 384, "width": 128, "signed_types": True, "lr": 0.01}
    report = fit(head, corpus, epochs=2, lr=0.01, progress=False, on_epoch=epoch_saver(tmp_path / "epochs", corpus, config))
    saved = sorted(p.name for p in (tmp_path / "epochs").iterdir())
    assert saved == ["epoch_1", "epoch_2"]
    accs = []
    for epoch in (1, 2):
        kept = PathScorer.load(tmp_path / "epochs" / f"epoch_{epoch}")
        assert kept.config["epoch"] == epoch and kept.config["lr"] == 0.01
        assert 0.0 <= kept.config["threshold"] <= 1.0
        accs.append(kept.config["selection_acc"])
        assert accs[-1] == pytest.approx(report["history"][epoch - 1]["selection_acc"])
    one = np.load(tmp_path / "epochs" / "epoch_1" / "head.npz")
    two = np.load(tmp_path / "epochs" / "epoch_2" / "head.npz")
    assert any(not np.array_equal(one[k], two[k]) for k in one.files)  # a head per epoch, not the same one twice


def _fake_head(folder, epoch=None):
    folder.mkdir(parents=True)
    (folder / "head.npz").write_bytes((DEFAULT_WEIGHTS / "head.npz").read_bytes())
    config = json.loads((DEFAULT_WEIGHTS / "config.json").read_text(encoding="utf-8"))
    (folder / "config.json").write_text(json.dumps({**config, **({} if epoch is None else {"epoch": epoch})}), encoding="utf-8")
    return folder


def test_an_epoch_dir_in_out_or_not_empty_is_refused_before_anything_is_built(tmp_path):
    from graphhop.kgqa.train import train_scorer

    out, nodata = tmp_path / "out", tmp_path / "no-data"
    for inside in (out, out / "epochs", out / "a" / ".." / "epochs"):
        with pytest.raises(InputError, match="is --out .* or inside it"):
            train_scorer(out, epoch_dir=inside, root=nodata, progress=False)
    out.mkdir()
    with pytest.raises(InputError, match="is --out .* or inside it"):  # even with --overwrite
        train_scorer(out, epoch_dir=out / "epochs", root=nodata, progress=False, overwrite=True)
    used = tmp_path / "epochs"
    _fake_head(used / "epoch_4", 4)
    with pytest.raises(InputError, match="not empty"):
        train_scorer(tmp_path / "new", epoch_dir=used, root=nodata, progress=False)


def test_overwrite_clears_only_our_epoch_heads(tmp_path):
    from types import SimpleNamespace

    folder = tmp_path / "epochs"
    for n in (2, 10, 4):
        _fake_head(folder / f"epoch_{n}", n)
    _fake_head(folder / "epoch_final", 7)             # not an epoch_N name
    _fake_head(folder / "epoch_9", 3)                 # its config is another epoch's
    (folder / "epoch_5").mkdir()                      # no head in it
    (folder / "notes.txt").write_text("mine", encoding="utf-8")
    from graphhop.kgqa.epoch_heads import epoch_heads

    assert [p.name for p in epoch_heads(folder)] == ["epoch_2", "epoch_4", "epoch_10"]
    corpus = SimpleNamespace(examples=[])
    with pytest.raises(InputError, match="not empty"):
        epoch_saver(folder, corpus, {})
    assert len(epoch_heads(folder)) == 3
    epoch_saver(folder, corpus, {}, overwrite=True)
    assert sorted(p.name for p in folder.iterdir()) == ["epoch_5", "epoch_9", "epoch_final", "notes.txt"]
    assert epoch_heads(folder) == []


def test_the_carve_records_the_hop_count_the_threshold_is_applied_to(monkeypatch, tmp_path):
    """For counts and comparisons the pipeline judges the path the answer moved to, not the scorer's best
    chain (``trace["paths"][0]``): the carve takes the trace's ``threshold_hops``."""
    from types import SimpleNamespace

    import graphhop.evaluation
    import graphhop.pipeline.registry
    from graphhop.kgqa.epoch_heads import carve_confidences
    from graphhop.kgqa.result import finish

    class KGQA:
        def threshold_for(self, path):
            return 1.0  # withheld: the trace alone is looked at

        def describe(self, reading, path=None):
            return {"relation_path": ["r"] * len((path or reading.paths[0]).steps)}

    best, moved = SimpleNamespace(steps=[1], ends=np.asarray([1])), SimpleNamespace(steps=[1, 2, 3], ends=np.asarray([2]))
    reading = SimpleNamespace(paths=[best, moved], probs=np.asarray([0.7, 0.3]))
    res = finish(KGQA(), reading, moved, [2], ["2"], [], {})
    assert res["trace"]["paths"][0]["relation_path"] == ["r"] and res["trace"]["threshold_hops"] == 3
    assert finish(KGQA(), reading, moved, [2], ["2"], [], {}, scorer_path=best)["trace"]["threshold_hops"] == 1

    answer = SimpleNamespace(score=0.9, answer="two", trace=res["trace"])
    monkeypatch.setattr(graphhop.evaluation, "dataset_index", lambda *a, **k: None)
    monkeypatch.setattr(graphhop.pipeline.registry, "build_pipeline", lambda *a, **k: SimpleNamespace(ask=lambda q: answer))
    (tmp_path / "questions.jsonl").write_text(json.dumps({"question": "How many?", "answers": ["two"]}) + "\n", encoding="utf-8")
    got = carve_confidences([tmp_path], DEFAULT_WEIGHTS)
    assert got["hops"].tolist() == [3] and got["hits"].tolist() == [True]
