"""Proper-name mentions and name keys (entity links, claims)."""

from graphhop.kb.names import fold_name, name_mentions


def test_name_mentions_keep_multiword_titles_and_drop_sentence_starts():
    text = "The Salt Road is a 2001 film directed by Mara Voss. It was shot in Kestrin, Eldoria."
    assert name_mentions(text) == ["Salt Road", "Mara Voss", "Kestrin", "Eldoria"]


def test_name_mentions_join_connectors_but_not_lists():
    assert name_mentions("Night Ferry to Kestrin stars Tomas Arlen") == ["Night Ferry to Kestrin", "Tomas Arlen"]
    assert name_mentions("It borders France, Germany and Italy.") == ["France", "Germany", "Italy"]
    assert name_mentions("born in 1956 in 1957") == []


def test_fold_name_strips_case_accents_and_punctuation():
    assert fold_name("Alcalá de Henares!") == "alcala de henares"
    assert fold_name("Frédéric  Chopin") == fold_name("frederic chopin")
