"""The report's data: a league store (or one replay file) as the payloads the web pages
read (the viewer's scripts in `arena/report/static/assets`, util.js says which does what),
and a whole static site written to a folder.

file:// pages may not fetch() files, so every payload is a script,
`ARENA.receive(kind, {...});`, with the JSON escaped so that no text a bot chose (its
name, a fault message) can close the script or open a tag: `<`, `>`, `&` and the
line separators are written as \\u escapes.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import re
import statistics
import urllib.parse
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import msgspec

from arena import REPORT_FORMAT, __version__
from arena._text import printable
from arena.errors import InputError, StoreError, clipped, shown
from arena.records import forfeited
from arena.referee._wire import action_from_dict
from arena.replay import (
    DamagedReplay,
    check_faults,
    check_format,
    check_names,
    describe,
    fault_applies,
    readable,
    record_seat,
    replay_seed,
)
from arena.rules import CODES, Cause, Game, GameConfig, event_to_dict
from arena.store import Store

Record = dict[str, Any]

_ESCAPES = {
    b"<": b"\\u003c",
    b">": b"\\u003e",
    b"&": b"\\u0026",
    "\u2028".encode(): b"\\u2028",
    "\u2029".encode(): b"\\u2029",
}

_JSON = msgspec.json.Encoder()


def script(kind: str, payload: Any) -> str:
    """The payload as a data script for the pages (see the module docstring)."""
    data = _JSON.encode(payload)
    for char, escape in _ESCAPES.items():
        if char in data:
            data = data.replace(char, escape)
    return f"ARENA.receive({json.dumps(kind)},{data.decode()});\n"


# -- one game ---------------------------------------------------------------------------


def game_payload(log: Sequence[Record]) -> dict[str, Any]:
    """A replay as frames: the state after each step, every hand included."""
    head = log[0]
    check_format(head)
    config = GameConfig.from_dict(head["config"])
    check_names(head["names"], config)
    check_faults(log, config.players)
    names: list[str] = list(head["names"])
    game = Game(config, replay_seed(head))
    # The deal is frame 0's: its round_start told with the first play, the draw pile
    # of the deal (88) stood beside the pile after that play (87).
    # (A seat may be out at the deal: a 1980 hand of four ONO 99 cannot play.)
    seen = len(game.events)
    dealt = [event_to_dict(e) for e in game.events]
    text = "; ".join(
        [_game_text(head, config)] + [describe(_in_words(e), names).strip() for e in dealt]
    )
    out: list[dict[str, Any]] = [  # eliminations so far
        {"seat": e["seat"], "cause": e["cause"], "place": e["place"]}
        for e in dealt
        if e["type"] == "eliminated"
    ]
    frames = [_frame(game, 0, None, "start", text, None, None, out)]
    for record in log:
        kind = record["type"]
        if kind == "decision":
            seat = record_seat(record, len(names), game.to_move)
            action = action_from_dict(record["action"])
            game.apply(action)
            card = CODES[action.card] if action.card is not None else None
            step, ms = action.kind.value, record["ms"]
        elif kind == "fault":
            seat, step, card, ms = record_seat(record, len(names)), "fault", None, None
            late = None
            if fault_applies(game, seat):
                game.eliminate(seat, Cause(record["cause"]))
            else:  # a fault after the seat was out, or after the end: recorded, no effect
                late = "after the game's end" if game.is_over else "already out of the game"
        else:
            continue
        events = [event_to_dict(e) for e in game.events[seen:]]
        seen = len(game.events)
        told = [_in_words(e) for e in events]
        out += [
            {"seat": e["seat"], "cause": e["cause"], "place": e["place"]}
            for e in events
            if e["type"] == "eliminated"
        ]
        text = "; ".join(describe(e, names).strip() for e in told)
        if kind == "fault":
            text = f"{names[seat]} (seat {seat}) faults: {_words(record['cause'])}" + (
                f" ({late}: it changes nothing)" if late else f"; {text}" if text else ""
            )
        frames.append(_frame(game, len(frames), seat, step, text, card, ms, out))
    if not game.is_over:  # (`arena replay` shows such a file as far as it goes)
        raise DamagedReplay(
            "it ends before its game does (no result to show: arena replay shows it as far"
            " as it goes)"
        )
    outcome = game.outcome()
    return {
        "id": head.get("game_id", "game"),
        "names": names,
        "config": config.to_dict(),
        "frames": frames,
        "result": {
            "places": list(outcome.places),
            "points": list(outcome.points) if outcome.points is not None else None,
            "tokens": list(outcome.tokens) if outcome.tokens is not None else None,
            "reason": outcome.reason.value,
            "plays": outcome.plays,
        },
        "faults": [
            {"seat": r["seat"], "cause": r["cause"], "message": _message(r["message"])}
            for r in log
            if r["type"] == "fault"
        ],
        "format": REPORT_FORMAT,  # the shape of this payload, which the viewer checks
        "arena": __version__,
    }


FAULT_MESSAGE_CHARS = 240
"""How much of a fault's message the bot page lists with its game: arena's own words
with a crash's exit status run past the 80 characters of an error line, and the
message in full is in the game's replay."""


def _message(message: Any) -> Any:
    """A fault's message as the pages show it: its control and format characters as
    escapes (`arena._text.printable`), as `arena replay` prints them. A message ends
    with the bot's last lines of stderr, anything it wrote: a right-to-left override
    (U+202E) showed the rest of the line backwards, a NUL or an escape sequence as a
    box."""
    return printable(message) if isinstance(message, str) else message


CAUSE_WORDS = {
    "cannot_play": "could not play",
    "target": "reached the target",
    "malformed": "malformed message",
    "illegal": "illegal choice",
}
"""Causes in the move text as words, not codes (the viewer's CAUSE_TEXT says the same)."""


def _words(cause: Any) -> Any:
    return CAUSE_WORDS.get(cause, cause) if isinstance(cause, str) else cause


def _in_words(event: Record) -> Record:
    """An event to describe with its cause in words (the frames keep the code)."""
    if event.get("type") == "eliminated" and "cause" in event:
        return {**event, "cause": _words(event["cause"])}
    return event


def _game_text(head: Record, config: GameConfig) -> str:
    return (
        f"{head.get('game_id', 'game')}: {config.edition.value} edition, {config.format.value},"
        f" {config.players} players"
    )


def _frame(
    game: Game,
    i: int,
    seat: int | None,
    kind: str,
    text: str,
    card: str | None,
    ms: float | None,
    out: list[dict[str, Any]],
) -> dict[str, Any]:
    obs = game.observation(0)
    n = len(obs.in_game)
    return {
        "i": i,
        "seat": seat,
        "text": text,
        "kind": kind,
        "card": card,
        "ms": ms,
        "total": obs.total,
        "direction": obs.direction,
        "owes": obs.owes,
        "to_move": obs.to_move,
        "draw": obs.draw_size,
        "discard_top": CODES[obs.discard[-1]] if obs.discard else None,
        "hands": [[CODES[c] for c in game.hand(s)] for s in range(n)],
        "face_up": [[CODES[c] for c in cards] for cards in obs.face_up],
        "in_game": list(obs.in_game),
        "in_round": list(obs.in_round),
        "scores": list(obs.scores) if obs.scores is not None else None,
        "tokens": list(obs.tokens) if obs.tokens is not None else None,
        "round": obs.round,
        "eliminated": list(out),
    }


# -- a league ---------------------------------------------------------------------------


class LeagueData:
    """A league store's report data, brought up to date by `update` with the games
    recorded since the last call (`arena serve` calls it on every request for the
    league; `write_site` once).

    A game of a duplicate group is *withheld* (`withheld`) while a game of its group is
    still to be recorded: its replay shows every hand of a deal that the rest of the
    group plays again, seats rotated, so a report of a running league, static or live,
    would show a bot's author (or a bot that can reach `arena serve`) its opponents'
    hands in a game not yet played. Its list entry says so (`"withheld": true`), and
    its replay is neither written nor served until the group is complete."""

    def __init__(
        self,
        store: Store,
        anchor: tuple[str, float] | None = None,
        only: frozenset[str] | None = None,
    ) -> None:
        self.store = store
        self.anchor = anchor
        self.only = only
        """The bots to report (a ladder's active versions); None: every one. A game is
        listed if one of them played it, and the standings rate them alone, on their
        seats of every game (`ResultColumns.only`), as `arena standings` does."""
        """`arena standings --anchor`: the bot whose Elo fixes the scale, and its Elo (a
        live league whose anchor has no game yet is rated as without one)."""
        self._reset()

    def _reset(self) -> None:
        """Forget every game read (as new)."""
        self._last = 0
        self.games: list[dict[str, Any]] = []
        """The game list (kind "games"), in the order the games were recorded."""
        self._index: dict[str, int] = {}
        self._status: dict[str, str] = {}
        """Every game recorded, listed or not (`only`), with its status."""
        self._groups: dict[str, list[str]] = defaultdict(list)
        """The games recorded of each duplicate group."""
        self._group_of: dict[str, tuple[str, int]] = {}
        """A game's duplicate group and its size (a deal is played in every rotation of
        its table: one game per seat)."""
        self._think: dict[str, list[float]] = defaultdict(list)
        self._seats: dict[str, list[list[int]]] = {}
        self._versus: dict[str, dict[str, dict[str, int]]] = defaultdict(
            lambda: defaultdict(lambda: {"games": 0, "above": 0, "below": 0})
        )
        self._faults: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
        self._messages: dict[str, dict[str, str]] = defaultdict(dict)
        """The message of each bot's first fault in a game, by game id (of played games
        not withheld)."""
        self._held: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
        """The fault messages of withheld games (bot, game id, message), by duplicate
        group, shown once the group is complete: a message ends with the bot's last
        stderr lines, which may tell the hand it held, now an opponent's."""

    def follow(self, only: frozenset[str] | None) -> None:
        """Report the bots `only` from now on (`arena serve` of a running ladder: its
        active versions change); the games are read anew if they are not those."""
        if only != self.only:
            self.only = only
            self._reset()

    def update(self, each: Callable[[str, list[Record]], None] | None = None) -> list[str]:
        """Read the games recorded since the last update; returns their ids. `each` is
        called with the id and the replay of every new played game (read once) that is
        not `withheld` after this update: a withheld game is never passed to it (the
        caller that follows a running league passes none).

        A store it cannot read raises (StoreError, InputError) and leaves the data as if
        never updated, so that the next update reads the same games and raises again
        instead of going on past them as if they were not stored."""
        try:
            return self._update(each)
        except BaseException:
            self._reset()
            raise

    def _update(self, each: Callable[[str, list[Record]], None] | None) -> list[str]:
        rows = self.store.game_rows(self._last)
        if not rows:
            return []
        if self._last and any(row[1] in self._status for row in rows):
            # A game stored again under a new row (a league replaces a game of a bot
            # disqualified before it, in the order it counts faults, by its forfeit):
            # every number it was in is counted anew, from the start.
            self._reset()
            return self._update(each)
        self._last = rows[-1][0]
        new = {game_id: (status, reason, plays) for _, game_id, status, reason, plays, _ in rows}
        seats: dict[str, list[Any]] = defaultdict(list)
        for row in self.store.seat_rows_of(list(new)):
            seats[row.game_id].append(row)
        # Every game counts for its duplicate group, listed or not: a game that is not
        # listed (`only`) can still be asked for (a retired version's, from the ladder's
        # page of its bot), and is withheld as any other.
        for _, game_id, status, _, _, group in rows:
            self._status[game_id] = status
            if group is not None:
                self._group_of[game_id] = (group, len(seats[game_id]))
                self._groups[group].append(game_id)
        if self.only is not None:
            only = self.only
            new = {g: v for g, v in new.items() if any(r.bot in only for r in seats[g])}
            rows = [row for row in rows if row[1] in new]
        for _, game_id, status, reason, plays, _ in rows:
            self._add_game(game_id, status, reason, plays, seats[game_id])
        for group in {group for *_, group in rows if group is not None}:
            if not self.withheld(self._groups[group][0]):
                for game_id in self._groups[group]:
                    if game_id in self._index:
                        self.games[self._index[game_id]].pop("withheld", None)
                for name, held, said in self._held.pop(group, []):
                    self._messages[name].setdefault(held, said)
        for game_id in new:
            if self.withheld(game_id):
                self.games[self._index[game_id]]["withheld"] = True
        for game_id, log in self.store.replay_logs([g for g, v in new.items() if v[0] == "done"]):
            # A store can be anyone's: a replay whose records lack a value, or hold one
            # of another kind, is refused naming the game.
            with readable(f"{self.store.path}, game {game_id}"):
                names = self.games[self._index[game_id]]["seats"]
                for record in log:
                    if record.get("type") == "decision":
                        seat = record_seat(record, len(names))
                        self._think[names[seat]].append(float(record["ms"]))
                    elif record.get("type") == "fault":
                        seat = record_seat(record, len(names))
                        message = record.get("message")
                        if isinstance(message, str):
                            message = clipped(_message(message), FAULT_MESSAGE_CHARS)
                            if self.withheld(game_id):
                                group = self._group_of[game_id][0]
                                self._held[group].append((names[seat], game_id, message))
                            else:
                                self._messages[names[seat]].setdefault(game_id, message)
                if each is not None and not self.withheld(game_id):
                    each(game_id, log)
        return list(new)

    def status(self, game_id: str) -> str | None:
        """The status of a recorded game ("done", "forfeit"), listed or not; None for
        a game not recorded (as of the last update)."""
        return self._status.get(game_id)

    def withheld(self, game_id: str) -> bool:
        """Whether the replay of `game_id` is withheld: a game of its duplicate group is
        still to be recorded (see the class)."""
        found = self._group_of.get(game_id)
        if found is None:
            return False
        group, size = found
        return len(self._groups[group]) < size

    def _add_game(
        self, game_id: str, status: str, reason: str | None, plays: int | None, rows: list[Any]
    ) -> None:
        rows.sort(key=lambda r: r.seat)
        numbers = [r.seat for r in rows]
        if numbers != list(range(len(rows))):  # the places by seat count up to each seat
            raise StoreError(
                f"{self.store.path}: the store is damaged (game {shown(game_id)} has seats"
                f" {clipped(str(numbers))})"
            )
        names = [r.bot for r in rows]
        places = [r.place for r in rows]
        faults = [[r.bot, r.cause] for r in rows if r.cause in _FAULTS]
        # A forfeit is listed, and its forfeits are faults, but it was never played: no
        # bot's games, places or results against the others count it (as the standings).
        lost = status == "forfeit" or forfeited(r.cause for r in rows)
        self._index[game_id] = len(self.games)
        self.games.append(
            {"id": game_id, "seats": names, "places": places, "reason": reason,
             "forfeit": lost, "faults": faults, "plays": plays}
        )  # fmt: skip
        for row in rows:
            if row.cause in _FAULTS:
                self._faults[row.bot][row.cause].append(game_id)
            if lost:
                self._seats.setdefault(row.bot, [])
                continue
            counts = self._seats.setdefault(row.bot, [])
            while len(counts) <= row.seat:
                counts.append([0] * len(rows))
            if len(counts[row.seat]) < len(rows):
                counts[row.seat] += [0] * (len(rows) - len(counts[row.seat]))
            counts[row.seat][min(row.place, len(rows)) - 1] += 1
            for other in rows:
                if other.bot != row.bot:
                    versus = self._versus[row.bot][other.bot]
                    versus["games"] += 1
                    versus["above"] += row.place < other.place
                    versus["below"] += row.place > other.place

    def league(self, *, live: bool = False) -> dict[str, Any]:
        """The league payload (kind "league"): settings, progress, standings, matrix, bots,
        and the format of the report's data (`arena.REPORT_FORMAT`)."""
        from arena.standings import compute_standings, head_to_head, render, render_head_to_head

        if self.only is None:
            records = self.store.game_records()
        else:
            records = self.store.result_columns().only(self.only).records()
        standings = matrix = None
        if records:
            # (a forfeit is no game played: `compute_standings` neither rates nor counts it)
            played = {s.player for r in records if not r.forfeited for s in r.seats}
            anchor = self.anchor if self.anchor is not None and self.anchor[0] in played else None
            table = compute_standings(
                records, anchor=anchor, versions=self.store.changed_versions()
            )
            standings = json.loads(render(table, "json"))
            order = [row.player for row in table.rows]
            matrix = json.loads(render_head_to_head(head_to_head(records, order), "json"))
        identity = self.store.get_setting("league") or {}
        total = self.store.get_meta("total_games") or len(self.games)
        return {
            "title": "arena league report",
            "generated": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "live": live,
            # (a store can be anyone's: a total that is not a whole number finishes none)
            "settings": _settings(
                identity, self.store, finished=type(total) is int and len(self.games) >= total
            ),
            "progress": {
                "done": len(self.games),
                "total": total,
                "forfeits": sum(g["forfeit"] for g in self.games),
            },
            "standings": standings,
            "matrix": matrix,
            "bots": {name: self._bot(name) for name in sorted(self._seats)},
            "format": REPORT_FORMAT,  # the shape of this payload, which the viewer checks
            "arena": __version__,
        }

    def _bot(self, name: str) -> dict[str, Any]:
        places = self._seats[name]
        think = self._think.get(name, [])
        return {
            "games": sum(sum(seat) for seat in places),
            "wins": sum(seat[0] for seat in places),
            "places_by_seat": places,
            "versus": {k: dict(v) for k, v in sorted(self._versus[name].items())},
            "faults": {k: list(v) for k, v in self._faults[name].items()},
            "fault_messages": dict(self._messages.get(name, {})),
            "think_ms": {
                "median": round(statistics.median(think), 3) if think else None,
                "max": round(max(think), 3) if think else None,
                "decisions": len(think),
            },
        }


_FAULTS = frozenset({"timeout", "crash", "malformed", "illegal", "forfeit"})


def _settings(identity: dict[str, Any], store: Store, *, finished: bool) -> dict[str, Any]:
    """The league's settings as the index shows them. A seed the organiser gave is shown
    once every game is played, not before: anyone who knows it knows every deal, those
    of the games still to play too."""
    from arena.seeds import is_drawn

    seed = str(identity.get("seed", ""))
    extra = store.get_setting("settings") or {}
    game = identity.get("game", {})
    if not isinstance(game, dict):
        raise StoreError(
            f"{store.path}: the store is damaged (setting 'league': game {shown(game)})"
        )
    return {
        "edition": game.get("edition"),
        "format": game.get("format"),
        "table_size": identity.get("table_size"),
        "games_per_table": identity.get("games_per_table"),
        "duplicate": identity.get("duplicate"),
        "game": game,
        "clocks": extra.get("clocks"),
        "seed_note": (
            "a secret seed drawn by arena (kept in the store, not shown here)"
            if is_drawn(seed)
            else f"the seed {seed!r} given by the organiser (anyone who knows it knows the deals)"
            if finished
            else "a seed given by the organiser (shown here once every game is played: anyone"
            " who knows it knows the deals of the games still to play)"
        ),
        "schedule_note": store.get_meta("schedule_note"),
    }


STATIC = resources.files("arena.report") / "static"
"""The pages, their script and their style, shipped in the package."""

MARK = ".arena-report"
"""The file that marks a folder as a site arena wrote: written first into a new or empty
folder, it lets the next `arena report` into the folder replace the site (the normal
use: one folder, written again as a league goes on). Any other folder that is not
empty is the user's own, and is refused with nothing in it touched."""
_MARK_TEXT = (
    "arena report\n"
    "This folder holds a web site written by arena report; arena report -o writes it"
    " again here, replacing the files it wrote before.\n"
)
_MARK_FIRST = _MARK_TEXT.split("\n", 1)[0] + "\n"
"""What a mark begins with, whatever arena wrote the rest of it."""

_OLD_DATA = re.compile(r"c\d+\.js|game\.js|\..+\.part")
"""The names of what arena writes in data/games (and of its unfinished files): the
data of the site written before, removed before the new one is written."""


def _claim(out: Path) -> None:
    """Make `out` the site's folder, if it is new, empty or marked as arena's (`MARK`);
    InputError for any other, whose files are the user's own."""
    out.mkdir(parents=True, exist_ok=True)
    mark = out / MARK
    if mark.is_file() and not mark.is_symlink():
        with mark.open("rb") as file:
            if file.read(len(_MARK_FIRST)) == _MARK_FIRST.encode():
                return
    with os.scandir(out) as entries:
        if next(entries, None) is not None:
            raise InputError(
                f"{out}: a folder that is not empty, with no {MARK} in it (the mark of a site"
                " arena report wrote, which sites written before the mark lack): give a new"
                " or empty folder, or delete this one, so that no file of yours is replaced"
            )
    _write(mark, _MARK_TEXT.encode())


def _folder(path: Path) -> Path:
    """The folder `path` of a site, made if there is none; InputError if it is anything
    else: a symbolic link above all, as writing or deleting through one would reach
    files outside the site."""
    if path.is_symlink() or (path.exists() and not path.is_dir()):
        raise InputError(
            f"{path}: not a folder arena report made (a symbolic link, or a file): remove"
            " it, or give another folder"
        )
    path.mkdir(exist_ok=True)
    return path


def _write(path: Path, data: bytes) -> None:
    """Write `path` whole or not at all (a page reloading it never reads half of it),
    through a new file of its own that then takes its name: a symbolic link at `path`
    is replaced, never followed."""
    part = path.with_name(f".{path.name}.{os.getpid()}.part")
    with contextlib.suppress(FileNotFoundError):
        part.unlink()  # left by a process killed here with the same pid
    fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        os.replace(part, path)
    except BaseException:
        with contextlib.suppress(OSError):
            part.unlink()
        raise


def _start_site(out: Path) -> Path:
    """Claim `out` (`_claim`), write the pages into it and empty the games' folder of the
    data arena wrote there before; returns that folder. Only arena's own names are
    removed, files only: nothing is followed through a symbolic link."""
    _claim(out)
    for name, entry in _walk(STATIC):
        target = out / name
        folder = out
        for part in Path(name).parent.parts:
            folder = _folder(folder / part)
        _write(target, entry.read_bytes())
    games = _folder(_folder(out / "data") / "games")
    with os.scandir(games) as entries:
        old = [
            e.path
            for e in entries
            if _OLD_DATA.fullmatch(e.name) and not e.is_dir(follow_symlinks=False)
        ]
    for path in old:
        os.unlink(path)  # a symbolic link itself, not what it names
    return games


def _walk(folder: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    for entry in folder.iterdir():
        name = f"{prefix}{entry.name}"
        if entry.is_dir():
            yield from _walk(entry, name + "/")
        else:
            yield name, entry


@contextlib.contextmanager
def _writing(out: Path) -> Iterator[None]:
    """Turn what writing a site into `out` raises (a full disk, a read-only folder, a
    folder that cannot be made) into one InputError."""
    try:
        yield
    except OSError as err:
        where = f" ({err.filename})" if err.filename and str(err.filename) != str(out) else ""
        raise InputError(f"{out}: cannot write the site: {err.strerror or err}{where}") from None


GAMES_PER_FILE = 16
"""Games in one data file of a static report."""


def write_site(
    store: Store,
    out: Path,
    anchor: tuple[str, float] | None = None,
    only: frozenset[str] | None = None,
) -> int:
    """Write the static report of `store` into the folder `out`; returns the games.
    With `only`, of those bots only (`LeagueData.only`).

    `out` must be new, empty, or a site arena wrote before (`MARK`), which is then
    replaced; InputError for any other folder (nothing in it is touched), or if the
    site cannot be written."""
    with _writing(out):
        return _write_site(store, out, anchor, only)


def _write_site(
    store: Store, out: Path, anchor: tuple[str, float] | None, only: frozenset[str] | None
) -> int:
    games = _start_site(out)

    # Games go 16 to a file: writing many small files costs more than their bytes.
    pending: list[str] = []
    ids: list[str] = []
    files: dict[str, str] = {}

    def flush() -> None:
        name = f"c{len(set(files.values())):05d}"
        _write(games / f"{name}.js", "".join(pending).encode())
        files.update((game_id, name) for game_id in ids)
        pending.clear()
        ids.clear()

    def write_game(game_id: str, log: list[Record]) -> None:
        pending.append(script("game", game_payload(log)))
        ids.append(game_id)
        if len(ids) == GAMES_PER_FILE:
            flush()

    data = LeagueData(store, anchor, only)
    data.update(write_game)
    if ids:
        flush()
    for game in data.games:
        if game["id"] in files:
            game["file"] = files[game["id"]]
    _write(out / "data" / "league.js", script("league", data.league()).encode())
    _write(out / "data" / "games.js", script("games", data.games).encode())
    return len(data.games)


def write_replay_site(log: Sequence[Record], out: Path) -> None:
    """A site of one game (a replay file of `arena match --replays`): the viewer opens on
    it; `out` is the folder (index.html inside), new, empty or arena's (as `write_site`)."""
    if not log or log[0].get("type") != "game":
        raise InputError("not a replay")
    payload = game_payload(log)  # before anything is written: the file may be bad
    if not isinstance(payload["id"], str):  # the viewer finds a game by its id, as text
        raise ValueError(f"a game id that is not text: {payload['id']!r}")
    names = payload["names"]
    result = payload["result"]
    game = {"id": payload["id"], "seats": names, "places": result["places"],
            "reason": result["reason"], "forfeit": False,
            "faults": [[names[f["seat"]], f["cause"]] for f in payload["faults"]],
            "plays": result["plays"], "file": "game"}  # fmt: skip
    start = "#/game/" + urllib.parse.quote(payload["id"], safe="")  # as the viewer's links
    league = {
        "title": f"arena replay {payload['id']}",
        "generated": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "live": False, "settings": {"game": payload["config"]},
        "progress": {"done": 1, "total": 1, "forfeits": 0},
        "standings": None, "matrix": None, "bots": {}, "start": start,
        "format": REPORT_FORMAT, "arena": __version__,
    }  # fmt: skip
    # Encoded before anything is written too: a replay's text may not encode (a lone
    # surrogate in a name), and a folder of an earlier site was then left half replaced.
    scripts = [script(kind, data).encode() for kind, data in
               (("game", payload), ("league", league), ("games", [game]))]  # fmt: skip
    with _writing(out):
        games = _start_site(out)
        # Named by arena, not by the game id: a replay file's text is no path.
        _write(games / "game.js", scripts[0])
        _write(out / "data" / "league.js", scripts[1])
        _write(out / "data" / "games.js", scripts[2])
