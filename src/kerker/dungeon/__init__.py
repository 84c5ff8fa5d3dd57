"""Dungeons: a frozen model, one shared engine and procedures as plug-ins.

``generate(params, rng, registry) -> Dungeon`` rolls a whole dungeon; the engine can also
expand one open exit at a time (:func:`kerker.dungeon.engine.expand`). A procedure is a
module ``kerker.dungeon.<name>`` with a ``PROCEDURE`` object (see
:class:`kerker.dungeon.engine.Procedure`); adding one touches no engine file.
"""
