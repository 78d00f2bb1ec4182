"""The ``text-kg`` pipeline: passages read as triples, answered by kgqa, support mapped back to passages."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphhop.core import InputError
from graphhop.pipeline.registry import build_pipeline, pipeline_names

FILMS = Path(__file__).resolve().parent / "data" / "films" / "passages.jsonl"


@pytest.fixture(scope="module")
def films_index(tmp_path_factory):
    from graphhop.index.directory import build_index, documents_from_passages
    from graphhop.kb.loaders import iter_passages

    return build_index(documents_from_passages(iter_passages(FILMS)), tmp_path_factory.mktemp("films") / "idx",
                       dense=None, progress=False)


@pytest.fixture(scope="module")
def films_pipe(films_index):
    return build_pipeline("text-kg", films_index, hops=3)


def test_registered_for_passages_only() -> None:
    assert "text-kg" in pipeline_names("passages")
    assert "text-kg" not in pipeline_names("facts")


def test_two_hop_answer_with_its_passages(films_pipe) -> None:
    res = films_pipe.ask("Where was the director of Night Ferry to Kestrin born?")
    assert res.method == "text-kg" and res.supported
    assert res.answer == "Castelvane"
    assert {"f1", "f2"} <= set(res.support)
    assert ["Mara Voss", "born in", "Castelvane"] in res.trace["facts"]


def test_comparison_and_yes_no_over_extracted_facts(films_pipe) -> None:
    assert films_pipe.ask("Which film was released earlier, Night Ferry to Kestrin or Glass Harbour?").answer == "Glass Harbour"
    res = films_pipe.ask("Was the director of Night Ferry to Kestrin born in Castelvane?")
    assert res.answer == "yes" and {"f1", "f2"} <= set(res.support)


def test_bad_input_is_one_line(films_pipe, tmp_path) -> None:
    from graphhop.index.directory import build_index, documents_from_facts
    from graphhop.core import Fact

    with pytest.raises(InputError):
        films_pipe.ask("   ")
    with pytest.raises(InputError):
        build_pipeline("text-kg", films_pipe.index, hops=7)
    facts = build_index(documents_from_facts([Fact("a", "r", "b")]), tmp_path / "f", dense=None, progress=False)
    with pytest.raises(InputError, match="runs over passages"):
        build_pipeline("text-kg", facts)


def test_unknown_options_are_one_line_errors(films_index) -> None:
    with pytest.raises(InputError, match="pipeline 'text-kg' does not take option 'relation_matcher'"):
        build_pipeline("text-kg", films_index, relation_matcher="x")
    assert build_pipeline("text-kg", films_index, k=20, hops=2, relation_matcher=None).hops == 2  # ``ask``'s options


def test_help_says_experimental() -> None:
    from graphhop.pipeline.registry import pipeline_spec

    assert "Experimental, below the walk reader" in pipeline_spec("text-kg").help
