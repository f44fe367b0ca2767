"""`arena replay`'s play-by-play of faults that change nothing."""

from __future__ import annotations

from arena.replay import describe, render

from .sites import replay_with_late_faults


def test_a_fault_that_changes_nothing_says_so_in_the_play_by_play() -> None:
    """A replay records a fault of a seat already out (its process ended after it was
    out) and one after the end (no answer to game_over); `arena replay` printed them
    as any fault, as if they had put the seat out."""
    log = replay_with_late_faults()
    for seat in (None, 0):
        faults = [line for line in render(log, seat) if line.startswith("!!")]
        assert len(faults) == 2
        assert faults[0].endswith("exited after it was out (already out: it changes nothing)")
        assert faults[1].endswith("no game_over (after the game's end: it changes nothing)")


def test_a_seat_out_for_reaching_the_target_lays_no_card_in_the_play_by_play() -> None:
    """R9.3.a: a seat that reaches the target leaves with no card laid face up; the
    play-by-play (and the viewer's move text) said it "lays - face up"."""
    event = {"type": "eliminated", "seat": 1, "cause": "target", "cards": [], "place": 3}
    assert describe(event, ["ann", "bob"]) == "bob (seat 1) is out (target) -> place 3"
    event = {**event, "cause": "crash", "cards": ["5", "R"]}
    assert (
        describe(event, ["ann", "bob"])
        == "bob (seat 1) is out (crash), lays 5 R face up -> place 3"
    )


def test_a_points_rounds_end_gives_each_seats_points_and_a_dash_for_one_out() -> None:
    """R9.3: a round's end gives each seat's hand points and score, by seat; a seat out
    of the game has none (nil on the wire, SPEC §10), shown as a dash (it printed a
    Python list: "hand points [None, 43, 60]")."""
    event = {"type": "round_end", "round": 2, "hand_points": [None, 43, 60],
             "scores": [None, 87, 112]}  # fmt: skip
    assert describe(event, ["ann", "bob", "cat"]) == (
        "-- round 2 ends: hand points - 43 60; scores - 87 112 (by seat)"
    )
