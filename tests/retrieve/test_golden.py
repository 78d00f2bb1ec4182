"""GoldEn: title-match rerank factors, oracle queries on a hand example, the hop loop and its stops."""

from __future__ import annotations

from typing import Sequence

import pytest

from graphhop.core import Hit, InputError, Passage
from graphhop.index.directory import build_index, documents_from_passages
from graphhop.retrieve.golden import (
    GeneratedQuery,
    GoldEnRetriever,
    GoldEnSearch,
    HopInput,
    core_title,
    merge_hops,
    passage_recall,
    title_match_factor,
)
from graphhop.retrieve.golden_oracle import _lcsubsequence, _lcsubstring, candidate_spans, oracle_query, oracle_trajectory

# --- title-match factors ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "title", "factor"),
    [
        ("Lilu (mythology)", "Lilu (mythology)", 1.5),  # equal
        ("The Hukilau Song", "The Hukilau Song", 1.5),
        ("Hukilau Song", "The Hukilau Song", 1.5),  # leading "The " stripped (title)
        ("The Beatles", "Beatles", 1.5),  # leading "The " stripped (query)
        ("lilu (MYTHOLOGY)", "Lilu (mythology)", 1.2),  # equal ignoring case
        ("who was lilu (mythology) in akkad", "Lilu (mythology)", 1.1),  # contains the title
        ("Lilu", "Lilu (mythology)", 1.2),  # core title equals the query
        ("lilu", "Lilu (mythology)", 1.1),  # … ignoring case
        ("If Gallu is a demon Lilu is what?", "Lilu (mythology)", 1.05),  # core title contained
        ("Sarah Connor", "Ra", 1.0),  # whole words only
        ("Lilith", "Lilu (mythology)", 1.0),
        ("anything", None, 1.0),
        ("anything", "", 1.0),
    ],
)
def test_title_match_factor(query: str, title: str | None, factor: float) -> None:
    assert title_match_factor(query, title) == factor


def test_core_title() -> None:
    assert core_title("Lilu (mythology)") == "Lilu"
    assert core_title("Laie, Hawaii") == "Laie, Hawaii"
    assert core_title("(film)") == "(film)"


# --- a tiny corpus ---------------------------------------------------------------------------

PASSAGES = [
    Passage("Alu", "Alu is a demon of Akkadian mythology, a spirit of the night.", "Alu"),
    Passage("Lilu (mythology)", "Lilu is a masculine Akkadian word for a spirit related to the demon Alu.", "Lilu (mythology)"),
    Passage("Gallu", "Gallu is a demon of the underworld that drags victims away.", "Gallu"),
    Passage("Demon Dice", "Demon Dice is a collectible dice game about a demon and dice and a demon.", "Demon Dice"),
    Passage("Lilith", "Lilith is a figure in Jewish mythology.", "Lilith"),
    Passage("Akkadian Empire", "The Akkadian Empire was an ancient empire of Mesopotamia.", "Akkadian Empire"),
]
QUESTION = "If Gallu is a demon Lilu is what?"


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    out = tmp_path_factory.mktemp("golden") / "idx"
    return build_index(documents_from_passages(PASSAGES), out, dense=None, progress=False)


def test_search_reranks_by_title(index) -> None:
    plain = GoldEnSearch(index, rerank=False).search(["Lilu"], 6)[0]
    boosted = GoldEnSearch(index).search(["Lilu"], 6)[0]
    assert boosted[0].id == "Lilu (mythology)"
    base = {h.id: h.score for h in plain}
    assert boosted[0].score == pytest.approx(base["Lilu (mythology)"] * 1.2)  # core title equals the query
    assert GoldEnSearch(index).search([""], 5) == [[]]
    with pytest.raises(InputError):
        GoldEnSearch(index, candidates=0)


# --- oracle queries --------------------------------------------------------------------------


def test_lcs_helpers() -> None:
    assert _lcsubstring(list("xabyabc"), list("abc")) == (4, 3)
    assert _lcsubsequence(list("xabyc"), list("abc")) == [1, 2, 4]
    assert _lcsubsequence([], list("abc")) == []


def test_candidate_spans_hand_example() -> None:
    spans = candidate_spans(QUESTION, "Lilu (mythology)", "Lilu is a masculine Akkadian word for a spirit.")
    texts = [QUESTION[s:e] for s, e in spans]
    assert "Lilu" in texts  # longest common substring with the title
    assert all(t == t.strip() for t in texts)
    assert not any(t.lower().startswith(("is ", "the ")) for t in texts)  # stop words trimmed
    # a context sharing nothing with the target has no candidates
    assert candidate_spans("Who painted it?", "Gallu", "underworld drags victims") == []


def test_oracle_query_hand_example(index) -> None:
    search = GoldEnSearch(index)
    target = index.docs["Lilu (mythology)"]
    oq = oracle_query(search, QUESTION, target)
    assert oq.query == "Lilu"
    assert (oq.start, oq.end) == (QUESTION.index("Lilu"), QUESTION.index("Lilu") + 4)
    assert oq.found and oq.rank == 1
    assert oq.n_candidates >= 2
    assert oracle_query(search, QUESTION, target, select="rank").rank == 1
    with pytest.raises(InputError):
        oracle_query(search, QUESTION, target, select="longest")  # type: ignore[arg-type]


def test_oracle_query_unreachable_target_falls_back_to_question(index) -> None:
    search = GoldEnSearch(index)
    oq = oracle_query(search, "Who painted the ceiling?", index.docs["Lilith"])
    assert oq.query == "Who painted the ceiling?" and oq.rank is None and not oq.found


def test_oracle_trajectory(index) -> None:
    search = GoldEnSearch(index)
    traj = oracle_trajectory(search, QUESTION, ["Alu", "Lilu (mythology)"], ordered=True, per_hop=2)
    assert [h.hop for h in traj] == [1, 2, 3]
    assert [h.target for h in traj] == ["Alu", "Lilu (mythology)", None]
    assert traj[0].context == QUESTION
    assert traj[1].context.startswith(QUESTION + " || ")
    assert "Alu: Alu is a demon" in traj[1].context  # the hop-1 target is in the hop-2 context
    assert traj[2].query is None
    # unordered: the easier target goes first
    free = oracle_trajectory(search, QUESTION, ["Alu", "Lilu (mythology)"], per_hop=2, stop_hop=False)
    assert [h.target for h in free] == ["Lilu (mythology)", "Alu"]
    assert free[0].query.query == "Lilu"
    with pytest.raises(InputError):
        oracle_trajectory(search, QUESTION, ["Nope"])


# --- merge and metrics ------------------------------------------------------------------------


def test_merge_hops_interleaves_and_dedups() -> None:
    h1 = [Hit("a", 3), Hit("b", 2), Hit("c", 1)]
    h2 = [Hit("d", 9), Hit("a", 8), Hit("e", 7)]
    assert [h.id for h in merge_hops([h1, h2], 10)] == ["a", "d", "b", "c", "e"]
    assert [h.id for h in merge_hops([h1, h2], 2)] == ["a", "d"]
    assert [h.id for h in merge_hops([h1, h2], 10, key={"d": "A", "a": "A"})] == ["a", "b", "c", "e"]
    assert merge_hops([], 5) == []


def test_passage_recall_hand_computed() -> None:
    rankings = [[Hit("a", 1), Hit("x", 1), Hit("b", 1)], [Hit("y", 1)], []]
    golds = [["a", "b"], ["y", "z"], ["q"]]
    m = passage_recall(rankings, golds, ks=(2, 5))
    assert m["R@2"] == pytest.approx((0.5 + 0.5 + 0) / 3)
    assert m["R@5"] == pytest.approx((1 + 0.5 + 0) / 3)
    assert m["all@2"] == 0.0 and m["all@5"] == pytest.approx(1 / 3)
    assert m["any@2"] == pytest.approx(2 / 3)
    with pytest.raises(ValueError):
        passage_recall(rankings, golds[:2])


# --- the hop loop ---------------------------------------------------------------------------


class ScriptedGenerator:
    """Queries and stop scores by hop; records what it saw."""

    def __init__(self, queries: dict[int, str], stop: dict[int, float] | None = None) -> None:
        self.queries = queries
        self.stop = stop or {}
        self.seen: list[HopInput] = []

    def generate(self, inputs: Sequence[HopInput]) -> list[GeneratedQuery]:
        self.seen.extend(inputs)
        return [GeneratedQuery(self.queries.get(i.hop, "demon"), 1.0, self.stop.get(i.hop, -5.0)) for i in inputs]


def test_fixed_two_hops(index) -> None:
    gen = ScriptedGenerator({1: "Lilu", 2: "Alu"})
    trace = GoldEnRetriever(GoldEnSearch(index), gen, max_hops=2, per_hop=2).retrieve([QUESTION], k=4)[0]
    assert [r.query for r in trace.hops] == ["Lilu", "Alu"]
    assert trace.stopped_by == "max hops (2)"
    assert [h.id for h in trace.ranking[:2]] == ["Lilu (mythology)", "Alu"]
    assert gen.seen[1].hop == 2 and "Lilu (mythology): Lilu is" in gen.seen[1].context
    r = GoldEnRetriever(GoldEnSearch(index), ScriptedGenerator({1: "Lilu", 2: "Alu"}), max_hops=2).search([QUESTION], 2)
    assert passage_recall(r, [["Alu", "Lilu (mythology)"]])["all@2"] == 1.0


def test_learned_stop(index) -> None:
    gen = ScriptedGenerator({1: "Lilu", 2: "Alu", 3: "Gallu"}, stop={2: 3.0})
    trace = GoldEnRetriever(GoldEnSearch(index), gen, max_hops=4, stop="learned").retrieve([QUESTION])[0]
    assert len(trace.hops) == 1 and trace.stopped_by == "learned stop before hop 2"
    # the first hop is always taken, even if the generator wants to stop
    gen = ScriptedGenerator({1: "Lilu"}, stop={1: 9.0, 2: 9.0})
    assert len(GoldEnRetriever(GoldEnSearch(index), gen, max_hops=4, stop="learned").retrieve([QUESTION])[0].hops) == 1


def test_rule_stop_and_hop_bound(index) -> None:
    search = GoldEnSearch(index)
    same = ScriptedGenerator({1: "demon", 2: "demon", 3: "demon"})
    trace = GoldEnRetriever(search, same, max_hops=4, stop="rule").retrieve([QUESTION])[0]
    assert len(trace.hops) == 1 and "repeated query" in trace.stopped_by
    fresh = ScriptedGenerator({1: "Lilu", 2: "Akkadian Empire", 3: "Lilith", 4: "Gallu"})
    trace = GoldEnRetriever(search, fresh, max_hops=4, per_hop=1, stop="rule").retrieve([QUESTION])[0]
    assert len(trace.hops) == 4 and trace.stopped_by == "max hops (4)"  # never more than max_hops
    # a generator that never asks to stop still ends at max_hops
    never = ScriptedGenerator({})
    traces = GoldEnRetriever(search, never, max_hops=3, stop="learned").retrieve([QUESTION, "Gallu demon"])
    assert [len(t.hops) for t in traces] == [3, 3]
    with pytest.raises(InputError):
        GoldEnRetriever(search, never, max_hops=2, min_hops=3)
    with pytest.raises(InputError):
        GoldEnRetriever(search, never, stop="sometimes")  # type: ignore[arg-type]


# --- real data: the oracle on a HotpotQA slice -------------------------------------------------


@pytest.mark.data
def test_oracle_beats_question_bm25_on_hotpotqa_slice(data_dir, tmp_path) -> None:
    from graphhop.datasets.textqa import load_text_dataset
    from graphhop.kb.loaders import iter_passages

    examples, corpus = load_text_dataset("hotpotqa", "train", data_dir)
    examples = examples[:12]
    index = build_index(documents_from_passages(iter_passages(corpus)), tmp_path / "hp", dense=None, progress=False)
    search = GoldEnSearch(index)
    oracle, found = [], []
    for ex in examples:
        traj = [h for h in oracle_trajectory(search, ex.question, ex.gold, max_words=25) if h.target]
        found += [h.query.found for h in traj]
        oracle.append(merge_hops([h.hits for h in traj], 10))
    single = search.search([ex.question for ex in examples], 10)
    golds = [ex.gold for ex in examples]
    assert sum(found) / len(found) >= 0.9
    assert passage_recall(oracle, golds)["all@10"] >= passage_recall(single, golds)["all@10"]
    assert passage_recall(oracle, golds)["R@10"] >= 0.9


# --- the evaluation runner behind `graphhop eval-golden` ---------------------------------------


def test_evaluate_methods_and_table(index) -> None:
    from graphhop.datasets.textqa import TextQAExample
    from graphhop.eval.golden import evaluate_methods

    examples = [
        TextQAExample("q1", QUESTION, "a spirit", ["Alu", "Lilu (mythology)"], ["Alu", "Lilu (mythology)"], "bridge"),
        TextQAExample("q2", "Which empire was in Mesopotamia?", "", ["Akkadian Empire"], ["Akkadian Empire"], "comparison", unmapped=1),
    ]
    table = evaluate_methods(examples, index, ["bm25", "oracle"])
    rows = {r["method"]: r for r in table.rows}
    oracle = rows["oracle (oracle: oracle queries from the gold passages)"]
    assert oracle["hops"] == pytest.approx(1.5)
    assert oracle["R@10"] == pytest.approx((1.0 + 0.5) / 2)  # the unmapped leaf is a miss
    assert [r["n"] for r in table.groups["qtype"] if r["method"] == "bm25" and r["qtype"] == "comparison"] == [1]
    text = table.markdown()
    assert text.splitlines()[0].startswith("| method | n | R@2 | R@5 | R@10 |") and "| oracle (oracle:" in text
    assert "| bm25 | bridge | 1 |" in table.markdown("qtype")
    with pytest.raises(InputError, match="needs a trained query generator"):
        evaluate_methods(examples, index, ["golden"])
    with pytest.raises(InputError, match="unknown method"):
        evaluate_methods(examples, index, ["bm26"])


def test_span_query_generator_drives_the_loop(index, tmp_path) -> None:
    """An (untrained, tiny) span selector end to end: queries are spans of the context, traces kept."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForQuestionAnswering

    from graphhop.eval.golden import evaluate_methods
    from graphhop.datasets.textqa import TextQAExample
    from graphhop.models.encoder import resolve_model
    from graphhop.models.span import SpanSelector
    from graphhop.retrieve.golden import SpanQueryGenerator

    torch.manual_seed(0)
    tok = AutoTokenizer.from_pretrained(resolve_model(None))
    config = BertConfig(vocab_size=tok.vocab_size, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=128)
    selector = SpanSelector(BertForQuestionAnswering(config), tok, {"data": {"max_words": 10}}, max_length=128)
    [gen] = SpanQueryGenerator(selector, max_answer_tokens=5).generate([HopInput(QUESTION, QUESTION, 1)])
    assert gen.query and gen.query in QUESTION and len(tok.tokenize(gen.query)) <= 5
    selector.save(tmp_path / "qg")
    examples = [TextQAExample("q1", QUESTION, "a spirit", ["Alu", "Lilu (mythology)"], ["Alu", "Lilu (mythology)"], "bridge")]
    table = evaluate_methods(examples, index, ["golden", "golden-rule"], tmp_path / "qg")
    [trace] = table.meta["traces"]["golden"]
    rows = {r["method"]: r for r in table.rows}
    assert rows["golden"]["hops"] == 2.0 and [h["hop"] for h in trace["hops"]] == [1, 2]
    assert trace["hops"][0]["query"] in QUESTION and len(trace["hops"][0]["top"]) <= 3
    assert rows["golden-rule"]["hops"] >= 1.0 and rows["golden-rule"]["hops"] <= 4.0
