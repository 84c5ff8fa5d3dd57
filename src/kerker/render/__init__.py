"""Renderers: pure functions from values (rolls, distributions, later maps) to text or images."""
