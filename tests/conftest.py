"""Shared pytest configuration: loads the fake Discord fixtures (fake_discord, run_bot)."""

pytest_plugins = ["tests.fakediscord.fixtures"]
