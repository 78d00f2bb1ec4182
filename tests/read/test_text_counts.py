"""Count questions over text: the filtered count's parts."""

from types import SimpleNamespace

from graphhop.read.text_counts import _AMONG, _BOUND, _CORPUS, _OF_THE, _gendered


def test_a_count_of_the_items_that_pass_a_test_is_split_into_list_and_test():
    m = _OF_THE.match("How many of the Gold Compass holders named in the texts were born in Ostham?")
    assert (m["np"], m["aux"], m["pred"]) == ("Gold Compass holders named in the texts", "were", "born in Ostham")
    m = _OF_THE.match("How many of the named Tessarine volcanoes are more than 2,000 metres high?")
    assert (m["np"], m["aux"], m["pred"]) == ("named Tessarine volcanoes", "are", "more than 2,000 metres high")
    assert " ".join(_CORPUS.sub(" ", "Gold Compass holders named in the texts").split()) == "Gold Compass holders"
    assert " ".join(_CORPUS.sub(" ", "typefaces described").split()) == "typefaces"
    assert _OF_THE.match("How many films did Mara Voss direct?") is None
    among = _AMONG.match("How many women are among the Ashgrove Medal winners named in these texts?")
    assert among["kind"] == "women" and among["np"].startswith("Ashgrove Medal winners")


def test_a_numeric_bound():
    b = _BOUND.match("more than 2,000 metres high")
    assert (b["cmp"], b["n"], b["rest"]) == ("more", "2,000", "metres high")
    assert _BOUND.match("born in Ostham") is None


def test_women_and_men_are_told_by_the_pronouns_of_their_own_passage():
    texts = {"p1": "Hedda Marwick was a geologist. She taught at Verrin, where her teacher was Ashgrove.",
             "p2": "Tobiah Quell was a mathematician. He held a chair; his pupils included Orrel."}
    qa = SimpleNamespace(_titled=lambda name: ["p1"] if name == "Hedda Marwick" else ["p2"],
                         retriever=SimpleNamespace(text=texts.__getitem__))
    assert _gendered(qa, "Hedda Marwick", "she") == (True, ["p1"])
    assert _gendered(qa, "Tobiah Quell", "she") == (False, ["p2"])
    assert _gendered(qa, "Tobiah Quell", "he")[0]
