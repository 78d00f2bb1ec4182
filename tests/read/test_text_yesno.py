"""Yes/no questions over text: how the two-sided kinds are split into questions of their own."""

from graphhop.read.text_yesno import NEGATION, split_same_as, split_than


def test_a_comparative_with_than_splits_into_two_sides():
    assert split_than("Is the body that funded X's expeditions older than the club that organised the Y climb?") == \
        ("the body that funded X's expeditions", "older", "the club that organised the Y climb")
    assert split_than("Is Mount Brellin taller than Hekkavar?") == ("Mount Brellin", "taller", "Hekkavar")
    assert split_than("Was the Penhallow Library built before Tamsford Polytechnic was founded?") is None
    assert split_than("Was Ada Renn born in Valdane?") is None


def test_a_same_question_asks_one_question_per_side():
    assert split_same_as("Are Mount Oskelt and Kesh Tor in the same country?") == \
        ("Which country are Mount Oskelt in?", "Which country are Kesh Tor in?")
    assert split_same_as("Did the founder of Greywater College come from the same city where Halvgard University "
                         "stands?") == ("Which city did the founder of Greywater College come from?",
                                        "Which city where Halvgard University stands?")
    assert split_same_as("Is the Veltra Glassworks in the same country as the Orvane Crystal Works?") == \
        ("Which country is the Veltra Glassworks in?", "Which country is the Orvane Crystal Works in?")
    assert split_same_as("Was Tomas Quellet born on the same island where his survey station stands?")[1] == \
        "Which island where Tomas Quellet's survey station stands?"
    assert split_same_as("Was Ada Renn born in Valdane?") is None


def test_negation_words():
    assert NEGATION.search("but he never stood on its summit himself")
    assert NEGATION.search("It is no longer lit") and NEGATION.search("she didn't return")
    assert not NEGATION.search("He reached the summit of Mount Oskelt in 1931, knowing the route.")


def test_a_claim_is_denied_by_a_negated_sentence_of_the_subjects_own_passage():
    from types import SimpleNamespace

    from graphhop.read.text_yesno import _denied

    texts = {"p05": "Holloway led two expeditions to Mount Oskelt, in 1927 and 1931, but he never stood on its summit.",
             "g11": "The Orvane Glass Museum opened in 1975. The museum is run by the municipality of Orvane, not by "
                    "the works itself.",
             "p07": "Temo Ashkar reached the summit of Mount Oskelt in 1931. He never married."}
    titles = {"Gideon Holloway": ["p05"], "Orvane Glass Museum": ["g11"], "Temo Ashkar": ["p07"]}
    qa = SimpleNamespace(_titled=lambda name: titles.get(name, []), retriever=SimpleNamespace(text=texts.__getitem__))
    assert _denied(qa, ["Gideon Holloway"], "Mount Oskelt") == "p05"
    assert _denied(qa, ["Orvane Glass Museum"], "Orvane Crystal Works") == "g11"
    assert _denied(qa, ["Temo Ashkar"], "Mount Oskelt") is None  # the negation is in another sentence
