"""Shared pytest configuration: loads the fake Discord fixtures (fake_discord, run_bot) and the
throwaway PostgreSQL server (postgres_server, postgres_url)."""

pytest_plugins = ["tests.fakediscord.fixtures", "tests.postgres"]
