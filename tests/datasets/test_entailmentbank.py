"""EntailmentBank: proof parsing, trees as evidence graphs (a real tree), angles, WorldTree."""

from __future__ import annotations

import json

import pytest

from graphhop.core import InputError
from graphhop.datasets.entailmentbank import (
    ProofStep,
    load_angles,
    load_entailmentbank,
    load_worldtree,
    parse_context,
    parse_proof,
    tree_record,
)

PROOF = "sent2 & sent4 -> int1: a star is a source of light; int1 & sent1 & sent3 -> hypothesis; "


def test_parse_proof_and_context():
    assert parse_proof(PROOF) == [
        ProofStep(("sent2", "sent4"), "int1", "a star is a source of light"),
        ProofStep(("int1", "sent1", "sent3"), "hypothesis", ""),
    ]
    # a conclusion text may itself contain ';'
    assert parse_proof("sent1 -> int1: a; b; int1 & sent2 -> hypothesis;")[0].text == "a; b"
    assert parse_proof("") == []
    with pytest.raises(InputError, match="x:3: cannot parse proof"):
        parse_proof("sent1 => hypothesis;", where="x:3")
    assert parse_context("sent1: a b; c sent2: d") == {"sent1": "a b; c", "sent2": "d"}


def test_tiny_file_errors(tmp_path):
    bad = tmp_path / "task_1" / "dev.jsonl"
    bad.parent.mkdir()
    bad.write_text(json.dumps({"id": "x", "question": "q", "context": "sent1: a"}) + "\n")
    with pytest.raises(InputError, match=r"dev.jsonl:1: missing field 'hypothesis'"):
        load_entailmentbank(bad)


@pytest.mark.parametrize("field", [{"meta": "oops"}, {"meta": {"triples": [1, 2]}}, {"depth_of_proof": "deep"}])
def test_odd_field_types_are_one_line_errors(tmp_path, field):
    """A field of the wrong JSON type is an InputError naming file and line, not an AttributeError."""
    bad = tmp_path / "task_1" / "dev.jsonl"
    bad.parent.mkdir()
    record = {"id": "x", "question": "q", "hypothesis": "h", "context": "sent1: a", **field}
    bad.write_text(json.dumps(record) + "\n")
    with pytest.raises(InputError, match=r"dev.jsonl:1: malformed EntailmentBank record"):
        load_entailmentbank(bad)


@pytest.mark.data
def test_real_tree_as_evidence_graph(data_dir):
    eb = data_dir / "entailmentbank"
    trees = {t.id: t for t in load_entailmentbank(eb / "task_1" / "dev.jsonl")}
    assert len(trees) == 187
    tree = trees["AKDE&ED_2012_8_5"]
    g = tree.graph().validate()
    assert sorted(g.edges) == sorted([
        ("Q", "sent1"), ("Q", "sent2"), ("Q", "sent3"), ("Q", "sent4"),
        ("sent2", "int1"), ("sent4", "int1"),
        ("int1", "hypothesis"), ("sent1", "hypothesis"), ("sent3", "hypothesis"),
    ])
    assert g.g.nodes["int1"]["text"] == "a star is a source of light"
    assert g.g.nodes["hypothesis"]["kind"] == "hypothesis" and g.sinks() == ["hypothesis"]
    assert g.num_chains() == 4 and g.depth() == 3 and g.graph_type() == "multi-chain multi-hop"
    assert tree.answer.startswith("As the distance from Earth to the star decreases")
    rec = tree_record(tree)
    assert sum(e["gold"] for e in rec["evidence"]) == 4 and rec["qtype"] == "task_1"
    # every dev tree of tasks 1-2 is a valid graph; task 2 adds distractor sentences to the pool
    assert all(t.graph().is_valid() for t in trees.values())
    t2 = {t.id: t for t in load_entailmentbank(eb / "task_2" / "dev.jsonl")}["AKDE&ED_2012_8_5"]
    kinds = [e["distractor_kind"] for e in tree_record(t2)["evidence"]]
    assert kinds.count(None) == 4 and kinds.count("distractor") == len(t2.context) - 4


@pytest.mark.data
def test_angles_match_v2_and_task3_transfer(data_dir):
    eb = data_dir / "entailmentbank"
    angles = {t.id: t for t in load_angles(eb / "angles" / "task_1" / "dev.jsonl")}
    v2 = {t.id: t for t in load_entailmentbank(eb / "task_1" / "dev.jsonl")}
    assert angles.keys() == v2.keys()
    a, b = angles["AKDE&ED_2012_8_5"], v2["AKDE&ED_2012_8_5"]
    assert (a.question, a.answer, a.hypothesis, a.context, a.steps) == (b.question, b.answer, b.hypothesis, b.context, b.steps)
    assert len(load_angles(eb / "angles" / "task_1" / "train.jsonl")) == 1313
    t3 = {t.id: t for t in load_entailmentbank(eb / "task_3" / "dev.jsonl", trees_from=eb / "task_1" / "dev.jsonl")}
    tree = t3["Mercury_SC_401371"]
    g = tree.graph().validate()
    # two task-1 leaves were retrieved into the task-3 context (as sent3 and sent23); one was missed
    assert tree.leaves() == ["gold:sent1", "sent3", "sent23"]
    assert [tree.context[s] for s in tree.leaves()] == [v2["Mercury_SC_401371"].context[s] for s in ("sent1", "sent2", "sent3")]
    assert g.sinks() == ["hypothesis"]
    rec = tree_record(tree)
    assert len(rec["evidence"]) == 25 and sum(e["gold"] for e in rec["evidence"]) == 2
    passages = load_worldtree(eb / "worldtree_corpus_sentences_extended.json")
    assert len(passages) == 11940 and passages[0].text == "a star produces light and heat"


@pytest.mark.data
def test_build_dataset_entailmentbank_honours_splits_limit_seed(data_dir, tmp_path):
    from typer.testing import CliRunner

    from graphhop.cli import app
    from graphhop.datasets.builder import read_records

    out = tmp_path / "eb"
    result = CliRunner().invoke(app, ["build-dataset", "entailmentbank", "--out", str(out), "--data", str(data_dir),
                                      "--splits", "dev", "--limit", "40", "--seed", "3", "--split", "6,2,2", "--no-progress"])
    assert result.exit_code == 0, result.output
    recs = {s: list(read_records(out / f"{s}.jsonl")) for s in ("train", "dev", "test")}
    assert sum(map(len, recs.values())) == 120  # 40 trees of each of the 3 dev task files, no angles (train)
    assert all(len(r) > 0 for r in recs.values())  # re-split 6:2:2: test is not empty
    assert all(r["source"].endswith("/dev") for rs in recs.values() for r in rs)
    by_question = {}
    for split, rs in recs.items():
        for r in rs:
            assert by_question.setdefault(r["question"], split) == split  # one question, one split
