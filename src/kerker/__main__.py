"""``python -m kerker`` runs the command line."""

from kerker.cli import main

main()
