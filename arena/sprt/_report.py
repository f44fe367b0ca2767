"""An SPRT's result as text for people (`SprtResult.to_json` is the one for scripts)."""

from __future__ import annotations

from fractions import Fraction

import tabulate

from arena.sprt._run import ROLES, SprtResult

_PENTANOMIAL = {
    Fraction(-1): "0 (LL)",
    Fraction(-1, 2): "½ (LD)",
    Fraction(0): "1 (WL, DD)",
    Fraction(1, 2): "1½ (WD)",
    Fraction(1): "2 (WW)",
}
"""NEW's points in a direct pair, by the pair's difference (fastchess's pentanomial)."""


def signed(value: float, digits: int = 1) -> str:
    return f"{value:+.{digits}f}"


def verdict_line(result: SprtResult) -> str:
    """The verdict in words."""
    h = result.hypotheses
    elo0, elo1 = f"{h.elo0:+g}", f"{h.elo1:+g}"
    verdict = result.verdict
    if verdict == "H1":
        claim = "NEW is better" if h.elo0 >= 0 else f"NEW is not {-h.elo0:g} Elo worse"
        return f"H1 accepted: {claim} (the games favour NEW - OLD = {elo1} Elo over {elo0})"
    if verdict == "H0":
        if h.elo1 > 0:
            claim = f"NEW is not {elo1} Elo better"
        else:  # a test of a regression: H0 holds NEW below OLD
            claim = "NEW is worse" if h.elo1 == 0 else f"NEW is more than {-h.elo1:g} Elo worse"
        return f"H0 accepted: {claim} (the games favour NEW - OLD = {elo0} Elo over {elo1})"
    if verdict == "inconclusive":
        return f"inconclusive: the cap of {result.max_games} games came before either bound"
    return "running: no bound reached yet"


def render(result: SprtResult) -> str:
    """The whole report: bots, verdict, LLR, games, Elo, pair outcomes, faults."""
    tally, h = result.tally, result.hypotheses
    lines = [f"NEW    {result.names['new']}", f"OLD    {result.names['old']}"]
    if result.direct:
        lines.append("table  2 seats: NEW plays OLD, each deal in both seat orders")
    else:
        lines.append(
            f"table  {result.table_size} seats: the test seat and {', '.join(result.field)}"
            if len(result.field) == result.table_size - 1
            else f"table  {result.table_size} seats: the test seat and {result.table_size - 1}"
            f" of {', '.join(result.field)}"
        )
    lines += ["", verdict_line(result), ""]
    lines.append(
        f"LLR    {tally.llr:.2f}  bounds [{h.lower:.2f}, {h.upper:.2f}]"
        f"  (elo0 {h.elo0:g}, elo1 {h.elo1:g}, alpha {h.alpha:g}, beta {h.beta:g})"
    )
    lines.append(
        f"games  {result.games} in {tally.pairs} pairs (cap {result.max_games});"
        f" {result.stored} stored, {result.played} played now"
    )
    estimate, unbiased = tally.estimate(), tally.unbiased()
    if estimate is not None and unbiased is not None:
        lines.append(
            f"Elo    NEW - OLD = {signed(unbiased.elo)}, 95% interval"
            f" [{signed(unbiased.low)}, {signed(unbiased.high)}] (median-unbiased: corrected"
            " for where the test stopped)"
        )
        lines.append(
            f"       naive {signed(estimate.elo)} [{signed(estimate.low)},"
            f" {signed(estimate.high)}] (the pairs' mean, as if no test had stopped them)"
        )
        if (standings := result.standings) is not None:
            lines.append(
                f"       standings {signed(standings.elo)} [{signed(standings.low)},"
                f" {signed(standings.high)}] (arena standings of these games: the test's"
                " Elo is theirs when the games follow Plackett-Luce)"
            )
        mu0, mu1 = tally.bounds_in_score()
        lines.append(
            f"score  mean pair difference {signed(tally.mean, 4)}; elo0 and elo1 expect"
            f" {signed(mu0, 4)} and {signed(mu1, 4)}"
        )
        if not result.direct:
            shares = ", ".join(
                f"{name} {share:.0%}"
                for name, share in result.old_above_field().items()
                if share is not None
            )
            lines.append(f"field  OLD finished above {shares} (this places the field)")
    if (pairing := tally.pairing()) is not None:
        unpaired = pairing.unpaired_factor
        lines.append(
            f"pairs  NEW's and OLD's scores on a deal correlate {pairing.correlation:+.2f}; "
            + (
                f"unpaired, {unpaired:.2f}x the games ({round(result.games * unpaired):,})"
                f" for the same information (Var(D) ratio {pairing.variance_ratio:.2f})"
                if unpaired is not None
                else "the pairs cancel every difference (D is always 0)"
            )
        )
    lines.append("faults " + ", ".join(_faults(result, role) for role in ROLES))
    if tally.pairs:
        lines += ["", _outcomes(result)]
    return "\n".join(lines) + "\n"


def _faults(result: SprtResult, role: str) -> str:
    counts = result.faults[role]
    label = role.upper() if role != "field" else "field"
    total = sum(counts.values())
    if not total:
        return f"{label} 0"
    causes = ", ".join(f"{cause} {n}" for cause, n in sorted(counts.items()))
    return f"{label} {total} ({causes})"


def _outcomes(result: SprtResult) -> str:
    """The distribution of the pairs' differences, as a table with bars."""
    tally = result.tally
    values = sorted(tally.outcomes)
    if result.direct:
        values = sorted(set(values) | set(_PENTANOMIAL))
    most = max(tally.outcomes.values())
    rows = []
    for value in values:
        count = tally.outcomes.get(value, 0)
        row: list[str | int] = [_signed_fraction(value)]
        if result.direct:
            row.append(_PENTANOMIAL.get(value, ""))
        row += [count, f"{count / tally.pairs:.1%}", "#" * round(30 * count / most)]
        rows.append(row)
    headers = ["D", "NEW's points"] if result.direct else ["D"]
    headers += ["pairs", "share", ""]
    title = (
        "pair outcomes (D: NEW's points in the pair minus 1)"
        if result.direct
        else "pair outcomes (D: NEW's score minus OLD's on the same deal)"
    )
    return title + "\n" + tabulate.tabulate(rows, headers=headers, tablefmt="simple")


def _signed_fraction(value: Fraction) -> str:
    return "0" if value == 0 else f"{'+' if value > 0 else '-'}{abs(value)}"
