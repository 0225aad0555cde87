"""memfs_serve: a memory browser for people (``memfs serve WORKSPACE``), on 127.0.0.1 only.

Install with the ``serve`` extra. :func:`memfs_serve.app.build_app` returns the Starlette
application over one :class:`~memfs.MemFS`; every read and change goes through it, so a person
editing here gets the same credential guard, date stamp, conditional write and version history
as the agent.
"""
