"""The bundled demo KB is well-formed and `graphhop demo` runs on it."""

from graphhop.demo import DEMO_DATA, demo_questions
from graphhop.kb.loaders import iter_triples


def test_demo_data_consistent():
    facts = {f.triple for f in iter_triples(DEMO_DATA / "kb.tsv")}
    assert len(facts) >= 250
    questions = demo_questions()
    assert len(questions) >= 5
    for q in questions:
        assert q.answers and q.gold_facts
        assert set(q.gold_facts) <= facts, q.id


def test_demo_command_shows_each_method(tmp_path):
    from rich.console import Console

    from graphhop.demo import run_demo

    console = Console(record=True, width=200)
    run_demo(tmp_path / "demo-index", k=2, console=console, ask=False)
    text = console.export_text()
    for q in demo_questions():
        assert q.id + ": " + q.question[:30] in text
    assert "bm25" in text and "dense" in text and "hybrid" in text
    assert "Mona Lisa [SEP] painted by [SEP] Leonardo da Vinci" in text
