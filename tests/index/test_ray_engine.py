"""`--engine ray`: one Ray actor pool encodes every chunk; the index equals a local build's."""

from __future__ import annotations

import numpy as np
import pytest

from graphhop.core import Fact
from graphhop.index.dense import DenseOptions
from graphhop.index.directory import EncodingOptions, build_index, documents_from_facts

pytest.importorskip("ray")

FACTS = [Fact(f"e{i}", "linked_to", f"e{i + 1}", str(i)) for i in range(40)]


@pytest.mark.slow
def test_ray_engine_reuses_one_actor_pool_and_writes_the_same_index(tmp_path, tiny_model, monkeypatch):
    import ray

    import graphhop.index.ray_engine as ray_engine

    made: list[ray_engine.RayEncoder] = []

    class Recording(ray_engine.RayEncoder):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(ray_engine, "RayEncoder", Recording)
    try:  # 4 chunks of 10 facts, each cut into 2 batches of 5 for 2 actors
        ray_index = build_index(documents_from_facts(FACTS), tmp_path / "ray", dense=DenseOptions("flat"), sparse=None,
                                model=tiny_model, chunk=10, progress=False,
                                encoding=EncodingOptions(engine="ray", ray_cpus=2, ray_actors=2))
        served = made[0].served()
        workers = made[0].workers
    finally:
        ray.shutdown()
    assert len(made) == 1 and len(served) == 2 and sum(served) == 8  # one pool served all 4 chunks
    assert len(workers) <= 2  # no actor was started after the first chunk
    local = build_index(documents_from_facts(FACTS), tmp_path / "local", dense=DenseOptions("flat"), sparse=None,
                        model=tiny_model, chunk=10, progress=False)
    assert ray_index.manifest["dense"]["engine"] == "ray"
    a = ray_index.dense.index.reconstruct_n(0, len(FACTS))
    np.testing.assert_allclose(a, local.dense.index.reconstruct_n(0, len(FACTS)), atol=1e-5)  # same rows, same order
