"""Geometry on a 5-ft sub-grid: directions, shapes as cell sets, an occupancy index.

A map square of the rule texts (10 ft) is 2 x 2 cells, so 5-ft corridors exist. ``x`` grows
to the east, ``y`` to the south. Nothing here rolls dice except :func:`shapes.cave`, which
takes the RNG as a parameter.
"""
