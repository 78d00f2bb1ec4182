"""The shipped span head: shapes, whole-word spans, save/load, and the shipped weights' size."""

from pathlib import Path

import pytest
import torch

from graphhop.core import GraphhopError
from graphhop.models.span_head import DEFAULT_HEAD, HEAD_FILE, SpanHead, SpanHeadConfig, _best_spans, _whole_words


def test_head_gives_masked_start_end_logits():
    head = SpanHead(SpanHeadConfig(dim=32, ff=64, layers=1))
    hidden = torch.randn(2, 7, 384)
    mask = torch.tensor([[True] * 7, [True] * 4 + [False] * 3])
    start, end = head(hidden, torch.zeros(2, 7, 2), mask)
    assert start.shape == end.shape == (2, 7)
    assert torch.isinf(start[1, 4:]).all() and torch.isfinite(start[0]).all()


def test_whole_words_widens_a_cut_span():
    text = "born in 1452 in Vinci"
    assert _whole_words(text, 9, 11) == (8, 12)
    assert _whole_words(text, 16, 21) == (16, 21)


def test_best_spans_ranks_by_start_plus_end_and_reports_null():
    second = "aa bb cc"
    offsets = torch.tensor([[0, 0], [0, 2], [3, 5], [6, 8]])
    context = torch.tensor([False, True, True, True])
    start = torch.tensor([1.0, 0.0, 5.0, 0.0])
    end = torch.tensor([1.0, 0.0, 0.0, 4.0])
    best = _best_spans(start, end, context, offsets, second, n_best=2, max_answer_tokens=4)
    assert best[0].text == "bb cc" and best[0].score == pytest.approx(9.0)
    assert best[0].null_score == pytest.approx(2.0) and not best[0].is_null
    assert len(best) == 2


def test_shipped_head_is_small_and_in_package_data():
    path = DEFAULT_HEAD / HEAD_FILE
    assert path.exists(), "the span head must ship inside the package"
    assert path.stat().st_size < 5 * 1024 * 1024
    pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    assert "weights/span-head/*" in pyproject


@pytest.mark.slow
def test_save_load_roundtrip(tmp_path):
    from graphhop.models.span_head import FrozenSpanReaderModel

    model = FrozenSpanReaderModel(SpanHead(SpanHeadConfig(dim=32, ff=64, layers=1)), {"encoder": None})
    model.save(tmp_path / "h")
    again = FrozenSpanReaderModel.load(tmp_path / "h")
    pairs = [("Where was Leonardo born?", "Leonardo was born in Vinci.")]
    a, b = model.predict(pairs)[0][0], again.predict(pairs)[0][0]
    assert a.text == b.text and a.score == pytest.approx(b.score, abs=0.05)
    model.save(tmp_path / "h")  # retraining replaces its own head folder ...
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "thesis.txt").write_text("x")
    with pytest.raises(GraphhopError):  # ... but never a folder that is not a head
        model.save(tmp_path / "other")
    assert (tmp_path / "other" / "thesis.txt").read_text() == "x"
