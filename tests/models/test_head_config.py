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
    # the encoder's fields come first in a card, then BGR's inference settings (shared with the open setting's)
    assert list(asdict(bgr))[:4] == ["encoder", "input_dim", "threshold_forward", "threshold_backward"]
    assert list(asdict(ssg))[:3] == ["encoder", "input_dim", "threshold"]


def test_old_card_without_new_fields_takes_the_defaults():
    cfg = SSGConfig.from_card({"encoder": DEFAULT_MODEL, "threshold": 0.2})
    assert (cfg.input_dim, cfg.threshold, cfg.max_states) == (384, 0.2, 16)


def test_open_settings_share_bgr_inference_settings():
    from graphhop.retrieve.bgr_model import InferenceSettings
    from graphhop.retrieve.bgr_open import OpenSettings

    cfg = BGRConfig(threshold_backward=0.3, max_branch=2, merge="union")
    open_ = OpenSettings.from_config(cfg)
    assert isinstance(cfg, InferenceSettings) and isinstance(open_, InferenceSettings)
    assert (open_.threshold("backward"), open_.branch("forward"), open_.merge, open_.k) == (0.3, 2, "union", 10)
    assert (cfg.threshold("backward"), cfg.branch("backward")) == (0.3, 3)
    assert OpenSettings().merge == "forward"  # the open setting's own default


def test_encoder_to_load_is_none_for_the_bundled_default():
    assert EncoderHeadConfig().encoder_to_load() is None
    assert BGRConfig(encoder="/models/mine").encoder_to_load() == "/models/mine"
