"""Evaluation: running methods over datasets and scoring them."""
