"""GoldEn over a candidate pool (the BGR comparison's GoldEn baseline) on a hand-made chain."""

from __future__ import annotations

from graphhop.retrieve.baselines import PoolBM25, PoolSearch, golden_chain
from graphhop.retrieve.golden import GeneratedQuery, HopInput
from graphhop.retrieve.golden_oracle import oracle_trajectory
from graphhop.train.query_generator import trajectory_examples

POOL_IDS = ["e0", "e1", "e2", "e3"]
POOL = [
    "Mona Lisa was painted by Leonardo da Vinci.",
    "Leonardo da Vinci was born in Vinci.",
    "Vinci is located in Italy.",
    "The Starry Night was painted by Vincent van Gogh.",
]
QUESTION = "In which country is the birthplace of the painter of Mona Lisa?"


class ScriptedGenerator:
    """Returns fixed queries hop by hop and records what it was shown."""

    def __init__(self, queries: list[str]) -> None:
        self.queries = queries
        self.seen: list[HopInput] = []

    def generate(self, inputs):
        self.seen += inputs
        return [GeneratedQuery(self.queries[i.hop - 1]) for i in inputs]


def search() -> PoolSearch:
    return PoolSearch(PoolBM25(POOL), POOL_IDS, POOL)


def test_pool_search_ranks_by_bm25_and_drops_zero_scores():
    ranking = search().search(["born in Vinci"], 10)[0]
    assert ranking[0].id == "e1"
    assert {h.id for h in ranking} == {"e1", "e2", "e0"}  # e3 shares no query word
    assert search().search(["xyzzy"], 10) == [[]]


def test_golden_chain_takes_each_hops_best_unused_hit_and_builds_context():
    gen = ScriptedGenerator(["Mona Lisa painted", "Leonardo da Vinci born", "Vinci located"])
    chain = golden_chain(QUESTION, search(), gen, hops=3)
    assert chain == ["e0", "e1", "e2"]
    assert gen.seen[0].context == QUESTION
    # hop 2's context is the question plus hop 1's hits, best first
    assert gen.seen[1].context.startswith(QUESTION) and "Mona Lisa was painted" in gen.seen[1].context
    assert [i.hop for i in gen.seen] == [1, 2, 3]


def test_golden_chain_skips_taken_hits_and_stops_short_when_nothing_new():
    gen = ScriptedGenerator(["Mona Lisa painted", "Mona Lisa painted", "xyzzy"])
    chain = golden_chain(QUESTION, search(), gen, hops=3)
    assert chain[0] == "e0" and chain[1] != "e0"  # the repeated query contributes its next hit
    assert len(chain) == 2  # hop 3 retrieves nothing


def test_oracle_trajectory_over_a_pool_gives_span_examples():
    s = search()
    hops = oracle_trajectory(s, QUESTION, ["e0", "e1", "e2"], ordered=True, stop_hop=False)
    assert [h.target for h in hops] == ["e0", "e1", "e2"]
    assert all(h.query is not None and h.query.found for h in hops)
    spans = trajectory_examples("q1", QUESTION, s, ["e0", "e1", "e2"], ordered=True, stop_examples=False)
    assert len(spans) == 3
    first = spans[0]
    # each example's span is the oracle query, cut from that hop's context
    assert first.second[first.start : first.end] == hops[0].query.query
    assert s.search([hops[0].query.query], 5)[0][0].id == "e0"
