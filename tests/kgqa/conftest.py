"""Fixtures of the kgqa tests: the pipeline over a small hand-written KB."""

from __future__ import annotations

from typing import Any, Callable, Sequence

import pytest


@pytest.fixture(scope="session")
def kgqa_of() -> Callable[..., Any]:
    """``kgqa_of(triples, max_hops=4)``: the ``kgqa`` pipeline (shipped scorer) over ``triples`` (fact ids
    ``f0``, ``f1``, ... in order), built once per KB and hop limit."""
    from graphhop.core import Fact
    from graphhop.kb.store import KGStore
    from graphhop.kgqa.pipeline import KGQA

    built: dict[tuple, Any] = {}

    def make(triples: Sequence[tuple[str, str, str]], max_hops: int = 4) -> Any:
        key = (tuple(triples), max_hops)
        if key not in built:
            facts = (Fact(h, r, t, f"f{i}") for i, (h, r, t) in enumerate(triples))
            built[key] = KGQA(KGStore.from_facts(facts), max_hops=max_hops)
        return built[key]
    return make
