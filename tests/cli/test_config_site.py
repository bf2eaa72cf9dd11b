"""``[site]`` in the configuration (pbem.config): the folder of the public pages and the address it is served at."""
from __future__ import annotations

from pathlib import Path

import pytest

from pbem.config import SiteSettings, load_config
from pbem.errors import ConfigError
from pbem.moderator.gamemaster import MailContext


def written(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "pbem.toml"
    path.write_text('[moderator]\naddress = "pbem@games.test"\n' + text, encoding="utf-8")
    return path


def test_the_site_reaches_the_moderator_with_a_relative_folder_taken_from_the_files(tmp_path: Path) -> None:
    config = load_config(written(tmp_path, '[site]\ndir = "public"\nurl = "https://games.example.org/pbem/"\n'))
    expected = SiteSettings(tmp_path / "public", "https://games.example.org/pbem")
    assert config.site == expected
    assert config.require_moderator().site == expected
    assert MailContext.from_config(config).identity().site == expected  # type: ignore[union-attr]  # an address


def test_no_site_section_is_no_site(tmp_path: Path) -> None:
    assert load_config(written(tmp_path, "")).require_moderator().site == SiteSettings()


@pytest.mark.parametrize("text", ['[site]\nurl = "games.example.org"\n', '[site]\nurl = "https://x.org/<b>"\n',
                                  '[site]\ndirectory = "public"\n', "[site]\ndir = 3\n"])
def test_a_wrong_site_setting_is_a_clear_error(tmp_path: Path, text: str) -> None:
    with pytest.raises(ConfigError, match=r"\[site\]"):
        load_config(written(tmp_path, text))
