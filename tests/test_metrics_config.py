"""METRICS_PORT and METRICS_HOST: where the bot serves Prometheus metrics (issue 38)."""

from __future__ import annotations

import pytest

from bot.config import ConfigError, MetricsAddress, Settings

TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GabcDE.abcdefghijklmnopqrstuvwxyz0123456789AB"


def settings_with(**variables: str) -> Settings:
    return Settings.from_mapping({"DISCORD_TOKEN": TOKEN, **variables})


def test_without_metrics_port_there_are_no_metrics() -> None:
    assert settings_with().metrics is None
    assert settings_with(METRICS_PORT=" ", METRICS_HOST="").metrics is None


def test_metrics_listen_on_this_machine_only_unless_a_host_is_given() -> None:
    assert settings_with(METRICS_PORT="9464").metrics == MetricsAddress("127.0.0.1", 9464)
    assert settings_with(METRICS_PORT=" 9100 ", METRICS_HOST="0.0.0.0").metrics == (
        MetricsAddress("0.0.0.0", 9100)
    )
    assert str(MetricsAddress("127.0.0.1", 9464)) == "http://127.0.0.1:9464/metrics"


@pytest.mark.parametrize(
    ("variables", "named"),
    [
        ({"METRICS_PORT": "0"}, "METRICS_PORT must be a port number from 1 to 65535"),
        ({"METRICS_PORT": "65536"}, "METRICS_PORT must be a port number from 1 to 65535"),
        ({"METRICS_PORT": "http"}, "METRICS_PORT must be a port number from 1 to 65535"),
        ({"METRICS_PORT": "-1"}, "METRICS_PORT must be a port number from 1 to 65535"),
        ({"METRICS_HOST": "0.0.0.0"}, "METRICS_HOST needs METRICS_PORT"),
    ],
)
def test_bad_metrics_variables_are_refused_naming_the_variable(
    variables: dict[str, str], named: str
) -> None:
    with pytest.raises(ConfigError, match=named):
        settings_with(**variables)
