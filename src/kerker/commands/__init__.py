"""The command functions of the kerker CLI; ``kerker.cli`` registers them."""
