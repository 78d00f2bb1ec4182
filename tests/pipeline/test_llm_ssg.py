"""The ``llm`` and ``ssg`` pipelines through the registry, over the demo index."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphhop.core import InputError
from graphhop.pipeline.registry import build_pipeline, pipeline_names
from graphhop.retrieve.llm.replay import ReplayServer

QUESTION = "Who composed The Magic Flute?"


@pytest.fixture(scope="module")
def demo():
    from graphhop.demo import demo_index

    return demo_index(progress=False)


def test_registered() -> None:
    assert {"llm", "ssg"} <= set(pipeline_names("facts"))


def test_llm_needs_an_endpoint_and_calls_it(demo) -> None:
    with pytest.raises(InputError, match="--llm-url URL and --llm-model NAME"):
        build_pipeline("llm", demo)
    from graphhop.retrieve import make_retriever

    top = [h.id for h in make_retriever(demo, "dense").search([QUESTION], 5)[0]]
    with ReplayServer([f"```\nQ -> {top[0]}\n{top[0]} -> not-an-id\n```"]) as srv:
        pipe = build_pipeline("llm", demo, llm_url=srv.url, llm_model="m", top_n=5, llm_template="forward")
        graph = pipe.retrieve_graph([QUESTION])[0]
        body = srv.requests[0]["body"]
    assert list(graph.edges) == [("Q", top[0])]
    assert graph.g.nodes[top[0]]["facts"]  # the candidate's fact came through
    assert body["model"] == "m" and "Chains:" not in body["messages"][-1]["content"]
    assert "from Q to an evidence" in body["messages"][0]["content"]  # the forward template


def test_llm_shots_from_a_builder_folder(demo, tmp_path: Path) -> None:
    from graphhop.pipeline.llm import load_shots

    with pytest.raises(InputError, match="no such file"):
        load_shots(tmp_path)


def test_ssg_pipeline_with_a_saved_model(demo, tmp_path: Path) -> None:
    from graphhop.retrieve.ssg import SSGConfig, SSGModel, save_ssg

    with pytest.raises(InputError, match="--ssg-model"):
        build_pipeline("ssg", demo)
    save_ssg(SSGModel(SSGConfig(threshold=0.9, max_steps=2)), tmp_path / "ssg")
    pipe = build_pipeline("ssg", demo, ssg_model=tmp_path / "ssg", top_n=10)
    graph = pipe.retrieve_graph([QUESTION])[0]
    assert len(graph) in (1, 2) and graph.is_valid()  # untrained: the forced first step, then at most one more
    res = pipe.ask(QUESTION)
    assert res.method == "ssg" and res.graph.evidence_ids


def test_cli_ask_llm_without_endpoint_is_one_line(demo) -> None:
    from typer.testing import CliRunner

    from graphhop.cli import app

    res = CliRunner().invoke(app, ["ask", QUESTION, "--index", str(demo.path), "--method", "llm"])
    assert res.exit_code != 0 and isinstance(res.exception, InputError)
    assert "--llm-url" in str(res.exception) and "\n" not in str(res.exception)
    res = CliRunner().invoke(app, ["train", "ssg", "--help"])
    assert res.exit_code == 0 and "--select-limit" in res.output
