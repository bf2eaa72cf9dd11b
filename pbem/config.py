"""Configuration: where the database is, read from options, the environment or a TOML file.

Precedence for the database URL: ``--database URL``, then ``PBEM_DATABASE_URL``,
then ``[database] url`` of the config file (``--config FILE`` or ``PBEM_CONFIG``),
then ``sqlite:///./pbem.db``.
"""
from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pbem.errors import ConfigError

DEFAULT_DATABASE_URL = "sqlite:///./pbem.db"
ENV_DATABASE_URL = "PBEM_DATABASE_URL"
ENV_CONFIG = "PBEM_CONFIG"


@dataclass(frozen=True)
class Config:
    """The parsed configuration file (empty when there is none)."""

    path: Path | None = None
    data: Mapping[str, Any] = field(default_factory=dict)

    @property
    def database_url(self) -> str | None:
        return self.section("database").get("url")

    def section(self, name: str) -> Mapping[str, Any]:
        value = self.data.get(name, {})
        if not isinstance(value, Mapping):
            raise ConfigError(f"{self.path}: [{name}] must be a table")
        return value


def load_config(path: str | Path | None = None, env: Mapping[str, str] | None = None) -> Config:
    """Read the config file named by ``path`` or ``PBEM_CONFIG``; no file named means an empty config.

    A file that is named but missing is an error, never silently ignored.
    """
    env = os.environ if env is None else env
    named = path if path is not None else env.get(ENV_CONFIG) or None
    if named is None:
        return Config()
    source = Path(named).expanduser()
    try:
        data = tomllib.loads(source.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {source}") from None
    except OSError as exc:
        raise ConfigError(f"cannot read config file {source}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML: {exc}") from None
    config = Config(source, data)
    url = config.database_url
    if url is not None and (not isinstance(url, str) or not url.strip()):
        raise ConfigError(f"{source}: [database] url must be a non-empty string")
    return config


def database_url(
    option: str | None = None,
    config_path: str | Path | None = None,
    env: Mapping[str, str] | None = None,
) -> str:
    """The database URL by the precedence above."""
    env = os.environ if env is None else env
    config = load_config(config_path, env)  # a named but broken file is an error even when overridden
    if option:
        return option
    if env.get(ENV_DATABASE_URL):
        return env[ENV_DATABASE_URL]
    return config.database_url or DEFAULT_DATABASE_URL
