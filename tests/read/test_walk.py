"""The walk reader's pieces: word keys, question words, sentence edges and the walk (no encoder)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from graphhop.read.walk import SentenceGraph, WalkReader, question_words, word_key


@dataclass
class _Doc:
    id: str
    title: str
    text: str


class _Docs:
    def __init__(self, docs: list[_Doc]) -> None:
        self.docs = docs
        self._by_id = {d.id: d for d in docs}

    def __getitem__(self, doc_id: str) -> _Doc:
        return self._by_id[doc_id]

    def __contains__(self, doc_id: str) -> bool:
        return doc_id in self._by_id


class _Index:
    def __init__(self, docs: list[_Doc]) -> None:
        self.docs = _Docs(docs)


class _Hit:
    def __init__(self, doc_id: str) -> None:
        self.id = doc_id


class _Bm25:
    """Every passage whose text holds a word of the query (enough for a handful of passages)."""

    def __init__(self, index: _Index) -> None:
        self.index = index

    def search(self, queries: list[str], k: int) -> list[list[_Hit]]:
        words = {w.lower() for w in queries[0].split()}
        return [[_Hit(d.id) for d in self.index.docs.docs if words & set(d.text.lower().split())][:k]]


class _Search:
    def __init__(self, docs: list[_Doc]) -> None:
        self.index = _Index(docs)
        self.bm25 = _Bm25(self.index)
        self.entity_links = None
        self.encoder = None


class _FlatEncoder:
    """Every text the same vector: the answer-type fit is a tie, so the walk alone decides."""

    def encode(self, texts, **_):
        import numpy as np

        return np.full((len(texts), 4), 0.5, dtype=np.float32)


DOCS = [
    _Doc("f1", "Night Ferry to Kestrin", "Night Ferry to Kestrin is a 1994 drama film directed by Mara Voss. "
         "It was shot on the island of Kestrin and stars Tomas Arlen."),
    _Doc("f2", "Mara Voss", "Mara Voss is a film director born in 1956 in Castelvane, a port town in Eldoria."),
    _Doc("f4", "The Salt Road", "The Salt Road is a 2001 film directed by Mara Voss."),
]


def test_word_key_folds_agent_nouns_and_irregular_forms():
    assert word_key("director") == word_key("directed") == "direct"
    assert word_key("founder") == word_key("founded")
    assert word_key("born") == word_key("birth")
    assert word_key("stars") == word_key("star")


def test_question_words_split_relations_from_type_nouns():
    rel, answer, bridge = question_words("What is the currency of the country where Piet Halloran was born?",
                                         ["Piet Halloran"])
    assert rel == {word_key("currency"), "born"} and bridge == {word_key("country")} and not answer
    rel, answer, bridge = question_words("In which country was the star of Night Ferry to Kestrin born?",
                                         ["Night Ferry to Kestrin"])
    assert rel == {"star", "born"} and answer == {word_key("country")} and not bridge
    assert question_words("Who led the school founded by Corin Dask?", ["Corin Dask"])[2] == {word_key("school")}


def test_sentence_edges_carry_the_words_between_and_inverse_title_edges():
    graph = SentenceGraph(_Search(DOCS))
    assert graph.resolve("Salt Road") == "The Salt Road"
    edges = {(e.target, e.inverse): e for e in graph.edges("Mara Voss")}
    assert "direct" in edges[("The Salt Road", False)].words or "direct" in edges[("The Salt Road", True)].words
    assert "born" in edges[("Castelvane", False)].words
    forward = {e.target: e for e in graph.edges("Night Ferry to Kestrin")}
    assert "direct" in forward["Mara Voss"].words and "star" in forward["Tomas Arlen"].words


def test_walk_reaches_the_answer_through_the_bridge_entity():
    reader = WalkReader(_Search(DOCS), encoder=object())
    states = reader.walk(["Night Ferry to Kestrin"], frozenset({"direct", "born"}))
    assert all(s.edges[0].source == "Night Ferry to Kestrin" for s in states)
    best = max(states, key=lambda s: (len(s.covered), -len(s.edges)))
    assert best.covered == {"direct", "born"}
    assert [e.target for e in best.edges][0] == "Mara Voss" and best.path == ("f1", "f2")
    counted = reader.walk(["Mara Voss"], frozenset({"direct"}))
    assert {"Night Ferry to Kestrin", "The Salt Road"} <= {s.entity for s in counted}


def test_walk_retriever_ranks_the_walked_passages_first():
    from graphhop.read.walk import WalkRetriever

    search = _Search(DOCS)
    search.first_stage = lambda queries, vecs: [[_Hit("f4"), _Hit("f1")]]
    search.encode_queries = lambda queries: None
    ranking = WalkRetriever(search, encoder=_FlatEncoder(), soft=None, matcher=False).rank(["Where was the director of Night Ferry to Kestrin born?"], 3)[0]
    assert [h.id for h in ranking] == ["f1", "f2", "f4"]
    assert ranking[0].score > ranking[1].score > ranking[2].score


def test_yes_no_claims_hold_only_where_the_text_says_what_the_answer_is():
    from graphhop.read.text_yesno import _after_answer, _first_sentence

    sentence = "Frédéric Chopin was a composer born in 1810 in Żelazowa Wola, a village in Poland."
    assert "Poland" in _after_answer(sentence, "Żelazowa Wola")
    assert "Chopin" not in _after_answer(sentence, "Żelazowa Wola")
    assert _first_sentence("Merrin is a province. It borders Lusk.") == "Merrin is a province."


def test_a_definite_description_is_resolved_to_the_entity_named_before_it():
    docs = [_Doc("c14", "Jory Madsen", "Jory Madsen is a goalkeeper. He has played for Corvel Athletic since 2014. "
                 "He also captains the club."),
            _Doc("c08", "Corvel Athletic", "Corvel Athletic is a football club from Rothbury.")]
    graph = SentenceGraph(_Search(docs))
    assert graph.sentences("c14")[-1] == "He also captains Corvel Athletic."
    inverse = [e for e in graph.edges("Corvel Athletic") if e.inverse and e.target == "Jory Madsen"]
    assert any("captains" in e.label for e in inverse)


def test_answer_type_nouns_are_not_agent_nouns():
    from graphhop.read.walk import _names_type, noun_key

    assert _names_type("The Blue Quay", "is a painting by", frozenset({noun_key("paintings")}))
    assert not _names_type("Anton Greaves", "was a landscape painter", frozenset({noun_key("paintings")}))
    assert _names_type("Halcyon", "is a steamship launched", frozenset({noun_key("ships")}))
    assert not _names_type("Ruth Ebbing", "was a bridge builder born", frozenset({noun_key("bridges")}))


def test_the_noun_naming_an_entity_just_before_it_types_it():
    from graphhop.read.walk import _names_type, noun_key

    docs = [_Doc("k1", "Tarrow", "Tarrow is a region of the kingdom of Lisse."),
            _Doc("k2", "Quenby", "Quenby is the capital of Lorvaine. The dramatist Ilse Varro lived there.")]
    reader = WalkReader(_Search(docs), encoder=object())
    kingdom = frozenset({noun_key("kingdom")})
    lisse = reader.description_parts("Lisse", docs[0].text)
    assert lisse[2] == "kingdom" and _names_type("Lisse", lisse, kingdom)
    tarrow = reader.description_parts("Tarrow", docs[0].text)
    assert tarrow[0].strip() == "is a region" and not _names_type("Tarrow", tarrow, kingdom)
    # ``is the capital of <name>`` names a relation, not what the name is; ``the dramatist <name>`` does name it
    assert not _names_type("Lorvaine", reader.description_parts("Lorvaine", docs[1].text), frozenset({noun_key("capital")}))
    assert reader.description_parts("Ilse Varro", "The dramatist Ilse Varro lived there.")[2] == "dramatist"
    assert reader.description("Lisse", docs[0].text) == ""  # the free-text description stays the two clauses


def test_a_leading_adverbial_clause_is_not_the_relation():
    from graphhop.read.sentence_graph import _main_clause

    assert _main_clause("Before coaching she played for ") == "she played for "
    assert _main_clause("Since 2019 it has been managed by ") == "Since 2019 it has been managed by "


def test_a_year_range_after_a_name_is_read_as_birth_and_death():
    docs = [_Doc("s09", "Amos Teel", "Amos Teel (1790-1860) was a shipwright from Calloway.")]
    edges = SentenceGraph(_Search(docs)).edges("Amos Teel")
    life = [e for e in edges if e.target.startswith("1790")]
    assert life and {"born", "die"} <= life[0].words


def test_a_capitalized_participle_or_adjective_is_no_mention_and_a_possessive_is_cut():
    docs = [_Doc("u12", "Rosalind Feyr", "Rosalind Feyr was a chemist. Born in Elsby, the Kallundrian capital, she moved "
                 "to Ostrevia. Having no children, she left her notes to Verrin. Reading is where Kipling wrote. "
                 "She trained in Magnus Orrel's laboratory. Today the lab is a museum. Emily wrote of it.")]
    graph = SentenceGraph(_Search(docs))
    targets = {e.target for e in graph.edges("Rosalind Feyr")}
    assert {"Elsby", "Ostrevia", "Verrin", "Reading", "Kipling", "Magnus Orrel"} <= targets
    assert "Emily" in targets and not targets & {"Born", "Kallundrian", "Having", "Magnus Orrel's", "Today"}


def test_a_number_with_a_unit_of_length_answers_how_tall_and_overlapping_spans_are_one():
    docs = [_Doc("p03", "Kesh Tor", "Kesh Tor is a 7,105-metre peak in Tessamir. Its guide was the climber Temo Ashkar. "
                 "About 9,400 people live near Kesh Tor.")]
    edges = SentenceGraph(_Search(docs)).edges("Kesh Tor")
    targets = {e.target: e.words for e in edges}
    assert "105-metre" not in targets and {"tall", "high", "length"} <= targets["7,105"]
    assert "9,400" in targets and "About 9" not in targets
    assert not {"tall", "high"} & targets["Temo Ashkar"]


def test_the_walk_covers_a_relation_word_its_matcher_matches_to_an_edge_label():
    class _Matcher:
        card = {"side": "words"}

        def matches(self, words, labels):
            return {(w, lab) for w in words for lab in labels if w == "helmed" and lab.endswith("directed by")}

    reader = WalkReader(_Search(DOCS), encoder=object())
    helm = word_key("helmed")
    assert not reader.walk(["Night Ferry to Kestrin"], frozenset({helm}))  # no word of the text meets `helmed`
    reader.relations, reader.relation_cover = _Matcher(), True
    best = reader.walk(["Night Ferry to Kestrin"], frozenset({helm}), asked={helm: "helmed"})[0]
    assert best.entity == "Mara Voss" and best.covered == {helm}



def test_the_clear_winner_weighs_the_answer_type():
    from graphhop.read.walk import _State

    reader = WalkReader(_Search(DOCS), encoder=object(), threshold=0.6, clear_gap=0.05, clear_type_weight=2.0)
    states = [_State(name, (), frozenset(), 0) for name in ("Corran Observatory", "Elena Marsk", "Joran Pellet")]
    scores = [0.23, 0.01, -0.04]  # nothing clears 0.6; the observatory leads on score by 0.22
    fits = {"Corran Observatory": 0.02, "Elena Marsk": 0.37, "Joran Pellet": 0.23}  # a `who` question
    lifted = reader._clear_winner(states, scores, fits)
    assert lifted[0] == 0.23 and lifted[1] > reader.threshold  # the person leads on score + 2 x fit (0.75 vs 0.27)
    reader.clear_type_weight = 0.0  # session 4's rule: the best score alone
    assert reader._clear_winner(states, scores, fits)[0] > reader.threshold
    close = {"Corran Observatory": 0.20, "Elena Marsk": 0.25, "Joran Pellet": 0.23}
    reader.clear_type_weight = 2.0  # led on score by 0.22, on typed score by 0.12: the place still counts
    assert reader._clear_winner(states, scores, close)[0] > reader.threshold
    even = dict.fromkeys(fits, 0.2)
    assert reader._clear_winner(states, [0.23, 0.21, 0.0], even) == [0.23, 0.21, 0.0]  # no clear lead: none lifted


def test_a_relation_matcher_without_an_encoder_is_warned_about_not_silently_dropped(tmp_path):
    import pytest

    with pytest.warns(UserWarning, match="relation matcher .* ignored"):
        reader = WalkReader(_Search(DOCS), relation_matcher=tmp_path / "m")
    assert reader.relations is None


def test_a_climb_reaches_the_asked_type_past_an_end_that_is_not_it():
    docs = [_Doc("g1", "Glass Harbour", "Glass Harbour is a 1998 film directed by Piet Halloran."),
            _Doc("g2", "Piet Halloran", "Piet Halloran is a director born in Merrow."),
            _Doc("g3", "Merrow", "Merrow is a harbour town in Ostland."),
            _Doc("g4", "Ostland", "Ostland is a country on the northern coast.")]
    reader = WalkReader(_Search(docs), encoder=object())
    relations, country = frozenset({"direct", "born"}), frozenset({word_key("country")})
    plain = reader.walk(["Glass Harbour"], relations, country)
    assert "Ostland" not in {s.entity for s in plain}  # Merrow -> Ostland meets no question word
    climbed = [s for s in reader.walk(["Glass Harbour"], relations, country, climbs=1) if s.entity == "Ostland"]
    assert climbed and climbed[0].climbed == 1 and climbed[0].covered == relations
    assert climbed[0].path == ("g1", "g2", "g3")
    # no climb past an end the text names as the asked type, nor before every relation word is met
    assert not reader._owes(climbed[0], relations, country)
    merrow = [s for s in plain if s.entity == "Merrow"][0]
    assert reader._owes(merrow, relations, country)
    assert not reader._owes(merrow, relations | {"star"}, country)


def test_a_middle_hop_passes_an_unnamed_entity_on_the_way_to_an_asked_bridge_type():
    docs = [_Doc("h1", "Stone Arch", "The Stone Arch is a bridge over the river Ostra in the town of Velm."),
            _Doc("h2", "Velm", "Velm is a market town in the province of Merrin."),
            _Doc("h3", "Merrin", "Merrin is an inland province whose capital is Hollin."),
            _Doc("h4", "Pell", "Pell is a village. Stone from Pell built the Stone Arch and the hall of Hollin.")]
    reader = WalkReader(_Search(docs), encoder=object())
    relations, province = frozenset({word_key("capital")}), frozenset({word_key("province")})
    plain = reader.walk(["Stone Arch"], relations, bridge_types=province)
    assert "Hollin" not in {s.entity for s in plain}  # Stone Arch -> Velm meets no question word
    walked = reader.walk(["Stone Arch"], relations, bridge_types=province, middles=1)
    hollin = [s for s in walked if s.entity == "Hollin"]
    assert hollin and hollin[0].path == ("h1", "h2", "h3") and hollin[0].middled == 1 and hollin[0].reused == 0
    # the middle entity itself is never an answer, and a middle read in another passage (h4) is not taken
    assert "Velm" not in {s.entity for s in walked if len(s.edges) == 1}
    assert all(s.path[0] != "h4" for s in walked)
    # no middle once the bridge type is met
    assert all(s.middled == 0 for s in reader.walk(["Merrin"], relations, bridge_types=province, middles=1))


class _WordEncoder:
    """A fixed vector per word (others orthogonal): ``founded`` ~ ``established``, ``founder`` far from both."""

    NEAR = {"founded": 0, "established": 0, "taught": 1, "trained": 1}

    def encode(self, texts, **_):
        import numpy as np

        out = np.zeros((len(texts), 16), dtype=np.float32)
        for i, t in enumerate(texts):
            out[i, self.NEAR.get(t, 2 + sum(map(ord, t)) % 14)] = 1.0
        return out


FOUNDED = [_Doc("o1", "Harnvik Observatory", "Harnvik Observatory was established in 1887 by Elena Marsk."),
           _Doc("o2", "Corran Observatory", "Corran Observatory was founded in 1902 by Pavel Drury.")]


def test_soft_matches_read_the_questions_own_word_not_what_was_read_before():
    """The encoder reads each word as written where it stands: an earlier question or passage that wrote the same
    key otherwise (``founded`` for ``found``) does not change what a later question matches."""
    found, established = word_key("founder"), word_key("established")
    fresh = WalkReader(_Search(FOUNDED), encoder=_WordEncoder(), matcher=False)
    used = WalkReader(_Search(FOUNDED), encoder=_WordEncoder(), matcher=False)
    asked = "Who was founding Harnvik Observatory?"  # `founding`: neither the noun nor the verb form
    alone = fresh.read(asked)[1]
    used.read("Who founded Corran Observatory?")  # reads `founded` for the key `found` first
    assert used.read(asked)[1] == alone
    assert "Elena Marsk" not in {r.text for r in alone if r.margin > 0}  # `founding` is not near `established`
    assert "Elena Marsk" in {r.text for r in fresh.read("Who founded Harnvik Observatory?")[1] if r.margin > 0}
    edges = used.graph.edges("Harnvik Observatory")
    used.walk(["Harnvik Observatory"], frozenset({found}))  # no question's words given: none kept from the last read
    assert used._asked == {} and (found, established) not in used._soft_pairs(edges, frozenset({found}))


def test_an_agent_noun_is_also_read_as_its_verbs_participle():
    reader = WalkReader(_Search(FOUNDED), encoder=_WordEncoder(), matcher=False)
    found, established = word_key("founder"), word_key("established")
    reader._asked = {found: "founder"}
    assert reader._asked_forms(found) == ("founder", "founded")
    assert (found, established) in reader._soft_pairs(reader.graph.edges("Harnvik Observatory"), frozenset({found}))
    reader._asked = {word_key("winner"): "winner"}  # an irregular form is no agent noun of its key
    assert reader._asked_forms(word_key("winner")) == ("winner",)
    for word in ("taller", "deeper", "teacher", "builder", "runner"):  # comparatives; no `teached`, `builded`, `runned`
        reader._asked = {word_key(word): word}
        assert reader._asked_forms(word_key(word)) == (word,)
    _, readings = reader.read("Who was the founder of Harnvik Observatory?")
    assert "Elena Marsk" in {r.text for r in readings if r.margin > 0}  # `founder` met by `established`


def test_a_hop_read_elsewhere_also_cites_its_sources_own_passage_when_that_names_the_target():
    docs = [_Doc("q1", "Tobiah Quell", "Tobiah Quell was a mathematician. Magnus Orrel wrote his thesis under his supervision."),
            _Doc("q2", "Magnus Orrel", "Magnus Orrel took his doctorate under Tobiah Quell."),
            _Doc("q3", "Lena Brisk", "Lena Brisk took tea with Tobiah Quell.")]
    reader = WalkReader(_Search(docs), encoder=object())
    hops = {s.edges[0].doc: s for s in reader.walk(["Tobiah Quell"], frozenset({word_key("took")})) if len(s.edges) == 1}
    assert hops["q2"].entity == "Magnus Orrel" and reader.support(hops["q2"]) == ("q1", "q2")
    assert reader.support(hops["q3"]) == ("q3",)  # Quell's own passage does not name Lena Brisk
    reader.own_passages = False
    assert reader.support(hops["q2"]) == ("q2",)
    reader = WalkReader(_Search(docs), encoder=_WordEncoder(), matcher=False)  # the path drawn stays the walked one
    paths, readings = reader.read("Who took his doctorate under Tobiah Quell?")
    orrel = [(p, r) for p, r in zip(paths, readings) if r.text == "Magnus Orrel"]
    assert orrel and orrel[0][0].ids == ("q2",) and orrel[0][1].path == ("q1", "q2") and orrel[0][1].hops == 1


def test_a_title_with_a_bracketed_qualifier_names_its_entity_as_the_text_writes_it():
    docs = [_Doc("s1", "Castellan (steamer)", "The Castellan was a passenger steamer. The inquiry blamed her captain, Edvin Sarrow."),
            _Doc("s2", "Corran Society", "Its crews went out to the steamer Castellan in 1889.")]
    graph = SentenceGraph(_Search(docs))
    assert graph.resolve("Castellan") == "Castellan" and graph.knows("Castellan")
    edges = graph.edges("Castellan")  # its own passage: every sentence, the captain's too
    assert {"Edvin Sarrow", "Corran Society"} <= {e.target for e in edges}
    assert all(e.target != "Castellan (steamer)" for e in graph.edges("Corran Society"))


def test_a_common_noun_in_lower_case_is_no_answer_to_who():
    reader = WalkReader(_Search(DOCS), encoder=_FlatEncoder())
    states = reader.walk(["Night Ferry to Kestrin"], frozenset({"direct"}))
    fake = [replace(states[0], entity="the shore"), replace(states[0], entity="Mara Voss")]
    fits = reader._type_fits("Who directed Night Ferry to Kestrin?", fake, frozenset())
    assert fits["the shore"] == 0.0 and fits["Mara Voss"] > 0.0
    assert reader._type_fits("What did Night Ferry to Kestrin show?", fake, frozenset())["the shore"] > 0.0


def test_a_type_word_inside_another_name_does_not_type_an_entity():
    from graphhop.read.walk import _names_type, noun_key

    lighthouse = frozenset({noun_key("lighthouses")})
    assert not _names_type("Relief", ("boats for Skerrow Rock Lighthouse sailed", "", ""), lighthouse)
    assert not _names_type("Kestrel Lighthouse Society", "is a charity", lighthouse)
    assert _names_type("Skerrow Rock Lighthouse", "stands on a reef", lighthouse)
    assert _names_type("Blackfen", ("is a lighthouse on the coast", "", ""), lighthouse)
    docs = [_Doc("k1", "Kestrel Lighthouse Society", "Kestrel Lighthouse Society is a charity based in Pellock."),
            _Doc("k2", "Harrow Light", "Harrow Light is a lighthouse owned by the Kestrel Lighthouse Society.")]
    reader = WalkReader(_Search(docs), encoder=object())
    bridge = frozenset({word_key("lighthouse")})
    assert reader._typed("Kestrel Lighthouse Society", docs[1].text, bridge) == frozenset()
    assert reader._typed("Harrow Light", docs[1].text, bridge) == bridge
    assert reader._typed("Skerrow Lighthouse", "", bridge) == bridge


class _FirstStageSearch(_Search):
    """A search with a first stage: passages ranked by how many of the query's words their text holds."""

    def encode_queries(self, queries):
        return queries

    def first_stage(self, queries, _vecs):
        words = set(queries[0].lower().rstrip("?").split())
        docs = sorted(self.index.docs.docs, key=lambda d: -len(words & set(d.text.lower().rstrip(".").split())))
        return [[_Hit(d.id) for d in docs]]


def test_a_question_naming_no_entity_starts_from_the_passage_the_first_stage_ranks_first():
    docs = [_Doc("c1", "Moon Clock", "The Moon Clock has a painted moon that seems to cry. It was designed by Jonas Brell."),
            _Doc("c2", "Jonas Brell", "Jonas Brell was a clockmaker born in Kestmark."),
            _Doc("c3", "Harbour Clock", "The Harbour Clock was made by Ada Lorn.")]
    question = "Where was the designer of the clock whose painted moon seems to cry born?"
    plain = WalkReader(_Search(docs), encoder=object())
    assert plain.graph.entities(question) == [] and plain.graph.described(question) == []  # no first stage: none
    assert plain.read(question) == ([], [])
    reader = WalkReader(_FirstStageSearch(docs), encoder=_FlatEncoder(), matcher=False)
    assert reader.graph.described(question) == ["Moon Clock"]
    _, readings = reader.read(question)
    best = max(readings, key=lambda r: r.margin)
    assert best.text == "Kestmark" and best.path == ("c1", "c2")
    assert reader.graph.described("Who made the Harbour Clock?")[0] == "Harbour Clock"


def test_a_hop_from_a_shortened_name_cites_the_passage_titled_with_it_and_one_word_more():
    docs = [_Doc("m1", "Wendrell Mine", "Wendrell Mine lay near Dunhollow. The Tolvane Company owned it."),
            _Doc("m2", "Tolvane Company", "The Tolvane Company owned two mines, Wendrell and Carrack."),
            _Doc("m3", "Carrack Vein", "Carrack Vein was a copper mine."),
            _Doc("m4", "Harl Bridge", "Harl Bridge crosses the Sorn."),
            _Doc("m5", "Harl Tower", "Harl Tower stands in Dunhollow.")]
    reader = WalkReader(_Search(docs), encoder=object())
    assert reader.graph.own("Wendrell") == ["m1"] and reader.graph.own("Wendrell Mine") == ["m1"]
    assert reader.graph.own("Harl") == [] and reader.graph.own("Carrack") == ["m3"]  # two titles `Harl ...`: neither
    hops = [s for s in reader.walk(["Wendrell"], frozenset({word_key("owned")})) if s.entity == "Tolvane Company"]
    assert hops and hops[0].edges[0].doc == "m2" and reader.support(hops[0]) == ("m1", "m2")  # m1 names the company


def test_the_beam_caps_the_paths_to_one_entity():
    from graphhop.read.walk import _State, _diverse

    many = [_State("Gresswick", (), frozenset({"seat"}), 0) for _ in range(5)]
    other = [_State("Tallowford", (), frozenset(), 0), _State("Dunhollow", (), frozenset(), 0)]
    assert [s.entity for s in _diverse(many + other, 3, None)] == ["Gresswick"] * 3
    assert [s.entity for s in _diverse(many + other, 3, 2)] == ["Gresswick", "Gresswick", "Tallowford"]


def test_a_noun_placed_by_a_preposition_names_a_bridge_type():
    question = "Where was the engineer behind Blackfen Light born?"
    rel, _, bridge = question_words(question, ["Blackfen Light"], described=True)
    assert bridge == {word_key("engineer")} and word_key("engineer") not in rel and "born" in rel
    assert not question_words(question, ["Blackfen Light"])[2]  # off: a relation word as before
    rel, answer, bridge = question_words("Which town is the seat of the county containing the town nearest Orm Mine?",
                                         ["Orm Mine"], described=True)
    assert bridge == {word_key("county")} and answer == {word_key("town")}
    assert not question_words("Who was the director of the film?", [], described=True)[2]  # ``of``: a relation
