"""BM25 analysis: possessives, punctuation, folding, stop words; the legacy tokenizer still opens."""

from __future__ import annotations

import pytest

from graphhop.index.analysis import analyze, analyze_bm25s
from graphhop.index.sparse import SparseIndex, SparseOptions


@pytest.mark.parametrize("text, terms", [
    ("tasha_tudor 's mom 's offspring", ["tasha", "tudor", "mom", "offspring"]),  # PathQuestion's detached 's
    ("Tudor's mom’s home", ["tudor", "mom", "home"]),
    ("Ulysses S. Grant Jr.", ["ulysses", "s", "grant", "jr"]),  # a real initial stays
    ("Don't stop O'Neil, the Café-Zürich!", ["don't", "stop", "o'neil", "cafe", "zurich"]),
    ("the of and", []),
])
def test_standard_analysis(text, terms):
    assert analyze(text) == terms


def test_bm25s_analysis_matches_bm25s():
    import bm25s

    texts = ["Tudor's mom 's home, 1 2 33", "what is the team of a_b ?"]
    ours = [analyze_bm25s(t) for t in texts]
    theirs = bm25s.tokenize(texts, stopwords="en", show_progress=False, return_ids=False)
    assert ours == [list(t) for t in theirs]


def test_possessive_no_longer_matches_middle_initials(tmp_path):
    docs = [("", "ulysses s grant jr parents julia grant"), ("", "tasha tudor children seth tudor")]
    question = "tasha_tudor 's mom 's offspring".replace("_", " ")
    old = SparseIndex.build(tmp_path / "old", docs, SparseOptions(bigrams=False, tokenizer="simple"))
    new = SparseIndex.build(tmp_path / "new", docs, SparseOptions(bigrams=False))
    assert [p for p, _ in new.search([question], 2)[0]] == [1]  # "s" is not a term any more
    assert 0 in [p for p, _ in old.search([question], 2)[0]]


def test_manifest_options_without_tokenizer_mean_the_legacy_one():
    legacy = SparseOptions.from_dict({"title_boost": 1.25, "bigrams": True})
    assert (legacy.tokenizer, legacy.tie_breaker, legacy.bigrams) == ("simple", 0.0, True)
    assert SparseOptions.from_dict(SparseOptions().to_dict()) == SparseOptions()
    assert SparseOptions().tokenizer == "standard"
    from graphhop.core import InputError

    with pytest.raises(InputError, match="unknown BM25 tokenizer 'nope'"):
        SparseOptions(tokenizer="nope")
