"""`arena ladder settle`: the end of a contest. No submission is taken (the server is
not running); the active versions play on, the table choice weighted to the top `top`
places, until every pair of neighbours among them is separated at 95% LOS or the budget
of games is spent; then the final standings, with their intervals."""

from __future__ import annotations

from arena.ladder._run import LadderSettings
from arena.ladder._select import SEPARATED
from arena.ladder._serve import _runner, _say, open_ladder


async def settle_ladder(settings: LadderSettings, top: int, budget: int) -> tuple[str, bool]:
    """Play until settled; (the standings as text and a last line that says whether the
    top is separated, and whether it is). The store must be a ladder's already: settling
    a mistyped path made a new one."""
    async with open_ladder(settings, existing=True) as ladder, _runner(settings) as runner:
        if runner is not None:
            ladder._runner = lambda: runner
        ladder.settling = top
        ladder.budget = ladder.games_played + budget
        ladder._check_settled()
        if len(ladder.active()) >= 2 and not ladder.settled.is_set():
            _say(
                f"settling: {len(ladder.active())} active versions, {ladder.games_played}"
                f" games; playing until the top {top} are separated at"
                f" {SEPARATED:.0%} LOS (at most {budget} games)"
            )
            await ladder.play()
        rated = ladder.rated
        separated = rated is not None and rated.separated(top)
        from arena.standings import compute_standings, render

        columns = ladder.store.result_columns().only(ladder.active())
        if not columns.game_ids:
            return "not settled: no game between the active versions\n", False
        text = render(compute_standings(columns), "simple")
        if separated:
            verdict = f"settled: every pair of neighbours in the top {top} is separated at 95% LOS"
        else:
            verdict = f"not settled: the budget was spent before the top {top} were separated"
        return f"{text}{verdict}\n", separated
