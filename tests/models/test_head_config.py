"""The encoder-head config base that BGR and SSG cards share."""

from dataclasses import asdict

from graphhop.models.encoder import DEFAULT_MODEL
from graphhop.models.head_config import EncoderHeadConfig
from graphhop.retrieve.bgr_model import BGRConfig
from graphhop.retrieve.ssg import SSGConfig


def test_cards_round_trip_and_ignore_unknown_keys():
    bgr = BGRConfig(input_dim=8, dim=16, heads=2, merge="union", wide_pair=True)
    card = {**asdict(bgr), "written_by_a_later_version": 1}
    assert BGRConfig.from_card(card) == bgr
    ssg = SSGConfig(encoder="/models/mine", threshold=0.7, max_steps=2)
    assert SSGConfig.from_card(asdict(ssg)) == ssg
    # the encoder's fields come first in a card, as before the base existed
    assert list(asdict(bgr))[:3] == ["encoder", "input_dim", "dim"]
    assert list(asdict(ssg))[:3] == ["encoder", "input_dim", "threshold"]


def test_old_card_without_new_fields_takes_the_defaults():
    cfg = SSGConfig.from_card({"encoder": DEFAULT_MODEL, "threshold": 0.2})
    assert (cfg.input_dim, cfg.threshold, cfg.max_states) == (384, 0.2, 16)


def test_encoder_to_load_is_none_for_the_bundled_default():
    assert EncoderHeadConfig().encoder_to_load() is None
    assert BGRConfig(encoder="/models/mine").encoder_to_load() == "/models/mine"
