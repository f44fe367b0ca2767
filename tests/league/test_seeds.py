"""`arena.seeds`: the text a seed is keyed by, and what counts as a drawn secret (the
report shows a seed the organiser gave, never a drawn one)."""

from __future__ import annotations

import pytest

from arena.errors import ConfigError
from arena.seeds import SECRET_BYTES, is_drawn, new_secret, seed_key


def test_a_seed_is_one_key_however_it_is_given() -> None:
    assert seed_key(1) == seed_key("1") == seed_key(" 1 ") == seed_key("1\n") == "1"
    assert seed_key("lucky day") == "lucky day"


@pytest.mark.parametrize("seed", ["", "   ", "\t\n", True, 1.5, None])
def test_no_seed_is_refused(seed: object) -> None:
    with pytest.raises(ConfigError, match="the seed must"):
        seed_key(seed)  # type: ignore[arg-type]


def test_only_a_drawn_secret_counts_as_drawn() -> None:
    secret = new_secret()
    assert len(secret) == 2 * SECRET_BYTES == 32
    assert is_drawn(secret)
    # Seeds an organiser gives: shown in a finished league's report.
    for given in ["1", "123", "abc", "deadbeef", "g" * 32, "0" * 31, "0" * 33, secret.upper()]:
        assert not is_drawn(given), given
