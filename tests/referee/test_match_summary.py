"""Issue 44.6: the closing summary of `arena match`."""

from __future__ import annotations

import pytest


def test_a_matchs_closing_rating_is_that_of_the_standings() -> None:
    """Issue 44.6: `arena match`'s closing summary counts W/L/D and rates the bots as
    `arena standings` would rate the same games (one fit, not statistics of its own)."""
    from arena.match import rate_match
    from arena.standings import GameRecord, SeatRecord, compute_standings
    from tests.league.test_store_basics import finished

    results = [finished(f"m{k}", k, ("ann", "bob")) for k in range(12)]
    ratings, pair = rate_match(["ann", "bob"], results)
    assert pair is not None
    wins = sum(r.outcome.places[r.names.index("ann")] == 1 for r in results)
    assert (pair.wins, pair.losses, pair.draws) == (wins, 12 - wins, 0)
    records = [
        GameRecord(
            r.game_id,
            None,
            tuple(SeatRecord(n, p) for n, p in zip(r.names, r.outcome.places, strict=True)),
        )
        for r in results
    ]
    table = {row.player: row for row in compute_standings(records).rows}
    assert pair.elo == pytest.approx(table["ann"].elo - table["bob"].elo)
    assert pair.plus_minus == pytest.approx(2 * table["ann"].plus_minus)  # two bots: d = 2a
    assert [r.places for r in ratings] == [(wins, 12 - wins), (12 - wins, wins)]
    assert rate_match(["ann", "bob"], []) == ([], None)
