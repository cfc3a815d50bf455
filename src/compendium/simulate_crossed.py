"""Simulated crossed rating studies: moved to :mod:`compendium.simulate.crossed`, importable from here."""

from .simulate.crossed import simulate_crossed

__all__ = ["simulate_crossed"]
