"""Question forms over text (``graphhop.read.text_forms``): negation, ``Was A the ...?``, durations and
frequencies, names inside descriptions, entity names; and how the question types use them on small hand-made
passages (a stub reader gives the readings a walk would)."""

from __future__ import annotations

from graphhop.graph import EvidenceGraph
from graphhop.read.text_forms import (DENIES, NEGATIVE, asks_duration, asks_times, denied_item, duration, frequency,
                                      identity_question, inside_names, is_duration, is_entity_name, negated_question)
from graphhop.read.text_qa import Reading, TextQA


class _Retriever:
    """The passages by id; every evidence graph empty."""

    def __init__(self, texts: dict[str, str], titles: dict[str, str] | None = None) -> None:
        self.texts, self.titles = texts, titles or {}

    def text(self, doc_id: str) -> str:
        return self.texts[doc_id]

    def title(self, doc_id: str) -> str:
        return self.titles.get(doc_id, "")

    def graph_from_paths(self, question: str, paths) -> EvidenceGraph:
        return EvidenceGraph(question)


class _Reader:
    """Readings given per question (what the walk would read), ``[]`` for any other question."""

    walk = True

    def __init__(self, readings: dict[str, list[Reading]]) -> None:
        self.readings = readings
        self.asked: list[str] = []

    def read(self, question: str, query: str | None = None):
        self.asked.append(question)
        return [], self.readings.get(question, [])


def _qa(readings: dict[str, list[Reading]], texts: dict[str, str] | None = None) -> TextQA:
    return TextQA(_Retriever(texts or {}), _Reader(readings))


def test_negative_quantifiers_deny_as_never_and_not_do():
    for sentence in ("but nobody was killed because the residents had left", "none of its keepers were women",
                     "no one survived the wreck", "in which no lifeboat had been involved", "He never married."):
        assert DENIES.search(sentence), sentence
    for sentence in ("It is no longer lit", "no fewer than thirty people lived there", "Everyone survived."):
        assert not NEGATIVE.search(sentence), sentence
    assert negated_question("Did nobody die when Hekkavar erupted?")
    assert not negated_question("Did anyone in Tuvessa die when Hekkavar erupted in 1954?")


def test_a_list_item_named_in_a_clause_that_denies_it_is_no_item():
    sentence = "Its crews went out to the steamer Castellan in 1889, but none of its boats reached the Harwick Maid."
    assert denied_item(sentence, "Harwick Maid") and not denied_item(sentence, "Castellan")
    assert not denied_item("Vosk designed Blackfen Light and Skerrow Rock Lighthouse.", "Blackfen Light")
    assert not denied_item("Nothing here names it.", "Blackfen Light")


def test_was_a_the_description_is_read_as_the_wh_question():
    assert identity_question("Was Harlow the first lighthouse keeper of Brisk Point?") == \
        ("Harlow", "Who was the first lighthouse keeper of Brisk Point?")
    assert identity_question("Was Dravenholm the biggest city in the Duchy of Aldmere?") == \
        ("Dravenholm", "What was the biggest city in the Duchy of Aldmere?")
    assert identity_question("Was the Castellan the ship that sank off Tollan Head?") == \
        ("Castellan", "What was the ship that sank off Tollan Head?")
    for other in ("Was Hedda Gorrinsen born in Oskaria?", "Is Mount Brellin taller than Hekkavar?",
                  "Is the Veltra Glassworks in the same country as the Orvane Crystal Works?",
                  "Was the Corvath Guild founded before the Lisseau Company got its charter?",
                  "Is Tollan Head Lighthouse still working as a light today?"):
        assert identity_question(other) is None, other


def test_how_often_and_how_long_are_not_counts_of_entities():
    assert asks_times("How many times did Jehan Crell serve as warden?") and not asks_times("How many wardens were there?")
    assert asks_duration("For how many years was Jorun Veltmann chairman?") == "years"
    assert asks_duration("How many people live in Tuvessa?") is None
    assert frequency("Crell served twice as warden, in 1545 and again in 1552.") == 2
    assert frequency("She won the race three times.") == 3 and frequency("He served as warden in 1545.") is None
    assert duration("he chaired it from 1921 to 1935") == 14 and duration("1921-35") == 14
    assert duration("She kept the light for twelve years.") == 12 and duration("for twelve years", "months") is None
    assert duration("He was born in 1921 and had 35 pupils.") is None
    sentence = "He served as chief engineer to the Lighthouse Board for almost thirty years."
    assert is_duration(sentence, "thirty") and not is_duration("Of the seventeen people on board", "seventeen")


def test_same_questions_compare_names_not_numbers_nor_common_nouns():
    assert is_entity_name("Kerrowen") and is_entity_name("the Islander")
    assert not is_entity_name("island") and not is_entity_name("islands") and not is_entity_name("1935")


def test_the_names_a_description_writes_are_blanked():
    assert inside_names("boats for Skerrow Rock Lighthouse sailed").split() == ["boats", "for", "sailed"]


def test_was_a_the_is_yes_only_when_the_answer_found_is_a():
    from graphhop.read.text_yesno import answer_yes_no

    texts = {"p14": "Dravenholm is the capital of Aldmere. It is smaller than the port of Corvath, Aldmere's largest city.",
             "p15": "Corvath is the largest city of Aldmere."}
    corvath = Reading("Corvath", 0.4, ("p15",), 1.0, "Corvath is the largest city of Aldmere.")
    qa = _qa({"What was the biggest city in Aldmere?": [corvath]}, texts)
    qa._titled = lambda name: {"Dravenholm": ["p14"], "Corvath": ["p15"]}.get(name, [])
    res = answer_yes_no(qa, "Was Dravenholm the biggest city in Aldmere?")
    assert (res.answer, res.support) == ("no", ("p15", "p14"))  # Dravenholm's own passage names the one it is not
    assert answer_yes_no(qa, "Was Corvath the biggest city in Aldmere?").answer == "yes"


def test_a_claim_denied_by_a_negative_quantifier_is_no_and_a_question_asked_with_one_is_turned():
    from graphhop.read.text_yesno import answer_yes_no

    texts = {"p11": "Tuvessa is a village below Hekkavar. During the eruption of 1954 lava buried its lower half, but "
                    "nobody was killed."}
    found = Reading("1954", 0.3, ("p11",), 1.0, "During the eruption of 1954 lava buried its lower half, but nobody "
                                                 "was killed.")
    qa = _qa({"Did anyone in Tuvessa die when Hekkavar erupted in what?": [found],
              "Did nobody in Tuvessa die when Hekkavar erupted in what?": [found]}, texts)
    qa._titled = lambda name: ["p11"] if name == "Tuvessa" else []
    res = answer_yes_no(qa, "Did anyone in Tuvessa die when Hekkavar erupted in 1954?")
    assert (res.answer, res.support) == ("no", ("p11",))
    assert answer_yes_no(qa, "Did nobody in Tuvessa die when Hekkavar erupted in 1954?").answer == "yes"


def test_a_frequency_and_a_duration_are_read_off_the_best_reading():
    from graphhop.read.text_counts import answer_count

    said = "Crell served twice as warden of the Lisseau Company, in 1545 and again in 1552."
    chaired = "He put up the money for the Stellar Cooperative and chaired it from 1921 to 1935."
    qa = _qa({"How many times did Jehan Crell serve as warden of the Lisseau Company?":
              [Reading("1545", 0.2, ("p05",), 1.0, said)],
              "For how many years was Jorun Veltmann chairman of the Stellar Cooperative?":
              [Reading("1921 to 1935", 0.2, ("g14",), 1.0, chaired)]})
    res = answer_count(qa, "How many times did Jehan Crell serve as warden of the Lisseau Company?")
    assert (res.answer, res.support) == ("2", ("p05",))
    assert answer_count(qa, "For how many years was Jorun Veltmann chairman of the Stellar Cooperative?").answer == "14"


def test_a_number_written_as_a_duration_counts_no_entity():
    from graphhop.read.text_counts import answer_count

    sentence = "Othmar Lenz served the Lighthouse Board for almost thirty years."
    listing = [Reading("Tollan Head Lighthouse", 0.3, ("p04",), 1.0, "Lenz built Tollan Head Lighthouse."),
               Reading("Harrow Point Lighthouse", 0.3, ("p01",), 1.0, "Lenz built Harrow Point Lighthouse.")]
    qa = _qa({"How many lighthouses is Othmar Lenz credited with?": [Reading("thirty", 0.5, ("p05",), 1.0, sentence)],
              "Which lighthouses is Othmar Lenz credited with?": listing})
    res = answer_count(qa, "How many lighthouses is Othmar Lenz credited with?")
    assert res.answer == "2" and set(res.support) == {"p04", "p01"}


def test_a_same_question_compares_the_names_found_not_common_nouns():
    from graphhop.read.text_yesno import answer_yes_no

    def read(text: str, doc: str, margin: float) -> Reading:
        return Reading(text, margin, (doc,), 1.0, f"{text} is here.")

    qa = _qa({"Which country were Brit Aslund born in?": [read("island", "f15", 0.6), read("Harth", "f14", 0.3)],
              "Which country were Owen Reddan born in?": [read("islands", "f16", 0.6), read("Kerrowen", "f01", 0.3)]})
    qa._titled = lambda name: []
    res = answer_yes_no(qa, "Were Brit Aslund and Owen Reddan born in the same country?")
    assert res.answer == "no" and res.trace["values"] == ["Harth", "Kerrowen"]


def test_a_list_item_denied_where_it_is_read_is_dropped():
    sentence = "Its crews went out to the steamer Castellan in 1889, but none of its boats reached the Harwick Maid."
    qa = _qa({"Which ships did the society's crews help?": [Reading("Castellan", 0.5, ("p15",), 1.0, sentence),
                                                            Reading("Harwick Maid", 0.45, ("p15",), 1.0, sentence)]})
    assert qa._query("Which ships did the society's crews help?").answers == ["Castellan"]


def test_a_comparison_of_amounts_takes_no_year_date_nor_length_of_time():
    from graphhop.read.text_forms import asks_amount, is_time_span

    assert asks_amount("Which village has more residents today, New Pellendorf or Carrowen?")
    assert asks_amount("Which wreck cost more lives, the Castellan or the Ninefold?")
    assert not asks_amount("Which is more famous, A or B?") and not asks_amount("Which was founded earlier, A or B?")
    assert is_time_span("From 1950 to 1958") and is_time_span("March 1932") and is_time_span("1932")
    assert is_time_span("thirty", "He served for almost thirty years.")
    assert not is_time_span("900") and not is_time_span("2,300") and not is_time_span("seventeen")
    texts = {"p10": "Today New Pellendorf has about 900 residents.",
             "p12": "Carrowen was emptied in March 1932. From 1950 to 1958 Quellet was mayor of Carrowen. Its "
                    "population is about 410."}
    qa = _qa({"Which village has more residents today New Pellendorf?":
              [Reading("900", 0.2, ("p10",), 1.0, texts["p10"], holder="New Pellendorf")],
              "Which village has more residents today Carrowen?":
              [Reading("From 1950 to 1958", 0.3, ("p12",), 1.0, "From 1950 to 1958 Quellet was mayor of Carrowen.",
                       holder="Carrowen"),
               Reading("March 1932", 0.2, ("p12",), 1.0, "Carrowen was emptied in March 1932.", holder="Carrowen"),
               Reading("410", 0.1, ("p12",), 1.0, "Its population is about 410.", holder="Carrowen")]}, texts)
    res = qa._comparison("Which village has more residents today, New Pellendorf or Carrowen?")
    assert res.answer == "New Pellendorf" and [p["value"] for p in res.trace["picks"]] == [900.0, 410.0]


def test_an_option_written_with_a_noun_before_its_name_is_that_name():
    from graphhop.read.text_forms import titled_name

    assert titled_name("the clown Fenn Larkow") == "Fenn Larkow"
    assert titled_name("the trapeze artist Sunniva Drach") == "Sunniva Drach"
    for described in ("the director of The Salt Road", "the man who led the Kesh Tor expedition", "the Ashfield Arena",
                      "the city Matthias Orrel was born in", "the Lantern Circus's star", "Fenn Larkow"):
        assert titled_name(described) == "", described
    texts = {"p12": "Sunniva Drach was born in Vinhaven in 1955.", "p13": "Fenn Larkow was born in Brask in 1958."}
    qa = _qa({"When was Sunniva Drach born?": [Reading("1955", 0.3, ("p12",), 1.0, texts["p12"], holder="Sunniva Drach")],
              "When was Fenn Larkow born?": [Reading("1958", 0.3, ("p13",), 1.0, texts["p13"], holder="Fenn Larkow")]},
             texts)
    res = qa._comparison("Who is younger, the trapeze artist Sunniva Drach or the clown Fenn Larkow?")
    assert res.answer == "Fenn Larkow" and set(res.support) == {"p12", "p13"}
    assert [p["value"] for p in res.trace["picks"]] == [1955.0, 1958.0]


def test_a_claim_read_in_a_clause_that_denies_it_is_no():
    from graphhop.read.text_yesno import answer_yes_no

    denied = "Despite its name, the company never had offices in Orvane: it was run from a house in Dunmore."
    said = "From the beginning the company had its offices in Orvane."
    asked = "Did the Orvane Glass Company have its offices in what?"
    for sentence, verdict in ((denied, "no"), (said, "yes")):
        qa = _qa({asked: [Reading("Orvane", 0.4, ("p07",), 1.0, sentence)]}, {"p07": sentence})
        qa._titled = lambda name: []
        res = answer_yes_no(qa, "Did the Orvane Glass Company have its offices in Orvane?")
        assert (res.answer, res.support) == (verdict, ("p07",)), sentence


class _Graph:
    """The walk graph's entities of a question and its titles (folded title -> passage ids)."""

    def __init__(self, entities: list[str], titles: dict[str, list[str]]) -> None:
        self._entities, self.titles = entities, titles

    def entities(self, question: str) -> list[str]:
        return self._entities


def test_a_count_the_walk_misses_is_read_before_the_counted_noun_in_the_entity_s_own_passage():
    from graphhop.read.text_counts import answer_count

    texts = {"p03": "Wendrell Mine lay near Dunhollow. In 1903 the man-engine broke, and 23 men were killed. At its "
                    "peak in the 1880s the mine employed 820 people.",
             "p04": "Carrack Vein Mine employed 430 men in 1890 and 212 men in 1910."}
    qa = _qa({}, texts)
    qa._titled = lambda name: []
    qa.reader.graph = _Graph(["Wendrell"], {"wendrell mine": ["p03"], "carrack vein mine": ["p04"]})
    res = answer_count(qa, "How many men died when the shaft lift at Wendrell gave way?")
    assert (res.answer, res.support) == ("23", ("p03",))
    qa.reader.graph = _Graph(["Carrack Vein"], {"carrack vein mine": ["p04"]})  # two values: none read so
    assert not answer_count(qa, "How many men worked at Carrack Vein?").supported
