"""The quality-only dev scorer's A/B halves (bench/search_dev.py)."""

from __future__ import annotations

from bench.search_dev import halves


def test_halves_split_odd_and_even_rows() -> None:
    # rows 1, 3, 5 (A): ranks 1, 0, 2; rows 2, 4 (B): ranks 4, 1
    assert halves([1, 4, 0, 1, 2]) == {"A": (0.667, 0.5), "B": (1.0, 0.625)}


def test_halves_of_nothing_are_zero() -> None:
    assert halves([]) == {"A": (0.0, 0.0), "B": (0.0, 0.0)}
