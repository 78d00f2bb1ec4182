"""`--engine ray`: a Ray Data actor pool encodes the chunks; the index equals a local build's."""

from __future__ import annotations

import numpy as np
import pytest

from graphhop.core import Fact
from graphhop.index.dense import DenseOptions
from graphhop.index.directory import EncodingOptions, build_index, documents_from_facts

pytest.importorskip("ray")

FACTS = [Fact(f"e{i}", "linked_to", f"e{i + 1}", str(i)) for i in range(40)]


@pytest.mark.slow
def test_ray_engine_writes_the_same_index_as_a_local_build(tmp_path, tiny_model):
    import ray

    try:
        ray_index = build_index(documents_from_facts(FACTS), tmp_path / "ray", dense=DenseOptions("flat"), sparse=None,
                                model=tiny_model, chunk=25, progress=False,
                                encoding=EncodingOptions(engine="ray", ray_cpus=2, ray_actors=2))
    finally:
        ray.shutdown()
    local = build_index(documents_from_facts(FACTS), tmp_path / "local", dense=DenseOptions("flat"), sparse=None,
                        model=tiny_model, chunk=25, progress=False)
    assert ray_index.manifest["dense"]["engine"] == "ray"
    a = ray_index.dense.index.reconstruct_n(0, len(FACTS))
    np.testing.assert_allclose(a, local.dense.index.reconstruct_n(0, len(FACTS)), atol=1e-5)  # same rows, same order
