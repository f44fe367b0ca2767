"""Time of the ratings fit: 10,000 games among 50 bots (target: under one second).

Simulates seeded Plackett–Luce games of 2 to 6 players (a few with tied places),
then times, best of --repeat runs: the fit alone, the fit with its Fisher
covariance, and the whole `compute_standings` (records to table). Also prints how far
the fit is from the true strengths. Usage: python bench/ratings.py [--games N]
[--bots N] [--repeat N] [--bootstrap N]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from arena.ratings import ELO_PER_NAT, fit_plackett_luce
from arena.standings import GameRecord, SeatRecord, compute_standings


def simulate(games: int, bots: int, seed: int) -> tuple[list[GameRecord], np.ndarray]:
    """Seeded games among bots ``bot00 …`` with known log-strengths (which sum to 0)."""
    rng = np.random.default_rng(seed)
    truth = rng.normal(0.0, 0.8, size=bots)
    truth -= truth.mean()
    records = []
    for g in range(games):
        seats = int(rng.integers(2, 7))
        table = rng.choice(bots, size=seats, replace=False)
        noisy = truth[table] + rng.gumbel(size=seats)
        order = table[np.argsort(-noisy)]
        places = list(range(1, seats + 1))
        if seats > 2 and rng.random() < 0.05:  # a shared last place, now and then
            places[-1] = places[-2]
        seat_records = tuple(
            SeatRecord(f"bot{bot:02d}", place) for bot, place in zip(order, places, strict=True)
        )
        records.append(GameRecord(f"g{g:06d}", None, seat_records))
    return records, truth


def best_of(repeat: int, action: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--bots", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--bootstrap", type=int, default=0, help="also time N resamples")
    args = parser.parse_args()

    records, truth = simulate(args.games, args.bots, seed=1)
    rankings = [record.ranking() for record in records]
    seats = sum(len(r.seats) for r in records)
    print(f"{args.games:,} games among {args.bots} bots, {seats:,} seats")

    fit_only = best_of(args.repeat, lambda: fit_plackett_luce(rankings, intervals=False))
    with_cov = best_of(args.repeat, lambda: fit_plackett_luce(rankings))
    table = best_of(args.repeat, lambda: compute_standings(records))
    print(f"{'fit (MM, no intervals)':<32} {fit_only:8.3f} s")
    print(f"{'fit + Fisher covariance':<32} {with_cov:8.3f} s")
    print(f"{'compute_standings (whole table)':<32} {table:8.3f} s")
    if args.bootstrap:
        boot = best_of(1, lambda: compute_standings(records, bootstrap=args.bootstrap))
        print(f"{f'compute_standings, {args.bootstrap} resamples':<32} {boot:8.3f} s")

    # One game of many players (a careless CSV): the covariance's pairs of places.
    wide = [GameRecord("wide", None, tuple(SeatRecord(f"p{i}", i + 1) for i in range(300)))]
    # Against the same number of pairs of places in 4-seat games (6 pairs a game).
    narrow, _ = simulate(300 * 299 // 2 // 6, args.bots, seed=2)
    wide_s = best_of(1, lambda: compute_standings(wide))
    narrow_s = best_of(1, lambda: compute_standings(narrow))
    print(
        f"{'one game of 300 players':<32} {wide_s:8.3f} s  ({wide_s / narrow_s:.1f}x"
        f" {len(narrow):,} games of 2-6 among {args.bots} bots; a pair loop made it 12 s)"
    )

    fit = fit_plackett_luce(rankings)
    errors = fit.standard_errors()
    assert errors is not None
    order = [int(p[3:]) for p in fit.players]
    error = fit.log_strength - truth[order]
    covered = float(np.mean(np.abs(error) <= 1.96 * errors))
    print(f"MM iterations: {fit.iterations}")
    print(
        f"largest error vs the true strengths: {ELO_PER_NAT * np.abs(error).max():.1f} Elo; "
        f"mean ±: {1.96 * ELO_PER_NAT * errors.mean():.1f} Elo; "
        f"intervals covering the truth: {covered:.0%}"
    )


if __name__ == "__main__":
    main()
