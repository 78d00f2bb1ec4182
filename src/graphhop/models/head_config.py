"""The settings every head trained over a frozen sentence encoder stores in its model card.

BGR (:class:`~graphhop.retrieve.bgr_model.BGRConfig`) and SSG (:class:`~graphhop.retrieve.ssg.SSGConfig`)
extend :class:`EncoderHeadConfig`: which encoder made the vectors, their width, and how a card's
``config`` becomes a config again (keys a newer or older version wrote are ignored).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Mapping, TypeVar

from graphhop.models.encoder import DEFAULT_MODEL

__all__ = ["EncoderHeadConfig"]

C = TypeVar("C", bound="EncoderHeadConfig")


@dataclass
class EncoderHeadConfig:
    """The encoder whose vectors a head reads (HF name or path) and their width."""

    encoder: str = DEFAULT_MODEL
    input_dim: int = 384

    @classmethod
    def from_card(cls: type[C], conf: Mapping[str, Any]) -> C:
        """The config a model card's ``config`` holds; keys this class does not know are ignored."""
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in conf.items() if k in known})

    def encoder_to_load(self) -> str | None:
        """What to pass to :func:`~graphhop.models.encoder.load_encoder`: ``None`` for the bundled default."""
        return None if self.encoder == DEFAULT_MODEL else self.encoder
