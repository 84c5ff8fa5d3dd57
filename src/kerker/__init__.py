"""kerker: classic dice-table procedures as generators a game master can trust."""

__version__ = "0.1.0"
