"""Fixtures of the kgqa tests: the pipeline over a small hand-written KB."""

from __future__ import annotations

from typing import Any, Callable, Sequence

import pytest


def _pipeline(triples: Sequence[Sequence[str]], **options: Any) -> Any:
    """The ``kgqa`` pipeline over ``triples`` (fact ids ``f0``, ``f1``, ... in order) with ``options``."""
    from graphhop.core import Fact
    from graphhop.kb.store import KGStore
    from graphhop.kgqa.pipeline import KGQA

    return KGQA(KGStore.from_facts(Fact(h, r, t, f"f{i}") for i, (h, r, t) in enumerate(triples)), **options)


@pytest.fixture(scope="session")
def kgqa_of() -> Callable[..., Any]:
    """``kgqa_of(triples, max_hops=4)``: the ``kgqa`` pipeline (shipped scorer) over ``triples`` (fact ids
    ``f0``, ``f1``, ... in order), built once per KB and hop limit."""
    built: dict[tuple, Any] = {}

    def make(triples: Sequence[tuple[str, str, str]], max_hops: int = 4) -> Any:
        key = (tuple(triples), max_hops)
        if key not in built:
            built[key] = _pipeline(triples, max_hops=max_hops)
        return built[key]
    return make


@pytest.fixture(scope="session")
def reading_of() -> Callable[..., Any]:
    """``reading_of(kgqa, question, *relation_paths)``: a reading of ``question`` from its first mention with
    ``relation_paths`` (``^`` walks back), best first, all equally likely."""
    import numpy as np

    from graphhop.kgqa.cover import walk
    from graphhop.kgqa.link import masked
    from graphhop.kgqa.pipeline import Reading

    def make(kgqa: Any, question: str, *relation_paths: tuple[str, ...]) -> Any:
        mention = kgqa.linker.link(question)[0]
        ids = {name: i for i, name in enumerate(kgqa.store.relations)}
        paths = [walk(kgqa.store, mention.entities, [(ids[r.lstrip("^")], not r.startswith("^")) for r in rp], 1.0)
                 for rp in relation_paths]
        return Reading(mention, masked(question, [mention]), paths, np.full(len(paths), 1.0 / len(paths)))
    return make


@pytest.fixture(scope="session")
def typing_kb() -> Callable[[str], Any]:
    """``typing_kb(name)``: ``graphhop ask``'s default pipeline (shipped scorer, reranker and confidence) over the
    hand-made KB ``tests/kgqa/data_typing/<name>.tsv`` (no ``kg_`` prefix: no suite reads them; fact ids ``f0``,
    ``f1``, ... in file order), built once per KB. A name with a ``/`` is a folder under ``tests/kgqa`` holding a
    ``kb.tsv`` and its ``questions.jsonl`` (``data_yesno/yn_plain``)."""
    from pathlib import Path

    here, built = Path(__file__).parent, {}

    def make(name: str) -> Any:
        if name not in built:
            path = here / name / "kb.tsv" if "/" in name else here / "data_typing" / f"{name}.tsv"
            text = path.read_text(encoding="utf-8")
            built[name] = _pipeline([line.split("\t") for line in text.splitlines() if line], rerank=True)
        return built[name]
    return make
