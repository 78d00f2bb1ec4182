"""Offline by default; model options are checked in milliseconds, before any model loads."""

from __future__ import annotations

import time

import pytest

from graphhop.core import InputError
from graphhop.models.locate import check_model, is_offline, set_offline


def test_set_offline_and_online(monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    set_offline()
    assert is_offline()
    set_offline(online=True)
    assert not is_offline()
    set_offline()


@pytest.mark.parametrize("name, message", [
    ("no-such-org/no-such-model", "not in the Hugging Face cache .*--online"),
    ("./models/missing", "no such model directory"),
    ("", "empty model name"),
])
def test_missing_models_fail_fast(monkeypatch, tmp_path, name, message):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    set_offline()
    start = time.perf_counter()
    with pytest.raises(InputError, match=message):
        check_model(name)
    assert time.perf_counter() - start < 1.0


def test_local_dirs_and_files(tmp_path):
    check_model(None)
    check_model("all-MiniLM-L6-v2")
    (tmp_path / "m").mkdir()
    check_model(str(tmp_path / "m"))
    with pytest.raises(InputError, match="no bgr.pt"):
        check_model(str(tmp_path / "m"), "--bgr-model", needs=("bgr.pt",))
    (tmp_path / "f.txt").write_text("x")
    with pytest.raises(InputError, match="is a file"):
        check_model(str(tmp_path / "f.txt"), "--reranker")
    with pytest.raises(InputError, match="--bgr-model nope: no such model directory"):
        check_model("nope", "--bgr-model", needs=("bgr.pt",))


def test_cached_hub_name_passes_offline(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    (tmp_path / "models--org--name").mkdir()
    set_offline()
    check_model("org/name")
