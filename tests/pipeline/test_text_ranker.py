"""The text pipeline with the learned ranker (graphhop.read.walk_ranker): off by default, opt-in by ``ranker``."""

from __future__ import annotations

from pathlib import Path

import pytest

FILMS = Path(__file__).resolve().parent / "data" / "films"


@pytest.mark.slow
def test_the_ranker_is_opt_in_and_answers_a_two_hop_question_with_its_chain(tmp_path):
    from graphhop.index.dense import DenseOptions
    from graphhop.index.directory import build_index, documents_from_passages
    from graphhop.kb.loaders import iter_passages
    from graphhop.pipeline.text import TextPipeline
    from graphhop.read.walk_ranker import RankedWalkReader

    index = build_index(documents_from_passages(iter_passages(FILMS / "passages.jsonl")), tmp_path / "idx",
                        dense=DenseOptions("flat"), progress=False)
    assert not isinstance(TextPipeline(index).reader, RankedWalkReader)  # the default reader: the walk as it was
    pipe = TextPipeline(index, ranker="default")
    assert isinstance(pipe.reader, RankedWalkReader) and pipe.reader.ranker is not None
    res = pipe.ask("Where was the director of Night Ferry to Kestrin born?")
    assert res.answer == "Castelvane" and {"f1", "f2"} <= set(res.support)
    assert pipe.ask("Was the director of Night Ferry to Kestrin born in Castelvane?").answer == "yes"
