"""A small fake report site, for developing and testing the web front-end.

`write(out)` copies the static front-end (``arena/report/static/``) to ``out`` and
writes ``out/data/*.js`` in the exporter's data contract: ``league.js``,
``games.js`` and one ``games/<id>.js`` per game. The games are played by a small
stand-alone ONO 99 simulation (2022 edition, single, tokens or points format) with
random players, so the replays look like real ones; the standings and the
head-to-head matrix come from `arena.standings`, exactly as ``arena standings -f
json`` and ``--matrix -f json`` give them.

Hostile data on purpose: one bot is named ``<script>alert(1)</script>`` and one fault
message is ``<img src=x onerror=alert(2)>``; a page that renders data as HTML fires
a dialog.

    python -m tests.report.fake_site OUT [--format tokens] [--live]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

from arena.standings import (
    GameRecord,
    SeatRecord,
    compute_standings,
    head_to_head,
    render,
    render_head_to_head,
)

STATIC = Path(__file__).resolve().parents[2] / "arena" / "report" / "static"

XSS_BOT = "<script>alert(1)</script>"
XSS_MESSAGE = "<img src=x onerror=alert(2)>"
LONG_BOT = "echo+a-rather-long-bot-name-to-test-the-layout.v2"
BOTS = ("alpha", "bravo_heuristic", "charlie.rand", XSS_BOT, LONG_BOT)

CARD_ORDER = ("0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "99", "R", "-10", "P2")
DECK_2022 = (
    ["0"] * 8
    + [str(n) for n in range(1, 10) for _ in range(6)]
    + ["10"] * 10
    + ["99"] * 10
    + ["R"] * 10
    + ["-10"] * 10
    + ["P2"] * 10
)
HAND_POINTS = {"99": 20, "R": 15, "-10": 15, "P2": 15}


@dataclass
class FaultPlan:
    """Seat ``seat`` faults with ``cause`` at its first decision after ``after`` plays."""

    seat: int
    cause: str
    message: str
    after: int


@dataclass
class Site:
    """What `write` wrote: the folder, the URL of its index page and the payloads."""

    root: Path
    league: dict[str, Any]
    games: list[dict[str, Any]]
    replays: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return (self.root / "index.html").as_uri()


def _sort(hand: list[str]) -> list[str]:
    return sorted(hand, key=CARD_ORDER.index)


class _Game:
    """One game of the 2022 edition, played by random players, recorded as frames."""

    def __init__(
        self,
        game_id: str,
        names: list[str],
        rng: random.Random,
        *,
        fmt: str = "single",
        play_cap: int = 5000,
        tokens: int = 3,
        target: int = 100,
        fault: FaultPlan | None = None,
    ) -> None:
        n = len(names)
        self.id = game_id
        self.names = names
        self.rng = rng
        self.fmt = fmt
        self.play_cap = play_cap
        self.target = target
        self.fault = fault
        self.n = n
        self.hands: list[list[str]] = [[] for _ in range(n)]
        self.face_up: list[list[str]] = [[] for _ in range(n)]
        self.in_game = [True] * n
        self.in_round = [True] * n
        self.scores: list[int] | None = [0] * n if fmt == "points" else None
        self.tokens: list[int] | None = [tokens] * n if fmt == "tokens" else None
        self.places: list[int | None] = [None] * n
        self.eliminated: list[dict[str, Any]] = []
        self.faults: list[dict[str, Any]] = []
        self.frames: list[dict[str, Any]] = []
        self.round = 0
        self.starter = -1
        self.total = 0
        self.direction = 1
        self.owes = 1
        self.to_move: int | None = 0
        self.draw: list[str] = []
        self.discard: list[str] = []
        self.plays = 0
        self.reason = "last_player"
        self.think: list[list[float]] = [[] for _ in range(n)]

    # -- helpers ---------------------------------------------------------------------

    def who(self, seat: int) -> str:
        return f"seat {seat} ({self.names[seat]})"

    def alive(self) -> list[int]:
        return [s for s in range(self.n) if self.in_game[s]]

    def next_seat(self, seat: int) -> int:
        for step in range(1, self.n + 1):
            s = (seat + step * self.direction) % self.n
            if self.in_game[s] and self.in_round[s]:
                return s
        return seat

    def draw_cards(self, seat: int, count: int) -> None:
        for _ in range(count):
            if not self.draw:
                self.draw = self.discard
                self.discard = []
                self.rng.shuffle(self.draw)
            if self.draw:
                self.hands[seat].append(self.draw.pop())
        self.hands[seat] = _sort(self.hands[seat])

    def value(self, card: str) -> int | None:
        """The total after ``card``, or None if the card may not be played."""
        if card == "99":
            return None
        if card == "-10":
            after = max(0, self.total - 10)
        elif card in ("R", "P2"):
            after = self.total
        else:
            after = self.total + int(card)
        return after if after <= 98 else None

    def frame(
        self,
        seat: int | None,
        kind: str,
        text: str,
        card: str | None = None,
        ms: float | None = None,
    ) -> None:
        if ms is not None and seat is not None:
            self.think[seat].append(ms)
        self.frames.append(
            {
                "i": len(self.frames),
                "seat": seat,
                "text": text,
                "kind": kind,
                "card": card,
                "ms": ms,
                "total": self.total,
                "direction": self.direction,
                "owes": self.owes,
                "to_move": self.to_move,
                "draw": len(self.draw),
                "discard_top": self.discard[-1] if self.discard else None,
                "hands": [list(h) for h in self.hands],
                "face_up": [list(f) for f in self.face_up],
                "in_game": list(self.in_game),
                "in_round": list(self.in_round),
                "scores": None if self.scores is None else list(self.scores),
                "tokens": None if self.tokens is None else list(self.tokens),
                "round": self.round,
                "eliminated": [dict(e) for e in self.eliminated],
            }
        )

    def ms(self) -> float:
        return round(self.rng.lognormvariate(-0.8, 0.7), 3)

    # -- the game --------------------------------------------------------------------

    def deal(self) -> None:
        self.round += 1
        deck = list(DECK_2022)
        self.rng.shuffle(deck)
        self.draw = deck
        self.discard = []
        self.total = 0
        self.direction = 1
        self.owes = 1
        self.hands = [[] for _ in range(self.n)]
        self.face_up = [[] for _ in range(self.n)]
        self.in_round = list(self.in_game)
        for s in self.alive():
            self.draw_cards(s, 4)
        start = self.starter
        for step in range(1, self.n + 1):
            s = (start + step) % self.n
            if self.in_game[s]:
                self.starter = s
                break
        self.to_move = self.starter

    def eliminate(self, seat: int, cause: str, place: int) -> None:
        self.in_game[seat] = False
        self.in_round[seat] = False
        self.face_up[seat] = self.hands[seat]
        self.hands[seat] = []
        self.places[seat] = place
        self.eliminated.append({"seat": seat, "cause": cause, "place": place})

    def play(self) -> dict[str, Any]:
        self.deal()
        self.frame(None, "start", f"round 1 dealt: {self.who(self.starter)} starts")
        while len(self.alive()) > 1:
            seat = self.to_move
            assert seat is not None
            if self.fault and self.fault.seat == seat and self.plays >= self.fault.after:
                self.do_fault(seat, self.fault)
                self.fault = None
                continue
            hand = self.hands[seat]
            playable = sorted({c for c in hand if self.value(c) is not None}, key=CARD_ORDER.index)
            quad = hand.count("99") == 4
            if playable or quad:
                if quad and (not playable or self.rng.random() < 0.5):
                    self.do_quad(seat)
                else:
                    self.do_play(seat, self.rng.choice(playable))
            elif self.fmt == "points":
                self.do_bust(seat)
            elif self.fmt == "tokens":
                self.lose_token(seat)
            else:
                self.cannot_play(seat)
            if self.plays >= self.play_cap and len(self.alive()) > 1:
                self.reason = "play_cap"
                for s in self.alive():
                    self.places[s] = 1
                break
        else:
            for s in self.alive():
                self.places[s] = 1
        self.to_move = None
        places = [p or 1 for p in self.places]
        order = ", ".join(
            f"{p}. {self.names[s]}" for s, p in sorted(enumerate(places), key=lambda x: x[1])
        )
        why = "the play cap is reached" if self.reason == "play_cap" else "game over"
        self.frame(None, "end", f"{why}: {order}")
        return {
            "id": self.id,
            "names": self.names,
            "config": {
                "players": self.n,
                "edition": "2022",
                "format": self.fmt,
                "tokens": 3,
                "target": self.target,
                "ending": "elimination",
                "ono_on_tens": False,
                "play_cap": self.play_cap,
            },
            "frames": self.frames,
            "result": {
                "places": places,
                "points": None if self.scores is None else list(self.scores),
                "tokens": None if self.tokens is None else list(self.tokens),
                "reason": self.reason,
                "plays": self.plays,
            },
            "faults": self.faults,
        }

    def do_play(self, seat: int, card: str) -> None:
        after = self.value(card)
        assert after is not None
        first_of_two = self.owes == 2
        self.total = after
        self.plays += 1
        self.hands[seat].remove(card)
        self.discard.append(card)
        self.draw_cards(seat, 1)
        reverses = card == "R" and len(self.alive()) > 2
        if reverses:
            self.direction = -self.direction
        if card == "P2" or (reverses and first_of_two):
            self.owes = 2
            self.to_move = self.next_seat(seat)
        elif first_of_two:
            self.owes = 1
            self.to_move = seat
        else:
            self.owes = 1
            self.to_move = self.next_seat(seat)
        names = {"R": "a Reverse", "P2": "a Play 2", "-10": "a -10"}
        text = f"{self.who(seat)} plays {names.get(card, card)}: total {self.total}"
        if self.owes == 2:
            text += f"; {self.who(self.to_move)} owes two cards"
        self.frame(seat, "play", text, card, self.ms())

    def do_quad(self, seat: int) -> None:
        self.plays += 1
        self.hands[seat] = []
        self.discard.extend(["99"] * 4)
        self.draw_cards(seat, 4)
        self.owes = 1
        self.to_move = self.next_seat(seat)
        text = f"{self.who(seat)} discards four ONO 99 and draws four: total {self.total}"
        self.frame(seat, "quad", text, "99", self.ms())

    def do_bust(self, seat: int) -> None:
        card = self.rng.choice([c for c in self.hands[seat] if c != "99"])
        self.plays += 1
        self.hands[seat].remove(card)
        self.discard.append(card)
        self.draw_cards(seat, 1)
        self.in_round[seat] = False
        self.owes = 1
        self.to_move = self.next_seat(seat)
        text = f"{self.who(seat)} cannot play and busts with {card}: out of round {self.round}"
        if sum(1 for s in self.alive() if self.in_round[s]) <= 1:
            self.frame(seat, "bust", text, card, self.ms())
            self.score_round()
        else:
            self.frame(seat, "bust", text, card, self.ms())

    def score_round(self) -> None:
        assert self.scores is not None
        added = []
        for s in self.alive():
            points = sum(HAND_POINTS[c] if c in HAND_POINTS else int(c) for c in self.hands[s])
            points += 0 if self.in_round[s] else 25
            self.scores[s] += points
            added.append(f"{self.names[s]} +{points}")
        reached = [s for s in self.alive() if self.scores[s] >= self.target]
        text = f"round {self.round} scored: " + ", ".join(added)
        if reached and len(reached) < len(self.alive()):
            reached.sort(key=lambda s: self.scores[s] if self.scores else 0)
            base = len(self.alive()) - len(reached) + 1
            for k, s in enumerate(reached):
                self.eliminate(s, "target", base + k)
            text += "; reached the target: " + ", ".join(self.names[s] for s in reached)
        elif reached:
            ranked = sorted(self.alive(), key=lambda s: self.scores[s] if self.scores else 0)
            for k, s in enumerate(ranked):
                self.places[s] = k + 1
                if k:
                    self.eliminate(s, "target", k + 1)
            self.reason = "target"
        if len(self.alive()) > 1:
            self.deal()
            text += f"; round {self.round} dealt, {self.who(self.starter)} starts"
        self.frame(None, "round", text)

    def lose_token(self, seat: int) -> None:
        assert self.tokens is not None
        if self.tokens[seat] == 0:
            self.cannot_play(seat)
            if len(self.alive()) > 1:
                self.deal()
                text = f"round {self.round} dealt, {self.who(self.starter)} starts"
                self.frame(None, "round", text)
            return
        self.tokens[seat] -= 1
        text = f"{self.who(seat)} cannot play and loses a token ({self.tokens[seat]} left)"
        self.deal()
        text += f"; round {self.round} dealt, {self.who(self.starter)} starts"
        self.frame(seat, "round", text)

    def cannot_play(self, seat: int) -> None:
        place = len(self.alive())
        self.eliminate(seat, "cannot_play", place)
        self.owes = 1
        self.to_move = self.next_seat(seat)
        self.frame(seat, "bust", f"{self.who(seat)} cannot play: out of the game, place {place}")

    def do_fault(self, seat: int, plan: FaultPlan) -> None:
        place = len(self.alive())
        self.eliminate(seat, plan.cause, place)
        self.faults.append({"seat": seat, "cause": plan.cause, "message": plan.message})
        self.owes = 1
        self.to_move = self.next_seat(seat)
        ms = 1000.0 + round(self.rng.random(), 3) if plan.cause == "timeout" else self.ms()
        text = f"{self.who(seat)} faults ({plan.cause}): out of the game, place {place}"
        self.frame(seat, "fault", text, None, ms)
        if self.scores is not None and sum(1 for s in self.alive() if self.in_round[s]) <= 1:
            self.score_round()


# -- the league ----------------------------------------------------------------------


def _faults_for(game_id: str, names: list[str]) -> FaultPlan | None:
    """The fake league's faults: the XSS bot crashes once and times out once."""
    if XSS_BOT not in names:
        return None
    seat = names.index(XSS_BOT)
    if game_id == "g000010":
        return FaultPlan(seat, "crash", XSS_MESSAGE, 5)
    if game_id == "g000020":
        return FaultPlan(seat, "timeout", "no action within 1000 ms", 3)
    return None


def play_league(fmt: str = "single", seed: int = 99) -> list[dict[str, Any]]:
    """Every 3-bot table of `BOTS`, three games each with rotated seats."""
    rng = random.Random(seed)
    replays: list[dict[str, Any]] = []
    number = 0
    for table in combinations(BOTS, 3):
        for rotation in range(3):
            number += 1
            names = list(table[rotation:] + table[:rotation])
            game_id = f"g{number:06d}"
            cap = 20 if number == 7 else 5000
            game = _Game(
                game_id,
                names,
                random.Random(rng.random()),
                fmt=fmt,
                play_cap=cap,
                fault=_faults_for(game_id, names),
            )
            payload = game.play()
            payload["_think"] = game.think
            replays.append(payload)
    return replays


def _league(replays: list[dict[str, Any]], fmt: str, live: bool, total: int) -> dict[str, Any]:
    records = []
    for game in replays:
        result = game["result"]
        causes = {e["seat"]: e["cause"] for e in game["frames"][-1]["eliminated"]}
        seats = tuple(
            SeatRecord(
                player=name,
                place=result["places"][s],
                points=None if result["points"] is None else result["points"][s],
                cause=causes.get(s),
            )
            for s, name in enumerate(game["names"])
        )
        records.append(GameRecord(game["id"], None, seats))
    standings = json.loads(render(compute_standings(records), "json"))
    order = [row["bot"] for row in standings["rows"]]
    matrix = json.loads(render_head_to_head(head_to_head(records, order), "json"))

    bots: dict[str, Any] = {}
    for name in order:
        think = []
        places_by_seat = [[0, 0, 0] for _ in range(3)]
        versus: dict[str, dict[str, int]] = {}
        faults: dict[str, list[str]] = {}
        messages: dict[str, str] = {}
        games = wins = 0
        for game in replays:
            if name not in game["names"]:
                continue
            seat = game["names"].index(name)
            places = game["result"]["places"]
            games += 1
            wins += places[seat] == 1
            places_by_seat[seat][places[seat] - 1] += 1
            think += game["_think"][seat]
            for s, other in enumerate(game["names"]):
                if s == seat:
                    continue
                v = versus.setdefault(other, {"games": 0, "above": 0, "below": 0})
                v["games"] += 1
                v["above"] += places[seat] < places[s]
                v["below"] += places[seat] > places[s]
            for fault in game["faults"]:
                if fault["seat"] == seat:
                    faults.setdefault(fault["cause"], []).append(game["id"])
                    messages.setdefault(game["id"], fault["message"])
        bots[name] = {
            "games": games,
            "wins": wins,
            "places_by_seat": places_by_seat,
            "versus": versus,
            "faults": faults,
            "fault_messages": messages,
            "think_ms": {
                "median": round(statistics.median(think), 3) if think else None,
                "max": max(think) if think else None,
                "decisions": len(think),
            },
        }
    return {
        "title": "arena league report (fake data)",
        "generated": "2026-12-01T02:50:00Z",
        "live": live,
        "settings": {
            "edition": "2022",
            "format": fmt,
            "table_size": 3,
            "games_per_table": 3,
            "duplicate": True,
            "clocks": {
                "decision_ms": 1000,
                "bank_ms": None,
                "increment_ms": 0,
                "startup_ms": 10000,
            },
            "seed_note": "a secret seed drawn by arena (kept in the store)",
            "schedule_note": f"all 10 tables of 3 among {len(BOTS)} bots; 3 games each, "
            "seats rotated, duplicate deals",
        },
        "progress": {"done": len(replays), "total": total, "forfeits": 0},
        "standings": standings,
        "matrix": matrix,
        "bots": bots,
    }


def _game_row(game: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": game["id"],
        "seats": game["names"],
        "places": game["result"]["places"],
        "reason": game["result"]["reason"],
        "forfeit": False,
        "faults": [[game["names"][f["seat"]], f["cause"]] for f in game["faults"]],
        "plays": game["result"]["plays"],
    }


def data_script(kind: str, payload: Any) -> str:
    """A data file: one call of ``ARENA.receive``; "</" escaped so no text ends a script."""
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    text = text.replace("</", "<\\/").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return f"ARENA.receive({json.dumps(kind)}, {text});\n"


def write_data(root: Path, kind: str, payload: Any, name: str) -> None:
    path = root / "data" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data_script(kind, payload), encoding="utf-8")


def copy_static(root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    shutil.copytree(STATIC, root, dirs_exist_ok=True)


def write(out: Path, *, fmt: str = "single", live: bool = False, done: int | None = None) -> Site:
    """Write the fake site to ``out``: the static files and the data of a 30-game league.

    ``fmt`` chooses the games' format ("single", "tokens", "points"); ``live`` marks
    the league live (as ``arena serve`` does) and ``done`` keeps only that many games
    finished.
    """
    out = Path(out)
    replays = play_league(fmt)
    total = len(replays)
    if done is not None:
        replays = replays[:done]
    copy_static(out)
    league = _league(replays, fmt, live, total)
    games = [_game_row(g) for g in replays]
    site = Site(root=out, league=league, games=games)
    write_data(out, "league", league, "league.js")
    write_data(out, "games", games, "games.js")
    for game in replays:
        del game["_think"]
        site.replays[game["id"]] = game
        write_data(out, "game", game, f"games/{game['id']}.js")
    return site


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--format", default="single", choices=("single", "tokens", "points"))
    parser.add_argument("--live", action="store_true")
    parser.add_argument("--done", type=int, default=None)
    args = parser.parse_args()
    site = write(args.out, fmt=args.format, live=args.live, done=args.done)
    print(site.url)


if __name__ == "__main__":
    main()
