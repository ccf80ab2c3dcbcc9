"""Discord cogs, one per command group. Every module here is loaded as an extension at start.

A handler is a few lines: parse → rules → storage → render → reply.
"""
