"""The fit with no prior reproduces published Plackett–Luce and Bradley–Terry numbers."""

from __future__ import annotations

import json
import math

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.ratings import ELO_PER_NAT, PlackettLuceFit, fit_plackett_luce
from arena.standings import load_places_csv

from .helpers import CITATIONS, NASCAR

# Hunter (2004), NASCAR 2002: log-strength relative to driver 1, to four decimals.
NASCAR_PUBLISHED = {
    "driver58": 4.1477,  # P.J. Jones
    "driver68": 3.6162,  # Scott Pruett
    "driver51": 2.0763,  # Mark Martin
    "driver15": 0.0258,  # Dave Marcis
    "driver17": -0.3113,  # Dick Trickle
    "driver40": -0.1451,  # Joe Varde
}

# BradleyTerry2, journal citations: (sum-to-zero ability, s.e.).
CITATIONS_SUM_TO_ZERO = {
    "Biometrika": (0.7899221, 0.04333047),
    "Comm Statist": (-2.1591504, 0.07257974),
    "JASA": (0.3103523, 0.04164102),
    "JRSS-B": (1.0588761, 0.05304699),
}
# ... and relative to Biometrika: (ability, s.e.).
CITATIONS_VS_BIOMETRIKA = {
    "Comm Statist": (-2.9490725, 0.10254534),
    "JASA": (-0.4795698, 0.06058873),
    "JRSS-B": (0.2689541, 0.07082997),
}


@pytest.fixture(scope="module")
def nascar() -> PlackettLuceFit:
    records = load_places_csv(NASCAR)
    return fit_plackett_luce([r.ranking() for r in records], prior=0.0)


@pytest.fixture(scope="module")
def citations() -> PlackettLuceFit:
    records = load_places_csv(CITATIONS)
    return fit_plackett_luce([r.ranking() for r in records], prior=0.0)


def test_nascar_data_is_what_hunter_used() -> None:
    records = load_places_csv(NASCAR)
    assert len(records) == 36
    assert len({seat.player for r in records for seat in r.seats}) == 83
    assert {len(r.seats) for r in records} == {42, 43}


@pytest.mark.parametrize(("driver", "published"), sorted(NASCAR_PUBLISHED.items()))
def test_nascar_log_strengths_match_hunter(
    nascar: PlackettLuceFit, driver: str, published: float
) -> None:
    diff, _ = nascar.contrast(driver, "driver1")
    assert diff == pytest.approx(published, abs=0.5e-4)


def test_nascar_elo_gap_of_pj_jones(nascar: PlackettLuceFit) -> None:
    diff, _ = nascar.contrast("driver58", "driver1")
    assert ELO_PER_NAT * diff == pytest.approx(720.5, abs=0.05)


@pytest.mark.parametrize(("journal", "published"), sorted(CITATIONS_SUM_TO_ZERO.items()))
def test_citations_sum_to_zero_abilities_and_errors(
    citations: PlackettLuceFit, journal: str, published: tuple[float, float]
) -> None:
    ability, se = published
    i = citations.players.index(journal)
    errors = citations.standard_errors()
    assert errors is not None
    assert citations.log_strength[i] == pytest.approx(ability, abs=1e-7)
    assert errors[i] == pytest.approx(se, abs=1e-8)


@pytest.mark.parametrize(("journal", "published"), sorted(CITATIONS_VS_BIOMETRIKA.items()))
def test_citations_contrasts_with_biometrika(
    citations: PlackettLuceFit, journal: str, published: tuple[float, float]
) -> None:
    ability, se = published
    diff, diff_se = citations.contrast(journal, "Biometrika")
    assert diff == pytest.approx(ability, abs=1e-7)
    assert diff_se == pytest.approx(se, abs=1e-8)


def test_citations_through_arena_rate() -> None:
    result = CliRunner().invoke(
        main, ["rate", str(CITATIONS), "--prior", "0", "--mean", "0", "-f", "json"]
    )
    assert result.exit_code == 0, result.output
    rows = {row["bot"]: row for row in json.loads(result.output)["rows"]}
    z = 1.959963984540054
    for journal, (ability, se) in CITATIONS_SUM_TO_ZERO.items():
        assert rows[journal]["elo"] / ELO_PER_NAT == pytest.approx(ability, abs=1e-6)
        assert rows[journal]["plus_minus"] / (z * ELO_PER_NAT) == pytest.approx(se, abs=1e-7)
    assert [row["bot"] for row in json.loads(result.output)["rows"]] == [
        "JRSS-B",
        "Biometrika",
        "JASA",
        "Comm Statist",
    ]


def test_nascar_through_arena_rate() -> None:
    result = CliRunner().invoke(main, ["rate", str(NASCAR), "--prior", "0", "-f", "json"])
    assert result.exit_code == 0, result.output
    elo = {row["bot"]: row["elo"] for row in json.loads(result.output)["rows"]}
    for driver, published in NASCAR_PUBLISHED.items():
        gap = (elo[driver] - elo["driver1"]) / ELO_PER_NAT
        assert gap == pytest.approx(published, abs=0.5e-4)
    assert math.fsum(elo.values()) / len(elo) == pytest.approx(1500.0)


def test_the_fit_converges_in_a_handful_of_steps(
    nascar: PlackettLuceFit, citations: PlackettLuceFit
) -> None:
    """The module docstring: MM alone converges linearly and slowly, so once its steps
    are small each is followed by a Newton step, kept when it does not lower the
    likelihood, and a handful of each suffice. A Newton step kept only when it did not
    raise it left MM alone: the same numbers, after 23 steps on NASCAR and 38 on the
    citations (43 with a prior) instead of 5, on 100,000 games a few seconds more."""
    assert nascar.iterations <= 10
    assert citations.iterations <= 10
    records = load_places_csv(NASCAR)
    assert fit_plackett_luce([r.ranking() for r in records], prior=1.0).iterations <= 10
