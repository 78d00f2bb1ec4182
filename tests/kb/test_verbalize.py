from graphhop.core import Fact
from graphhop.kb.verbalize import Verbalizer, clean_entity, clean_relation, normalize_question


def test_clean_names():
    assert clean_entity("frederica_of_mecklenburg-strelitz") == "frederica of mecklenburg strelitz"
    assert clean_relation("place_of_birth") == "place of birth"
    assert clean_relation("__music__recording__tracks") == "music recording tracks"
    assert clean_relation("plays_in_club_inverse") == "plays in club"


def test_default_verbalization_and_inverse_reading():
    v = Verbalizer()
    assert v(Fact("sylvia_brett", "place_of_birth", "london")) == "sylvia brett [SEP] place of birth [SEP] london"
    # x_inverse is read in the base direction
    assert v(Fact("Forward", "plays_position_inverse", "Abel_HERNANDEZ")) == "Abel HERNANDEZ [SEP] plays position [SEP] Forward"


def test_configurable_verbalization():
    raw = Verbalizer(clean=False)
    assert raw(Fact("a_b", "r_inverse", "c")) == "a_b [SEP] r_inverse [SEP] c"
    sentence = Verbalizer(template="{head} {relation} {tail}.")
    assert sentence(Fact("Paris", "capital_of", "France")) == "Paris capital of France."


def test_question_normalization_matches_facts():
    assert normalize_question("the sex of sylvia_brett 's mother ?") == "the sex of sylvia brett 's mother ?"
    assert normalize_question("films directed by [Joel Zwick]") == "films directed by Joel Zwick"
