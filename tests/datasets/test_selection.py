"""Data-to-text candidate selection: the string-match check, then the best BERTScore F1."""

from __future__ import annotations

from graphhop.datasets.selection import SelectingDataToText, TemplateVariantsDataToText, linearize_triples
from graphhop.metrics.bertscore import PRF

GROUP = [("Amy_Lee", "place_of_birth", "Paris"), ("Amy_Lee", "spouse", "Bob")]


class OverlapScorer:
    """F1 = share of reference words in the candidate (a stand-in for BERTScore)."""

    def score(self, cands, refs):
        out = []
        for c, r in zip(cands, refs):
            rw = r.lower().replace(";", "").split()
            f = sum(w in c.lower() for w in rw) / len(rw)
            out.append(PRF(f, f, f))
        return out


class Fixed:
    def __init__(self, cands):
        self.cands = cands

    def candidates(self, groups):
        return [list(self.cands) for _ in groups]


def test_linearize_and_template_variants() -> None:
    assert linearize_triples(GROUP) == "Amy Lee place of birth Paris; Amy Lee spouse Bob"
    c = TemplateVariantsDataToText().candidates([GROUP])[0]
    assert c == ["Amy Lee was born in Paris and is married to Bob.", "Amy Lee is married to Bob and was born in Paris.",
                 "Amy Lee has place of birth Paris and has spouse Bob.",
                 "Amy Lee was born in Paris. Amy Lee is married to Bob."]


def test_drops_then_keeps_best_and_counts() -> None:
    cands = ["Amy Lee was born in Paris.",                      # misses Bob: dropped
             "Amy Lee married Bob in Paris.",                   # overlap 5/9
             "Amy Lee has place of birth Paris and spouse Bob"]  # overlap 9/9: wins
    sel = SelectingDataToText(Fixed(cands), OverlapScorer())
    best, f1 = sel.choose(GROUP, cands)
    assert best == 2 and f1[0] != f1[0] and f1[2] == 1.0
    assert sel.verbalize([GROUP, GROUP]) == [cands[2], cands[2]]
    assert sel.stats["won by 2"] == 2 and sel.stats["dropped"] == 2 and sel.stats["groups"] == 2


def test_ties_keep_the_earlier_and_all_dropped_returns_the_first() -> None:
    sel = SelectingDataToText(Fixed(["Amy Lee, Paris, Bob.", "Bob, Paris, Amy Lee."]), OverlapScorer())
    assert sel.verbalize([GROUP]) == ["Amy Lee, Paris, Bob."] and sel.stats["won by 0"] == 1
    sel = SelectingDataToText(Fixed(["nobody", "nothing"]), OverlapScorer())
    assert sel.verbalize([GROUP]) == ["nobody"]
    assert sel.stats["all dropped"] == 1 and sel.stats["dropped"] == 2


def test_with_bundled_bertscore_prefers_the_relation_names() -> None:
    """Against the linearized triples, MiniLM BERTScore ranks the variant that repeats the relation
    names (candidate 2) first on this group."""
    sel = SelectingDataToText(TemplateVariantsDataToText())
    best, f1 = sel.choose(GROUP, TemplateVariantsDataToText().candidates([GROUP])[0])
    assert all(0 < f <= 1 for f in f1)
    assert best == 2


def test_seq2seq_candidates_with_a_tiny_local_model(tiny_t5) -> None:
    from graphhop.datasets.builder import Seq2SeqDataToText

    d2t = Seq2SeqDataToText(str(tiny_t5), batch_size=2, max_new_tokens=5, num_candidates=3)
    groups = [GROUP, [("Paris", "capital_of", "France")], GROUP]
    cands = d2t.candidates(groups)
    assert [len(c) for c in cands] == [3, 3, 3] and cands[0] == cands[2]
    assert d2t.verbalize(groups[:1])[0] == d2t.candidates(groups[:1], 1)[0][0]
    sel = SelectingDataToText(d2t, OverlapScorer())
    out = sel.verbalize(groups)  # an untrained model never names the entities: every candidate is dropped
    assert out == [c[0] for c in cands] and sel.stats["all dropped"] == 3 and sel.stats["dropped"] == 9
