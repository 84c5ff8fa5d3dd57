"""Exports for virtual tabletops: Universal VTT (``.dd2vtt``, :mod:`kerker.export.uvtt`) and
Foundry VTT scenes (:mod:`kerker.export.foundry`), both from one geometry
(:mod:`kerker.export.walls`): the walls, doors and openings the map picture draws, in grid
squares (one square = 10 ft, the rule texts' scale). See docs/vtt.md.
"""
