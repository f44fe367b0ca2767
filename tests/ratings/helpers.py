"""Shared helpers of the ratings tests: the reference data and simulated leagues."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt

DATA = Path(__file__).parent / "data"
NASCAR = DATA / "nascar2002.csv"
CITATIONS = DATA / "citations.csv"


def simulate(
    strengths: npt.NDArray[np.float64],
    games: int,
    seats: int,
    rng: np.random.Generator,
) -> list[list[list[str]]]:
    """Finishing orders of ``games`` Plackett–Luce games among bots ``b0, b1, ...``.

    Each game seats ``seats`` bots drawn at random; adding Gumbel noise to the
    log-strengths and sorting gives an exact Plackett–Luce draw.
    """
    tables = np.argsort(rng.random((games, len(strengths))), axis=1)[:, :seats]
    noisy = strengths[tables] + rng.gumbel(size=(games, seats))
    finish = np.take_along_axis(tables, np.argsort(-noisy, axis=1), axis=1)
    return [[[f"b{bot}"] for bot in row] for row in finish.tolist()]


def in_player_order(values: dict[str, float], players: tuple[str, ...]) -> npt.NDArray[np.float64]:
    return np.array([values[p] for p in players])
