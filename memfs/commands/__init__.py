"""Subcommands of the ``memfs`` CLI that need only the core (see :mod:`memfs.cli`)."""
