"""Presentation: turns rules results and stored state into Discord embeds and text."""
