"""Build the golden game transcripts: worked examples of every rule of RULES.md.

    python protocol/vectors/games/generate.py           # rewrite the files
    python protocol/vectors/games/generate.py --check   # exit 1 if any file is stale
    python protocol/vectors/games/generate.py --search NAME [FIRST [COUNT]]
                                                        # seeds that make NAME happen

Every scenario below is one short seeded game, played by the referee's own game
(`arena.referee._core.Core`, the code that builds the frames a bot receives) with a
fixed policy choosing the actions. Each becomes NAME.jsonl, one JSON object a line:

1. the header: the scenario's name and description, the rule ids and rulings it
   illustrates, the seed, the game's configuration, the clocks, the seats' names
   and the policy that chose the actions;
2. the start: the `game_start` each seat receives, and the events of the deal;
3. one line a decision: the step number, the seat to move, the `act` it receives
   (observation, news, clock and legal actions, exactly as on the wire, as JSON),
   the `action` it answers, the legal action that is (`chosen`), and the public
   events that followed, up to the next decision;
4. the end: the `game_over` each seat receives, and why the game ended.

The generator checks, by reading the transcript (its events and observations), that
every rule and ruling a scenario names really happens in it; `index.json` lists the
scenarios and the rules they illustrate. The seeds were found with ``--search``.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent
_ROOT = _HERE.parents[2]
if str(_ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(_ROOT))

from arena.referee import _wire  # noqa: E402
from arena.referee._clocks import Clocks  # noqa: E402
from arena.referee._core import Core  # noqa: E402
from arena.rules import Edition, Ending, Format, GameConfig, Rng, derive_seed  # noqa: E402
from protocol import MAX_REFEREE_FRAME, decode_frame, encode_frame  # noqa: E402

RULES_PATH = _ROOT / "protocol" / "RULES.md"
CLOCKS = Clocks()
"""The default clocks: 1000 ms a decision, no bank."""

Msg = dict[str, Any]

# ----------------------------------------------------------------------------- policies


@dataclass(frozen=True)
class Policy:
    """How a seat chooses: the first preference that is legal, else the fallback.

    A preference is a card code ("P2": play it), "quad", "bust" (the first bust) or
    "bust CODE"; prefixed with "owes2 " or "owes1 " it applies only when the seat
    owes that many cards. The fallback is "first" or "last" legal action, "high"
    (the highest number card that may be played, else the first action) or "random"
    (a seeded choice: derive_seed("golden", seed, step) drives the game's Rng).
    """

    prefer: tuple[str, ...] = ()
    then: str = "random"

    def describe(self) -> str:
        then = {
            "first": "the first legal action",
            "last": "the last legal action",
            "high": "the highest number card, else the first legal action",
            "random": "a seeded random legal action",
        }[self.then]
        if not self.prefer:
            return then
        return f"prefer {', '.join(self.prefer)}; else {then}"

    def choose(self, act: Msg, seed: int, step: int) -> int:
        legal: list[Msg] = act["legal"]
        owes = act["observation"]["owes"]
        for want in self.prefer:
            if want.startswith("owes"):
                cond, _, want = want.partition(" ")
                if owes != int(cond[4:]):
                    continue
            for i, action in enumerate(legal):
                if _matches(action, want):
                    return i
        if self.then == "first":
            return 0
        if self.then == "last":
            return len(legal) - 1
        if self.then == "high":
            numbers = [
                (int(a["card"]), i)
                for i, a in enumerate(legal)
                if a["kind"] == "play" and a["card"].isdigit() and a["card"] != "99"
            ]
            return max(numbers)[1] if numbers else 0
        return Rng(derive_seed("golden", seed, step)).below(len(legal))


def _matches(action: Msg, want: str) -> bool:
    if want in ("quad", "bust"):
        return bool(action["kind"] == want)
    if want.startswith("bust "):
        return bool(action["kind"] == "bust" and action["card"] == want[5:])
    return bool(action["kind"] == "play" and action["card"] == want)


# ----------------------------------------------------------------------------- scenarios


@dataclass(frozen=True)
class Scenario:
    """One golden game."""

    name: str
    description: str
    config: GameConfig
    seed: int
    rules: tuple[str, ...]
    """The rule ids of RULES.md the game shows."""
    rulings: tuple[str, ...] = ()
    """The rulings (keys of RULINGS) the game shows."""
    policy: Policy | tuple[Policy, ...] = Policy()
    """One policy for every seat, or one per seat."""
    parts: tuple[str, ...] = ()
    """Parts of its rules the game must show too: "R6.5/floor", "ruling R7.4/first-card"."""
    max_steps: int = 120
    """The longest game `--search` accepts."""

    def policy_of(self, seat: int) -> Policy:
        return self.policy[seat] if isinstance(self.policy, tuple) else self.policy

    def describe_policy(self) -> str | list[str]:
        if isinstance(self.policy, tuple):
            return [p.describe() for p in self.policy]
        return self.policy.describe()


def _cfg(players: int = 2, edition: str = "2022", fmt: str = "single", **kw: Any) -> GameConfig:
    return GameConfig(players=players, edition=Edition(edition), format=Format(fmt), **kw)


RANDOM = Policy()
PASS_ON = Policy(("owes2 P2", "owes2 DP", "owes2 R", "owes2 H"), "random")
"""Answers every Play 2 (Double Play) it can, else plays at random."""

SCENARIOS: list[Scenario] = [
    Scenario(
        "single_2022_2p",
        "A whole two-player game of the 2022 edition, single format: the deal, plays that "
        "add to the total, the limit of 98, -10 floored at 0, and the end when a player "
        "cannot play.",
        _cfg(),
        seed=95,
        rules=(
            "R1.1", "R2.1", "R2.3", "R3.1", "R4.1", "R4.2", "R4.4", "R5.1", "R5.2", "R6.1",
            "R6.2", "R6.5", "R9.1", "R10.1", "R10.2",
        ),
        rulings=("R4.2",),
        parts=("R4.2/exactly-99", "R6.5/floor", "R6.5/minus"),
    ),
    Scenario(
        "single_2022_3p",
        "Three players: seat 0 starts and play goes clockwise; a Reverse turns the "
        "direction; the first player out finishes 3rd and the next 2nd, and a Reverse "
        "with two players left does nothing.",
        _cfg(3),
        seed=88,
        rules=("R1.1", "R3.2", "R4.4", "R5.1", "R5.3", "R6.4"),
        rulings=("R3.2", "R5.3", "R6.4"),
        parts=("R4.4/skips", "R5.1/face-up", "R6.4/reverses", "ruling R6.4/two-in-game"),
    ),
    Scenario(
        "reverse_two_left_2022_2p",
        "Two players: a Reverse counts as a 0, even as the first of two cards owed after a "
        "Play 2, where it does not answer it: the player still owes the second card.",
        _cfg(),
        seed=34,
        rules=("R6.4", "R6.6", "R7.1"),
        rulings=("R6.4",),
        policy=Policy(("owes2 R", "P2"), "random"),
        parts=("ruling R6.4/no-answer",),
    ),
    Scenario(
        "play2_chain_2022_2p",
        "Play 2 answered by Play 2, back and forth: whoever finally does not answer plays "
        "exactly two cards, drawing after each.",
        _cfg(),
        seed=17,
        rules=("R6.6", "R7.1", "R7.2", "R7.3"),
        policy=Policy(("P2",), "random"),
        parts=("R7.2/play2",),
    ),
    Scenario(
        "play2_reverse_answer_2022_3p",
        "Three players: a Reverse answers a Play 2, and the player before, in the new "
        "direction, owes two cards.",
        _cfg(3),
        seed=32,
        rules=("R7.2", "R6.4", "R4.4"),
        policy=Policy(("owes2 R", "P2"), "random"),
        parts=("R7.2/reverse",),
    ),
    Scenario(
        "play2_out_on_second_2022_2p",
        "A player owing two plays the first card but cannot play the second: out, and the "
        "other player, the last left, wins.",
        _cfg(),
        seed=174,
        rules=("R7.4", "R5.2"),
        rulings=("R5.2",),
        policy=Policy(("P2",), "high"),
    ),
    Scenario(
        "play2_out_on_first_2022_3p",
        "A player owing two cannot play even the first card: out at once, and the "
        "obligation ends with them.",
        _cfg(3),
        seed=500,
        rules=("R7.4",),
        rulings=("R7.4",),
        policy=Policy(("P2",), "high"),
        parts=("ruling R7.4/first-card",),
    ),
    Scenario(
        "play2_second_card_2022_3p",
        "The second of two owed cards is an ordinary play: a Play 2 played second makes "
        "the next player owe two, and a Reverse played second turns the direction.",
        _cfg(3),
        seed=987,
        rules=("R7.1", "R7.4"),
        rulings=("R7.4",),
        policy=Policy(("owes1 P2", "owes1 R", "P2"), "random"),
        parts=("ruling R7.4/play2-second", "ruling R7.4/reverse-second"),
    ),
    Scenario(
        "quad_2022_2p",
        "Four ONO 99 in a hand: the discard of all four is the only legal action; it adds "
        "nothing, draws four, and ends the turn.",
        _cfg(),
        seed=104,
        rules=("R6.2", "R6.3"),
        rulings=("R6.3", "quad-only"),
        parts=("ruling R6.3/turn-passes",),
    ),
    Scenario(
        "quad_under_play2_2022_2p",
        "Four ONO 99 under a Play 2: the discard counts as the first of the two cards, and "
        "the player then plays the second.",
        _cfg(),
        seed=446,
        rules=("R6.3",),
        rulings=("R6.3", "quad-only"),
        policy=Policy(("P2",), "random"),
        parts=("ruling R6.3/under-play2",),
    ),
    Scenario(
        "reshuffle_1980_4p",
        "A four-player 1980 game: the 54-card deck, Holds, -10 below zero, and the "
        "draw pile running out: the discard pile is shuffled into a new one.",
        _cfg(4, "1980"),
        seed=45,
        rules=("R2.2", "R4.3", "R6.7", "R8.2", "R8.3"),
        rulings=("R4.3",),
        policy=Policy(("-10", "H", "R", "DP"), "first"),
        parts=("R4.3/reshuffle",),
        max_steps=90,
    ),
    Scenario(
        "double_play_1980_3p",
        "1980, three players: a Double Play answered by a Hold and by a Reverse, never by "
        "another Double Play.",
        _cfg(3, "1980"),
        seed=222,
        rules=("R2.2", "R7.5"),
        policy=PASS_ON,
        parts=("R7.5/hold-answers", "R7.5/reverse-answers", "R7.5/no-dp-answer"),
    ),
    Scenario(
        "four_ono_1980_single_2p",
        "1980: no four-ONO-99 discard; a hand of four ONO 99 cannot play and is out.",
        _cfg(edition="1980"),
        seed=883,
        rules=("R8.1",),
        parts=("R8.1/eliminated",),
    ),
    Scenario(
        "ono_on_tens_1980_2p",
        "1980 with ONO on tens: an ONO 99 played on a total ending in zero adds 0, at most "
        "once a turn, the two cards owed under a Double Play included.",
        _cfg(edition="1980", ono_on_tens=True),
        seed=583,
        rules=("R8.4",),
        rulings=("R8.4",),
        policy=Policy(("99", "DP"), "random"),
    ),
    Scenario(
        "tokens_2022_3p",
        "Tokens (1 each), three players, 2022 rules: a player who cannot play loses a "
        "token and a new round is dealt, starting one seat on; with no token left, out.",
        _cfg(3, fmt="tokens", tokens=1),
        seed=4,
        rules=("R9.2", "R9.4", "R5.1"),
        rulings=("R9", "R9.2", "R9.4"),
        policy=Policy((), "high"),
        parts=("R9.2/token-lost", "R9.2/eliminated"),
        max_steps=150,
    ),
    Scenario(
        "points_2022_2p",
        "Points with the defaults (target 100, ending elimination), 2022 rules: busts, on "
        "purpose and forced, round scores, and the player who reaches 100 is out.",
        _cfg(fmt="points"),
        seed=125,
        rules=("R8.5", "R9.3", "R9.3.a", "R9.4"),
        rulings=("R4.2", "R8.5", "R9", "R9.3-target", "ending-default"),
        parts=("ruling R4.2/bust-on-purpose", "ruling R4.2/must-bust"),
        max_steps=150,
    ),
    Scenario(
        "points_elimination_2022_3p",
        "Points, ending elimination, target 40, three players: a player who reaches the "
        "target leaves the game, and the others play on.",
        _cfg(3, fmt="points", target=40),
        seed=2975,
        rules=("R9.3", "R9.3.a", "R9.4"),
        parts=("R9.3.a/goes-on",),
        max_steps=150,
    ),
    Scenario(
        "points_reverse_2022_3p",
        "Points, three players: a bust leaves the total as it was and its card on the "
        "discard pile; with one player out of the round, a Reverse still turns the "
        "direction, since three players are still in the game.",
        _cfg(3, fmt="points", target=25),
        seed=14,
        rules=("R6.4", "R9.3"),
        rulings=("R6.4", "R9.3-discard"),
        policy=Policy(("R",), "random"),
        parts=("ruling R6.4/round-out-count",),
    ),
    Scenario(
        "points_lowest_1980_3p",
        "1980, points, ending lowest, target 30: the game ends after the first round in "
        "which a player reaches the target, everyone ranked by score; a Double Play owed "
        "as the first card is a card to bust with.",
        _cfg(3, "1980", "points", target=30, ending=Ending.LOWEST),
        seed=64,
        rules=("R9.3", "R9.3.b", "R7.5", "R2.2"),
        rulings=("dp-bust",),
        policy=Policy(("DP",), "random"),
    ),
    Scenario(
        "four_ono_1980_points_2p",
        "1980, points: a hand of four ONO 99 has no action at all, and is out of the round "
        "without playing.",
        _cfg(edition="1980", fmt="points", target=25),
        seed=883,
        rules=("R8.1", "R9.3"),
        parts=("R8.1/out-of-round",),
    ),
    Scenario(
        "play_cap_2022_2p",
        "A play cap of 8: the game ends after the 8th play, and both players share 1st place.",
        _cfg(play_cap=8),
        seed=27,
        rules=("R5.4",),
        rulings=("R5.4",),
    ),
]  # fmt: skip

# ----------------------------------------------------------------------------- rulings

RULINGS: dict[str, str] = {
    "R3.2": "The seats are numbered 0 to n-1",
    "R4.2": "A player who holds a playable card must play a playable card",
    "R4.3": "If both piles are empty",
    "R5.2": "The arena eliminates players one at a time",
    "R5.3": "Finishing order: the winner is 1st",
    "R5.4": "A game that reaches the configured play cap",
    "R6.3": "The discard is the player's play for that turn",
    "R6.4": '"Two players" means two players still in the game',
    "R7.4": "A player who owes two and cannot play even the first card",
    "R8.4": "The two cards a player owes under a Double Play are one turn",
    "R8.5": "In the arena the referee draws for the bot",
    "R9": "The 2022 rules may therefore also be played with tokens or points",
    "R9.2": "The finishing order follows the order of elimination",
    "R9.3-target": "100 by default",
    "R9.3-discard": "The busting card goes onto the discard pile",
    "R9.4": "In formats with several rounds",
    "quad-only": "R6.3 lets a player with four ONO 99",
    "dp-bust": "R9.3 speaks of a card",
    "ending-default": ": R9.3 names no default",
}
"""Every [ruling] of RULES.md by a short key: the words that follow its mark there."""

RULE_DEFINITION = re.compile(r"^\*\*(R\d+(?:\.\d+)+(?:\.[a-z])?)\*\*", re.MULTILINE)
RULING_MARK = re.compile(r"\*{0,2}\[ruling\]\*{0,2}")


def rule_ids(text: str) -> list[str]:
    """The rule ids RULES.md defines, in order."""
    return RULE_DEFINITION.findall(text)


def ruling_texts(text: str) -> list[str]:
    """The words after each [ruling] mark of RULES.md (markdown emphasis removed, spaces
    joined), except the marks that only refer back to a ruling, "(R4.2 [ruling])", and
    those of the introduction, before R1.1."""
    out = []
    for match in RULING_MARK.finditer(text, text.index("**R1.1**")):
        before = text[max(0, match.start() - 12) : match.start()]
        after = text[match.end() : match.end() + 120]
        if re.search(r"\(R[\d.]+ \*{0,2}$", before) and after.startswith(")"):
            continue  # a reference to a ruling, not a ruling
        out.append(" ".join(after.replace("*", "").split()))
    return out


def ruling_key(words: str) -> str | None:
    """The key of RULINGS whose words open `words`."""
    found = [key for key, start in RULINGS.items() if words.startswith(start)]
    return found[0] if len(found) == 1 else None


# ----------------------------------------------------------------------------- playing


def play(scenario: Scenario, seed: int | None = None) -> list[Msg]:
    """The transcript of `scenario` (with another seed for --search), as JSON objects."""
    seed = scenario.seed if seed is None else seed
    config = scenario.config
    n = config.players
    names = [f"bot{seat}" for seat in range(n)]
    core = Core(config, seed)
    lines: list[Msg] = [
        {
            "transcript": scenario.name,
            "description": scenario.description,
            "rules": list(scenario.rules),
            "rulings": list(scenario.rulings),
            "seed": seed,
            "config": config.to_dict(),
            "clocks": {k: CLOCKS.to_dict()[k] for k in ("decision_ms", "bank_ms", "increment_ms")},
            "names": names,
            "policy": scenario.describe_policy(),
        },
        {
            "game_start": [
                _wire.game_start(scenario.name, seat, names, config, core.hand(seat), CLOCKS)
                for seat in range(n)
            ],
            "events": core.take_events(),
        },
    ]
    request_ids = [0] * n
    step = 0
    while (seat := core.to_move) is not None:
        step += 1
        if step > 10 * scenario.max_steps:
            raise AssertionError(f"{scenario.name}: no end after {step} steps")
        request_ids[seat] += 1
        frame = core.act_frame(seat, request_ids[seat], CLOCKS.decision_ms, CLOCKS.bank_ms)
        act = decode_frame(frame, max_frame=MAX_REFEREE_FRAME)
        if encode_frame(json.loads(json.dumps(act))) != frame:
            raise AssertionError(f"{scenario.name}: the JSON of an act is not its frame")
        choice = scenario.policy_of(seat).choose(act, seed, step)
        core.apply(choice)
        lines.append(
            {
                "step": step,
                "seat": seat,
                "act": act,
                "action": {"type": "action", "request_id": request_ids[seat], "choice": choice},
                "chosen": act["legal"][choice],
                "events": core.take_events(),
            }
        )
    outcome = core.outcome()
    lines.append(
        {
            "game_over": [
                _wire.game_over(scenario.name, outcome, core.news(seat)) for seat in range(n)
            ],
            "reason": outcome.reason.value,
            "rounds": outcome.rounds,
            "plays": outcome.plays,
        }
    )
    return lines


def render(lines: list[Msg]) -> bytes:
    """JSON lines: compact, keys in the order they were built, UTF-8."""
    text = "".join(
        json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n" for line in lines
    )
    return text.encode("utf-8")


# ----------------------------------------------------------------------------- reading


class CheckFailed(AssertionError):
    """A transcript breaks a rule it was checked against."""


@dataclass
class Transcript:
    """A transcript read back: header, start, steps and end, with helpers for checks."""

    lines: list[Msg]
    header: Msg = field(init=False)
    start: Msg = field(init=False)
    steps: list[Msg] = field(init=False)
    end: Msg = field(init=False)
    config: GameConfig = field(init=False)

    def __post_init__(self) -> None:
        self.header, self.start, *self.steps, self.end = self.lines
        self.config = GameConfig.from_dict(self.header["config"])

    @property
    def n(self) -> int:
        return self.config.players

    @property
    def e1980(self) -> bool:
        return self.config.edition is Edition.E1980

    def obs(self, i: int) -> Msg:
        """The observation of step index i (0-based)."""
        observation: Msg = self.steps[i]["act"]["observation"]
        return observation

    def next_obs(self, i: int) -> Msg | None:
        return self.obs(i + 1) if i + 1 < len(self.steps) else None

    def events(self) -> list[Msg]:
        """Every public event, in order."""
        out = list(self.start["events"])
        for step in self.steps:
            out.extend(step["events"])
        return out

    def plays_of(self, code: str) -> Iterator[int]:
        """The step indexes where the seat played `code`."""
        for i, step in enumerate(self.steps):
            if step["chosen"] == {"kind": "play", "card": code}:
                yield i

    def same_round_next(self, i: int) -> Msg | None:
        """The next observation, if it is of the same round (no deal in between)."""
        if any(e["type"] == "round_start" for e in self.steps[i]["events"]):
            return None
        return self.next_obs(i)


def _fail(t: Transcript, i: int | None, text: str) -> CheckFailed:
    where = f" (step {t.steps[i]['step']})" if i is not None else ""
    return CheckFailed(f"{t.header['transcript']}{where}: {text}")


def _number(code: str) -> int | None:
    """The value of a number card, None for any other card."""
    return int(code) if code.isdigit() and code != "99" else None


def _answers(t: Transcript, i: int) -> bool:
    """True if step i is the first of two owed cards and passes the obligation on."""
    obs = t.obs(i)
    chosen = t.steps[i]["chosen"]
    if obs["owes"] != 2 or chosen["kind"] != "play":
        return False
    card = chosen["card"]
    if card in ("P2", "DP"):
        return True
    if card == "R":
        return sum(obs["in_game"]) > 2
    return bool(card == "H")


# ----------------------------------------------------------------------------- checks
#
# A check reads a transcript and returns the parts of its rule it saw happen (an empty
# set: the rule does not show in this game); it raises CheckFailed if the game breaks
# the rule. Every check runs on every transcript; a scenario must show each rule it
# names, and together the transcripts must show every part in PARTS.

Check = Callable[[Transcript], set[str]]
RULE_CHECKS: dict[str, Check] = {}
RULING_CHECKS: dict[str, Check] = {}
PARTS: dict[str, set[str]] = {}
"""Per rule ("R6.4") or ruling ("ruling R6.4"), the parts the transcripts must show."""


def rule(rule_id: str, *parts: str) -> Callable[[Check], Check]:
    def register(check: Check) -> Check:
        RULE_CHECKS[rule_id] = check
        PARTS[rule_id] = set(parts) or {"seen"}
        return check

    return register


def ruling(key: str, *parts: str) -> Callable[[Check], Check]:
    def register(check: Check) -> Check:
        RULING_CHECKS[key] = check
        PARTS[f"ruling {key}"] = set(parts) or {"seen"}
        return check

    return register


def _seen(flag: bool) -> set[str]:
    return {"seen"} if flag else set()


@rule("R1.1")
@rule("R5.2")
def _last_player_wins(t: Transcript) -> set[str]:
    over = t.end["game_over"][0]
    if t.end["reason"] != "last_player":
        return set()
    out = {e["seat"] for e in over["eliminations"]}
    left = [s for s in range(t.n) if s not in out]
    if len(left) != 1 or over["places"][left[0]] != 1 or over["places"].count(1) != 1:
        raise _fail(t, None, f"the last player left is not the only winner: {over['places']}")
    return {"seen"}


def _codes(t: Transcript) -> set[str]:
    seen: set[str] = set()
    for start in t.start["game_start"]:
        seen.update(start["hand"])
    for i, step in enumerate(t.steps):
        seen.update(t.obs(i)["hand"])
        seen.update(t.obs(i)["discard"])
        seen.update(a["card"] for a in step["act"]["legal"] if "card" in a)
    return seen


def _deck_check(t: Transcript, edition: str, size: int, codes: set[str]) -> set[str]:
    if t.config.edition.value != edition:
        return set()
    for event in t.events():
        if event["type"] == "round_start":
            dealt = sum(event["hand_sizes"]) + event["draw_size"]
            if dealt != size:
                raise _fail(t, None, f"a deal of {dealt} cards, not {size}")
    stray = _codes(t) - codes
    if stray:
        raise _fail(t, None, f"cards not in the {edition} deck: {sorted(stray)}")
    return {"seen"}


CODES_2022 = {str(v) for v in range(11)} | {"99", "R", "-10", "P2"}
CODES_1980 = {str(v) for v in range(2, 11)} | {"99", "R", "-10", "H", "DP"}


@rule("R2.1")
def _deck_2022(t: Transcript) -> set[str]:
    return _deck_check(t, "2022", 112, CODES_2022)


@rule("R2.2")
def _deck_1980(t: Transcript) -> set[str]:
    return _deck_check(t, "1980", 54, CODES_1980)


@rule("R2.3")
def _players(t: Transcript) -> set[str]:
    if not 2 <= t.n <= 6 or len(t.start["game_start"]) != t.n:
        raise _fail(t, None, f"{t.n} players")
    return {"seen"}


@rule("R3.1")
def _deal(t: Transcript) -> set[str]:
    first = t.start["events"][0]
    if first["type"] != "round_start" or first["hand_sizes"] != [4] * t.n:
        raise _fail(t, None, f"the deal is not four cards each: {first}")
    if any(len(s["hand"]) != 4 for s in t.start["game_start"]):
        raise _fail(t, None, "a game_start hand without four cards")
    obs = t.obs(0)
    if (obs["total"], obs["discard"], obs["plays"]) != (0, [], 0):
        raise _fail(t, 0, "the first act is not at total 0 with an empty discard pile")
    if obs["hand"] != t.start["game_start"][obs["seat"]]["hand"]:
        raise _fail(t, 0, "the first act's hand is not the hand dealt")
    return {"seen"}


@rule("R3.2")
@ruling("R3.2")
def _starter(t: Transcript) -> set[str]:
    if t.steps[0]["seat"] != 0 or t.obs(0)["direction"] != 1:
        raise _fail(t, 0, "seat 0 does not start clockwise")
    for i in range(len(t.steps) - 1):
        if t.steps[i + 1]["seat"] != 0:
            obs = t.obs(i + 1)
            seen = t.n > 2 and obs["direction"] == 1 and t.steps[i + 1]["seat"] == 1
            return _seen(seen and obs["round"] == 1)
    return set()


@rule("R4.1")
@rule("R6.1")
def _numbers_add(t: Transcript) -> set[str]:
    seen = False
    for i, step in enumerate(t.steps):
        chosen = step["chosen"]
        value = _number(chosen.get("card", "")) if chosen["kind"] == "play" else None
        if value is None:
            continue
        want = {"type": "play", "seat": step["seat"], "card": chosen["card"]}
        want["total"] = t.obs(i)["total"] + value
        if step["events"][0] != want:
            raise _fail(t, i, f"{step['events'][0]} after playing {chosen['card']}")
        seen = True
    return _seen(seen)


@rule("R4.2", "limit", "exactly-99")
def _limit(t: Transcript) -> set[str]:
    parts: set[str] = set()
    for i, step in enumerate(t.steps):
        obs = t.obs(i)
        plays = {a["card"] for a in step["act"]["legal"] if a["kind"] == "play"}
        for code in set(obs["hand"]):
            value = _number(code)
            if value is None:
                continue
            playable = obs["total"] + value <= 98
            if playable != (code in plays):
                raise _fail(t, i, f"{code} at {obs['total']}: offered {code in plays}")
            if not playable and plays:
                parts.add("limit")
            if obs["total"] + value == 99:
                parts.add("exactly-99")
    return parts


@ruling("R4.2", "must-play", "bust-on-purpose", "must-bust")
def _bust_or_not(t: Transcript) -> set[str]:
    parts: set[str] = set()
    points = t.config.format is Format.POINTS
    for i, step in enumerate(t.steps):
        legal = step["act"]["legal"]
        kinds = {a["kind"] for a in legal}
        if not points:
            if "bust" in kinds:
                raise _fail(t, i, "a bust outside the points format")
            obs = t.obs(i)
            if any((v := _number(c)) is not None and obs["total"] + v > 98 for c in obs["hand"]):
                parts.add("must-play")
        elif step["chosen"]["kind"] == "bust":
            parts.add("bust-on-purpose" if kinds & {"play", "quad"} else "must-bust")
    return parts


@rule("R4.3", "draw", "reshuffle")
def _draws(t: Transcript) -> set[str]:
    parts: set[str] = set()
    for i, step in enumerate(t.steps):
        events = step["events"]
        kind = step["chosen"]["kind"]
        rest = events[1:]
        if rest and rest[0]["type"] == "reshuffle":
            discard = t.obs(i)["discard"]
            cards = 4 if kind == "quad" else 1
            if rest[0]["count"] != len(discard) + cards:
                raise _fail(t, i, f"a reshuffle of {rest[0]['count']} cards")
            parts.add("reshuffle")
            rest = rest[1:]
            later = t.same_round_next(i)
            last_total = [e["total"] for e in events if e["type"] == "play"]
            if later is not None and last_total and later["total"] != last_total[-1]:
                raise _fail(t, i, "the total changed at a reshuffle")
        want = {"type": "draw", "seat": step["seat"], "count": 4 if kind == "quad" else 1}
        if not rest or rest[0] != want:
            raise _fail(t, i, f"{events} after {kind}")
        parts.add("draw")
    return parts


@ruling("R4.3", "never-short")
def _never_short(t: Transcript) -> set[str]:
    for i in range(len(t.steps)):
        obs = t.obs(i)
        for seat in range(t.n):
            if obs["in_game"][seat] and obs["hand_sizes"][seat] != 4:
                raise _fail(t, i, f"seat {seat} holds {obs['hand_sizes'][seat]} cards")
    reshuffled = any(e["type"] == "reshuffle" for e in t.events())
    return {"never-short"} if reshuffled else set()


def _next_in(seat: int, direction: int, members: list[bool]) -> int:
    n = len(members)
    for k in range(1, n + 1):
        s = (seat + k * direction) % n
        if members[s]:
            return s
    raise AssertionError("nobody left")


@rule("R4.4", "next", "skips")
def _turn_order(t: Transcript) -> set[str]:
    parts: set[str] = set()
    for i in range(len(t.steps) - 1):
        seat, after = t.steps[i]["seat"], t.steps[i + 1]["seat"]
        obs = t.same_round_next(i)
        if obs is None or after == seat:
            continue
        expected = _next_in(seat, obs["direction"], obs["in_round"])
        if after != expected:
            raise _fail(t, i + 1, f"seat {after} moves, not seat {expected}")
        parts.add("next")
        if expected != (seat + obs["direction"]) % t.n:
            parts.add("skips")
    return parts


def _stuck(t: Transcript, total: int, cards: list[str], owes: int) -> bool:
    """True if a hand has no legal action at `total` (outside the points format)."""
    for code in cards:
        value = _number(code)
        if value is not None and total + value <= 98:
            return False
        if code in ("R", "-10", "P2", "H") or (code == "DP" and owes == 1):
            return False
        if code == "99" and t.config.ono_on_tens and total % 10 == 0:
            return False
    return t.e1980 or cards != ["99"] * 4


def _walk(t: Transcript) -> Iterator[tuple[int, Msg, int, int]]:
    """Every event of the steps with its step index, the total and the seat's owes then."""
    for i, step in enumerate(t.steps):
        obs = t.obs(i)
        total, owes = obs["total"], obs["owes"]
        for event in step["events"]:
            if event["type"] == "play":
                total, owes = event["total"], 1
            elif event["type"] == "owes_two":
                owes = 2
            elif event["type"] == "round_start":
                total, owes = 0, 1
            yield i, event, total, owes


@rule("R5.1", "no-legal-play", "face-up")
def _cannot_play(t: Transcript) -> set[str]:
    parts: set[str] = set()
    for i, event, total, owes in _walk(t):
        if event["type"] != "eliminated" or event["cause"] != "cannot_play":
            continue
        if not _stuck(t, total, event["cards"], owes):
            raise _fail(t, i, f"seat {event['seat']} out at {total} with {event['cards']}")
        parts.add("no-legal-play")
        later = t.same_round_next(i)
        if later is not None:
            seat = event["seat"]
            if later["face_up"][seat] != event["cards"] or later["in_game"][seat]:
                raise _fail(t, i + 1, f"seat {seat}'s cards are not face up")
            parts.add("face-up")
    return parts


@ruling("R5.2", "play2-first-card")
def _knocked_out_after_first(t: Transcript) -> set[str]:
    for i, step in enumerate(t.steps):
        if t.obs(i)["owes"] != 2 or _answers(t, i):
            continue
        seat = step["seat"]
        out = [e for e in step["events"] if e["type"] == "eliminated" and e["seat"] == seat]
        if out and _last_player_wins(t):
            return {"play2-first-card"}
    return set()


def _ranked_by_elimination(t: Transcript) -> set[str]:
    over = t.end["game_over"][0]
    places = [e["place"] for e in over["eliminations"]]
    if places != list(range(t.n, t.n - len(places), -1)):
        raise _fail(t, None, f"eliminated at places {places}")
    return _seen(len(places) >= 2)


@rule("R5.3")
@ruling("R5.3")
def _finishing_order(t: Transcript) -> set[str]:
    if t.config.format is Format.POINTS:
        return set()
    return _ranked_by_elimination(t)


@rule("R5.4")
@ruling("R5.4")
def _play_cap(t: Transcript) -> set[str]:
    if t.end["reason"] != "play_cap":
        return set()
    over = t.end["game_over"][0]
    if t.end["plays"] != t.config.play_cap:
        raise _fail(t, None, f"ended at {t.end['plays']} plays, cap {t.config.play_cap}")
    out = {e["seat"] for e in over["eliminations"]}
    left = [over["places"][s] for s in range(t.n) if s not in out]
    if len(set(left)) != 1 or left[0] != t.n - len(out) - len(left) + 1:
        raise _fail(t, None, f"the players left do not share the best place: {over['places']}")
    return _seen(len(left) > 1)


@rule("R6.2")
def _ono_never_played(t: Transcript) -> set[str]:
    if t.e1980:
        return set()
    seen = False
    for i, step in enumerate(t.steps):
        if {"kind": "play", "card": "99"} in step["act"]["legal"]:
            raise _fail(t, i, "an ONO 99 offered in 2022")
        seen = seen or "99" in t.obs(i)["hand"]
    return _seen(seen)


@rule("R6.3")
@ruling("R6.3", "turn-passes", "under-play2")
def _quad(t: Transcript) -> set[str]:
    parts: set[str] = set()
    for i, step in enumerate(t.steps):
        if step["chosen"]["kind"] != "quad":
            continue
        obs = t.obs(i)
        if obs["hand"] != ["99"] * 4:
            raise _fail(t, i, f"a quad from {obs['hand']}")
        if step["events"][0] != {"type": "quad", "seat": step["seat"]}:
            raise _fail(t, i, f"{step['events'][0]} after a quad")
        parts.add("seen")
        later = t.same_round_next(i)
        if later is None or _knocked_out(t, i):
            continue
        if later["total"] != obs["total"]:
            raise _fail(t, i + 1, "a quad changed the total")
        same = t.steps[i + 1]["seat"] == step["seat"]
        if obs["owes"] == 2 and same and later["owes"] == 1:
            parts.add("under-play2")
        elif obs["owes"] == 1 and not same and later["owes"] == 1:
            parts.add("turn-passes")
        else:
            raise _fail(t, i + 1, "the turn after a quad")
    return parts


@ruling("quad-only")
def _quad_only(t: Transcript) -> set[str]:
    seen = False
    for i, step in enumerate(t.steps):
        if t.obs(i)["hand"] == ["99"] * 4 and not t.e1980:
            if step["act"]["legal"] != [{"kind": "quad"}]:
                raise _fail(t, i, f"four ONO 99 and {step['act']['legal']}")
            seen = True
    return _seen(seen)


@rule("R6.4", "reverses", "as-zero")
@ruling("R6.4", "two-in-game", "no-answer", "round-out-count")
def _reverse(t: Transcript) -> set[str]:
    parts: set[str] = set()
    for i in t.plays_of("R"):
        obs = t.obs(i)
        later = t.same_round_next(i)
        if later is None:
            continue
        in_game = sum(obs["in_game"])
        flipped = later["direction"] == -obs["direction"]
        if flipped != (in_game > 2):
            raise _fail(t, i, f"a Reverse with {in_game} in the game, flipped: {flipped}")
        if in_game > 2:
            parts.add("reverses")
            if sum(obs["in_round"]) == 2:
                parts.add("round-out-count")
            continue
        parts.add("as-zero")
        if t.n > 2:
            parts.add("two-in-game")
        if obs["owes"] == 2:
            if t.steps[i + 1]["seat"] != t.steps[i]["seat"] or later["owes"] != 1:
                raise _fail(t, i + 1, "a Reverse with two left answered a Play 2")
            parts.add("no-answer")
    return parts


@rule("R6.5", "minus", "floor")
def _minus_ten(t: Transcript) -> set[str]:
    if t.e1980:
        return set()
    parts: set[str] = set()
    for i in t.plays_of("-10"):
        before = t.obs(i)["total"]
        after = t.steps[i]["events"][0]["total"]
        if after != max(0, before - 10):
            raise _fail(t, i, f"-10 took {before} to {after}")
        parts.add("floor" if before < 10 else "minus")
    return parts


def _owes_next(t: Transcript, i: int) -> bool:
    """True if step i ended with the next player owing two."""
    seat = t.steps[i]["seat"]
    owes = [e["seat"] for e in t.steps[i]["events"] if e["type"] == "owes_two"]
    return bool(owes) and owes[-1] != seat


def _knocked_out(t: Transcript, i: int) -> bool:
    """True if a player left the game or the round in step i (after its play)."""
    out = ("eliminated", "out_of_round", "token_lost")
    return any(e["type"] in out for e in t.steps[i]["events"])


@rule("R6.6")
def _play_two(t: Transcript) -> set[str]:
    seen = False
    for i in t.plays_of("P2"):
        later = t.same_round_next(i)
        if later is None or _knocked_out(t, i):
            continue
        if not _owes_next(t, i) or later["owes"] != 2:
            raise _fail(t, i, "a Play 2 without the next player owing two")
        seen = True
    return _seen(seen)


@rule("R6.7")
def _hold(t: Transcript) -> set[str]:
    seen = False
    for i in t.plays_of("H"):
        obs = t.obs(i)
        later = t.same_round_next(i)
        if obs["owes"] != 1 or later is None:
            continue
        if later["total"] != obs["total"] or later["direction"] != obs["direction"]:
            raise _fail(t, i, "a Hold changed the total or the direction")
        if later["owes"] != 1:
            raise _fail(t, i, "a Hold made the next player owe two")
        seen = True
    return _seen(seen)


@rule("R7.1")
def _two_cards(t: Transcript) -> set[str]:
    seen = False
    for i, step in enumerate(t.steps[:-1]):
        if t.obs(i)["owes"] != 2 or _answers(t, i) or step["chosen"]["kind"] != "play":
            continue
        later = t.next_obs(i)
        assert later is not None
        seat = step["seat"]
        if t.steps[i + 1]["seat"] != seat or later["owes"] != 1:
            if _knocked_out(t, i):
                continue  # R7.4
            raise _fail(t, i + 1, "no second card after the first of two")
        draws = [e for e in step["events"][1:] if e["type"] != "reshuffle"]
        if draws[0] != {"type": "draw", "seat": seat, "count": 1}:
            raise _fail(t, i, "no draw between the two cards")
        seen = True
    return _seen(seen)


@rule("R7.2", "play2", "reverse")
def _answer(t: Transcript) -> set[str]:
    parts: set[str] = set()
    for i, step in enumerate(t.steps):
        if not _answers(t, i):
            continue
        card = step["chosen"]["card"]
        later = t.same_round_next(i)
        if later is None or _knocked_out(t, i):
            continue
        if t.steps[i + 1]["seat"] == step["seat"] or later["owes"] != 2:
            raise _fail(t, i + 1, f"an answer with {card} did not pass the Play 2 on")
        parts.add("reverse" if card == "R" else "play2")
    return parts


@rule("R7.3")
def _no_adding_up(t: Transcript) -> set[str]:
    seen = False
    for i in range(len(t.steps) - 3):
        if not _answers(t, i) or t.obs(i + 1)["owes"] != 2 or _answers(t, i + 1):
            continue
        seat = t.steps[i + 1]["seat"]
        if t.steps[i + 2]["seat"] != seat or t.obs(i + 2)["owes"] != 1:
            continue  # knocked out (R7.4)
        third = t.same_round_next(i + 2)
        if third is None:
            continue
        if t.steps[i + 3]["seat"] == seat:
            raise _fail(t, i + 3, "a third card after an answered Play 2")
        seen = True
    return _seen(seen)


@rule("R7.4")
@ruling("R7.4", "first-card", "play2-second", "reverse-second")
def _second_card(t: Transcript) -> set[str]:
    parts: set[str] = set()
    for i, event, _, _ in _walk(t):
        if event["type"] != "eliminated" or event["cause"] != "cannot_play":
            continue
        events = t.steps[i]["events"]
        k = events.index(event)
        if k > 0 and events[k - 1] == {"type": "owes_two", "seat": event["seat"]}:
            parts.add("first-card")
        elif t.obs(i)["owes"] == 2 and not _answers(t, i) and t.steps[i]["seat"] == event["seat"]:
            parts.add("seen")
        else:
            continue
        if any(e["type"] == "owes_two" for e in events[k:]):
            raise _fail(t, i, "the obligation did not end with the player out")
    for i, step in enumerate(t.steps[1:], 1):
        before = t.obs(i - 1)
        if step["seat"] != t.steps[i - 1]["seat"] or before["owes"] != 2 or _answers(t, i - 1):
            continue
        later = t.same_round_next(i)
        if later is None or t.obs(i)["owes"] != 1:
            continue
        card = step["chosen"].get("card")
        if card == "P2" and _owes_next(t, i):
            parts.add("play2-second")
        if card == "R" and sum(t.obs(i)["in_game"]) > 2:
            if later["direction"] != -t.obs(i)["direction"]:
                raise _fail(t, i, "a Reverse as the second card did not reverse")
            parts.add("reverse-second")
    return parts


@rule("R7.5", "hold-answers", "reverse-answers", "no-dp-answer")
def _double_play(t: Transcript) -> set[str]:
    if not t.e1980:
        return set()
    parts: set[str] = set()
    for i, step in enumerate(t.steps):
        obs = t.obs(i)
        plays = {a["card"] for a in step["act"]["legal"] if a["kind"] == "play"}
        if obs["owes"] == 2 and "DP" in plays:
            raise _fail(t, i, "a Double Play offered as the first of two cards")
        if obs["owes"] == 2 and "DP" in obs["hand"]:
            parts.add("no-dp-answer")
        if _answers(t, i) and t.same_round_next(i) is not None:
            card = step["chosen"]["card"]
            parts.add({"H": "hold-answers", "R": "reverse-answers"}.get(card, "dp"))
    return parts & PARTS["R7.5"]


@rule("R8.1", "eliminated", "out-of-round")
def _no_quad_1980(t: Transcript) -> set[str]:
    if not t.e1980:
        return set()
    parts: set[str] = set()
    for i, step in enumerate(t.steps):
        if {"kind": "quad"} in step["act"]["legal"]:
            raise _fail(t, i, "a quad offered in 1980")
    for _, event, _, _ in _walk(t):
        if event["type"] == "eliminated" and event["cards"] == ["99"] * 4:
            parts.add("eliminated")
        if event["type"] == "out_of_round":
            parts.add("out-of-round")
    return parts


@rule("R8.2")
def _negative(t: Transcript) -> set[str]:
    if not t.e1980:
        return set()
    seen = False
    for i in t.plays_of("-10"):
        before, after = t.obs(i)["total"], t.steps[i]["events"][0]["total"]
        if after != before - 10:
            raise _fail(t, i, f"-10 took {before} to {after}")
        seen = seen or after < 0
    return _seen(seen)


@rule("R8.3")
def _hold_in_deck(t: Transcript) -> set[str]:
    return _seen(t.e1980 and any(True for _ in t.plays_of("H")))


@rule("R8.4")
@ruling("R8.4", "once-a-turn")
def _ono_on_tens(t: Transcript) -> set[str]:
    parts: set[str] = set()
    if not t.config.ono_on_tens:
        return parts
    used: tuple[int, int] | None = None  # (seat, step index) of an ONO 99 played this turn
    for i, step in enumerate(t.steps):
        obs = t.obs(i)
        seat = step["seat"]
        second = i > 0 and t.steps[i - 1]["seat"] == seat and obs["owes"] == 1
        if not second:
            used = None
        offered = {"kind": "play", "card": "99"} in step["act"]["legal"]
        may = "99" in obs["hand"] and obs["total"] % 10 == 0 and used is None
        if offered != may:
            raise _fail(t, i, f"ONO 99 offered: {offered}, at {obs['total']}")
        if used is not None and "99" in obs["hand"] and obs["total"] % 10 == 0:
            parts.add("once-a-turn")
        if step["chosen"] == {"kind": "play", "card": "99"}:
            if step["events"][0]["total"] != obs["total"]:
                raise _fail(t, i, "an ONO 99 on a ten changed the total")
            parts.add("seen")
            used = (seat, i)
    return parts


def _round_ends(t: Transcript) -> list[Msg]:
    return [e for e in t.events() if e["type"] == "round_end"]


@rule("R8.5")
@ruling("R8.5")
def _no_missing_cards(t: Transcript) -> set[str]:
    if t.config.format is not Format.POINTS:
        return set()
    _never_short(t)
    return _seen(bool(_round_ends(t)))


@ruling("R9", "tokens", "points")
def _editions_and_formats(t: Transcript) -> set[str]:
    if t.e1980 or t.config.format is Format.SINGLE:
        return set()
    return {t.config.format.value}


@rule("R9.1")
def _single(t: Transcript) -> set[str]:
    if t.config.format is not Format.SINGLE:
        return set()
    if t.end["rounds"] != 1:
        raise _fail(t, None, f"{t.end['rounds']} rounds in the single format")
    return {"seen"}


@rule("R9.2", "token-lost", "eliminated")
def _tokens(t: Transcript) -> set[str]:
    if t.config.format is not Format.TOKENS:
        return set()
    parts: set[str] = set()
    tokens = [t.config.tokens] * t.n
    for i, event, _, _ in _walk(t):
        if event["type"] == "token_lost":
            seat = event["seat"]
            tokens[seat] -= 1
            if event["tokens"] != tokens[seat]:
                raise _fail(t, i, f"{event} with {tokens[seat]} tokens left")
            parts.add("token-lost")
        elif event["type"] == "eliminated" and event["cause"] == "cannot_play":
            if tokens[event["seat"]] != 0:
                raise _fail(t, i, f"seat {event['seat']} out with tokens left")
            parts.add("eliminated")
    return parts


@ruling("R9.2")
def _tokens_order(t: Transcript) -> set[str]:
    if t.config.format is not Format.TOKENS:
        return set()
    return _ranked_by_elimination(t)


@rule("R9.3", "bust", "round-end")
@ruling("R9.3-discard")
def _points(t: Transcript) -> set[str]:
    if t.config.format is not Format.POINTS:
        return set()
    parts: set[str] = set()
    for i, step in enumerate(t.steps):
        if step["chosen"]["kind"] != "bust":
            continue
        seat, card = step["seat"], step["chosen"]["card"]
        if step["events"][:2] != [
            {"type": "bust", "seat": seat, "card": card},
            {"type": "draw", "seat": seat, "count": 1},
        ]:
            raise _fail(t, i, f"{step['events'][:2]} after a bust")
        later = t.same_round_next(i)
        if later is None:
            continue
        before = t.obs(i)
        if later["total"] != before["total"] or later["discard"][-1] != card:
            raise _fail(t, i + 1, "the total changed or the card is not on the discard pile")
        if later["in_round"][seat] or later["hand_sizes"][seat] != 4:
            raise _fail(t, i + 1, f"seat {seat} busted but is in the round")
        parts.update(("bust", "seen"))
    for end in _round_ends(t):
        parts.add("round-end")
        if any(p is not None and p < 0 for p in end["hand_points"]):
            raise _fail(t, None, f"{end}")
    return parts


@ruling("R9.3-target")
def _target_default(t: Transcript) -> set[str]:
    default = GameConfig()
    if t.config.format is not Format.POINTS or t.config.target != default.target:
        return set()
    ends = _round_ends(t)
    return _seen(bool(ends) and any(s is not None and s >= 100 for s in ends[-1]["scores"]))


@ruling("ending-default")
def _ending_default(t: Transcript) -> set[str]:
    if t.config.format is not Format.POINTS or t.config.ending is not GameConfig().ending:
        return set()
    out = [e for e in t.events() if e["type"] == "eliminated" and e["cause"] == "target"]
    return _seen(bool(out))


@ruling("dp-bust")
def _dp_bust(t: Transcript) -> set[str]:
    if not t.e1980 or t.config.format is not Format.POINTS:
        return set()
    seen = False
    for i, step in enumerate(t.steps):
        obs = t.obs(i)
        if obs["owes"] == 2 and "DP" in obs["hand"]:
            if {"kind": "bust", "card": "DP"} not in step["act"]["legal"]:
                raise _fail(t, i, "a Double Play owed first is not a card to bust with")
            seen = True
    return _seen(seen)


def _score_places(t: Transcript, seats: list[int], scores: list[int], places: list[int]) -> None:
    """Places of `seats` by score, lowest first, ties sharing: relative order checked."""
    for a in seats:
        for b in seats:
            if (scores[a] < scores[b]) != (places[a] < places[b]):
                raise _fail(t, None, f"seats {a} and {b}: scores {scores}, places {places}")


@rule("R9.3.a", "target-out", "goes-on")
def _elimination_ending(t: Transcript) -> set[str]:
    if t.config.format is not Format.POINTS or t.config.ending is not Ending.ELIMINATION:
        return set()
    parts: set[str] = set()
    over = t.end["game_over"][0]
    events = t.events()
    for k, event in enumerate(events):
        if event["type"] == "eliminated" and event["cause"] == "target":
            parts.add("target-out")
            if any(e["type"] == "round_start" for e in events[k:]):
                parts.add("goes-on")
    together = [e["seat"] for e in over["eliminations"] if e["cause"] == "target"]
    _score_places(t, together, over["points"], over["places"])
    return parts


@rule("R9.3.b")
def _lowest_ending(t: Transcript) -> set[str]:
    if t.config.format is not Format.POINTS or t.config.ending is not Ending.LOWEST:
        return set()
    over = t.end["game_over"][0]
    if t.end["reason"] != "target" or over["eliminations"]:
        raise _fail(t, None, f"a lowest game ended by {t.end['reason']}")
    ends = _round_ends(t)
    if any(s is not None and s >= t.config.target for e in ends[:-1] for s in e["scores"]):
        raise _fail(t, None, "the game went on after a player reached the target")
    _score_places(t, list(range(t.n)), over["points"], over["places"])
    return {"seen"}


@rule("R9.4")
@ruling("R9.4")
def _rounds(t: Transcript) -> set[str]:
    starter = 0
    in_game = [True] * t.n
    seen = False
    for i, event, _, _ in _walk(t):
        if event["type"] == "eliminated":
            in_game[event["seat"]] = False
        if event["type"] != "round_start" or event["round"] == 1:
            continue
        starter = _next_in(starter, 1, in_game)
        if event["starter"] != starter:
            raise _fail(t, i, f"round {event['round']} starts at {event['starter']}")
        obs = t.next_obs(i)
        if obs is None:
            continue
        if (obs["round"], obs["total"], obs["direction"], obs["discard"]) != (
            event["round"],
            0,
            1,
            [],
        ) or t.steps[i + 1]["seat"] != starter:
            raise _fail(t, i + 1, "a new round does not start afresh")
        seen = True
    return _seen(seen)


@rule("R10.1")
def _public_record(t: Transcript) -> set[str]:
    everything = t.events()
    for seat in range(t.n):
        heard: list[Msg] = []
        for step in t.steps:
            if step["seat"] == seat:
                heard.extend(step["act"]["events"])
        heard.extend(t.end["game_over"][seat]["events"])
        if heard != everything:
            raise _fail(t, None, f"seat {seat} did not hear every event once")
    return {"seen"}


OBSERVATION_KEYS = [
    "seat", "hand", "total", "direction", "to_move", "owes", "hand_sizes", "in_game",
    "in_round", "face_up", "draw_size", "discard", "scores", "tokens", "round", "plays",
]  # fmt: skip


@rule("R10.2")
def _private_hand(t: Transcript) -> set[str]:
    for i, step in enumerate(t.steps):
        obs = t.obs(i)
        if list(obs) != OBSERVATION_KEYS or obs["seat"] != step["seat"]:
            raise _fail(t, i, f"observation keys {list(obs)}")
        if len(obs["hand"]) != obs["hand_sizes"][obs["seat"]]:
            raise _fail(t, i, "the hand is not the seat's own")
    return {"seen"}


def check(lines: list[Msg], parts: tuple[str, ...] = ()) -> dict[str, set[str]]:
    """Run every check on a transcript; the parts seen, per rule id and ruling. Raises
    CheckFailed if the game breaks a rule, or does not show one its header names, or
    one of `parts` ("R6.5/floor")."""
    t = Transcript(lines)
    seen: dict[str, set[str]] = {}
    for rule_id, rule_check in RULE_CHECKS.items():
        seen[rule_id] = rule_check(t) & PARTS[rule_id]
    for key, ruling_check in RULING_CHECKS.items():
        seen[f"ruling {key}"] = ruling_check(t) & PARTS[f"ruling {key}"]
    named = [*t.header["rules"], *(f"ruling {k}" for k in t.header["rulings"])]
    missing = [key for key in named if not seen.get(key)]
    missing += [p for p in parts if p.partition("/")[2] not in seen[p.partition("/")[0]]]
    if missing:
        raise _fail(t, None, f"does not show {', '.join(missing)}")
    return seen


# ----------------------------------------------------------------------------- files


def outputs() -> dict[Path, bytes]:
    """Every file the generator writes, with its content (each transcript checked)."""
    files: dict[Path, bytes] = {}
    index = []
    for scenario in SCENARIOS:
        lines = play(scenario)
        check(lines, scenario.parts)
        files[_HERE / f"{scenario.name}.jsonl"] = render(lines)
        index.append(
            {
                "name": scenario.name,
                "description": scenario.description,
                "rules": list(scenario.rules),
                "rulings": list(scenario.rulings),
                "steps": len(lines) - 3,
            }
        )
    payload = {
        "protocol": 1,
        "generator": "protocol/vectors/games/generate.py",
        "rulings": RULINGS,
        "transcripts": index,
    }
    text = json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
    files[_HERE / "index.json"] = text.encode()
    files[_HERE / "README.md"] = render_readme(index).encode()
    return files


def render_readme(index: list[Msg]) -> str:
    """The generated README.md of the games folder."""
    lines = [
        "# Golden game transcripts",
        "",
        "Generated by `generate.py` (run `python protocol/vectors/games/generate.py`); do not",
        "edit. Worked examples of the rules: for every rule id of `protocol/RULES.md` and",
        "every [ruling], at least one short seeded game shows it happen, every step as the",
        "bot to move sees it on the wire. The generator checks, by reading the events and",
        "observations, that each game really shows the rules it names; the arena's tests",
        "regenerate these files on every run, so any change of the referee's behaviour",
        "shows as a diff here, and the Python kit's tests replay them through its codec.",
        "",
        "`NAME.jsonl` is JSON, one object a line:",
        "",
        "1. the header: `transcript`, `description`, `rules` (rule ids) and `rulings` (keys",
        "   of `rulings` in `index.json`: each key's text opens a [ruling] of RULES.md), the",
        "   `seed` and `config` of the game (`arena.rules.Game(config, seed)` deals the same",
        "   cards), the `clocks`, the seats' `names`, and the `policy` that chose the actions;",
        "2. the start: `game_start`, the message each seat receives (index = seat), and the",
        "   `events` of the deal;",
        "3. one line a decision: `step` (from 1), `seat` (the seat to move), `act` (the act",
        "   message it receives, exactly: observation, events since its last act, clock,",
        "   `legal`), `action` (its answer), `chosen` (the legal action that is) and",
        "   `events` (what followed, up to the next decision);",
        "4. the end: `game_over`, the message each seat receives, and the engine's `reason`",
        "   for the end (`last_player`, `play_cap` or `target`), `rounds` and `plays`.",
        "",
        "Every act is byte-exact: `encode_frame(act)` is the frame the referee sends.",
        "To test a bot's codec or rules code: feed a seat its `game_start`, its acts and",
        "its `game_over`, answer each act with the recorded `choice`, and compare.",
        "",
        "| transcript | steps | rules | rulings | what |",
        "|------------|-------|-------|---------|------|",
    ]
    for entry in index:
        rules = ", ".join(entry["rules"])
        rulings = ", ".join(entry["rulings"])
        what = entry["description"]
        lines.append(f"| `{entry['name']}` | {entry['steps']} | {rules} | {rulings} | {what} |")
    lines += ["", "## Where each rule is shown", "", "| rule | transcripts |", "|---|---|"]
    for rule_id in rule_ids(RULES_PATH.read_text(encoding="utf-8")):
        names = [f"`{e['name']}`" for e in index if rule_id in e["rules"]]
        lines.append(f"| {rule_id} | {', '.join(names)} |")
    for key, words in RULINGS.items():
        names = [f"`{e['name']}`" for e in index if key in e["rulings"]]
        lines.append(f"| [ruling] `{key}`: {words} … | {', '.join(names)} |")
    return "\n".join(lines) + "\n"


def stale_files(files: dict[Path, bytes]) -> list[Path]:
    """The generated files whose content on disk differs (or that are missing)."""
    return [p for p, data in files.items() if not p.exists() or p.read_bytes() != data]


def orphan_files(files: dict[Path, bytes]) -> list[Path]:
    """Transcript files on disk that the generator no longer makes."""
    found = [*_HERE.glob("*.jsonl"), *_HERE.glob("*.json"), *_HERE.glob("*.md")]
    return sorted(p for p in found if p not in files)


def search(name: str, first: int = 1, count: int = 20000) -> int:
    """Print the seeds from `first` on whose game shows everything scenario `name` names
    (shortest first among the first 30 found); returns the exit status."""
    scenario = next(s for s in SCENARIOS if s.name == name)
    found: list[tuple[int, int]] = []
    for seed in range(first, first + count):
        try:
            lines = play(scenario, seed)
        except AssertionError:
            continue
        if len(lines) - 3 > scenario.max_steps:
            continue
        try:
            check(lines, scenario.parts)
        except CheckFailed as err:
            if "does not show" not in str(err):
                print(f"seed {seed}: {err}", file=sys.stderr)
            continue
        found.append((len(lines) - 3, seed))
        if len(found) == 30:
            break
    for steps, seed in sorted(found):
        print(f"seed {seed}: {steps} steps")
    return 0 if found else 1


def main(argv: list[str]) -> int:
    """Write the files, or check them (--check), or search seeds (--search)."""
    if argv[:1] == ["--search"]:
        return search(argv[1], *(int(a) for a in argv[2:4]))
    files = outputs()
    stale = stale_files(files)
    orphans = orphan_files(files)
    if "--check" in argv:
        for path in stale:
            print(f"stale: {path.relative_to(_ROOT)}", file=sys.stderr)
        for path in orphans:
            print(f"not generated: {path.relative_to(_ROOT)}", file=sys.stderr)
        return 1 if stale or orphans else 0
    for path in stale:
        path.write_bytes(files[path])
        print(f"wrote {path.relative_to(_ROOT)}")
    for path in orphans:
        path.unlink()
        print(f"removed {path.relative_to(_ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
