"""Replay files: one game as JSON lines, and its play-by-play for people.

A replay holds a `game` record (configuration, seed, bot names, clocks, the arena that
wrote it and the replay's format, `arena.REPLAY_FORMAT`), then in order
every public `event`, every `decision` (seat, choice, action, time taken) and every
`fault`, and a final `result`. The game rebuilds exactly from its configuration, seed
and the decisions and faults; `arena replay --seat N` uses that to show the game as
seat N saw it, with its hand at each of its decisions.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from arena import REPLAY_FORMAT, __version__
from arena.errors import ArenaError, InputError, clipped, shown
from arena.referee._wire import action_from_dict
from arena.rules import (
    NAMES,
    Card,
    Cause,
    Game,
    GameConfig,
    event_to_dict,
)

Record = dict[str, Any]


def write_replay(path: Path, log: Sequence[Record]) -> None:
    """Write a new replay file (JSON lines), creating its folder; InputError if it
    cannot be written (a folder that cannot be made, a full disk), and none is left
    half-written. A file (or a link) already there is never written over."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # O_EXCL: a name taken, by a link too, is an error rather than a file replaced.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
    except FileExistsError:
        raise InputError(
            f"{path} exists already: a replay is never written over (move it away, or give"
            " another folder)"
        ) from None
    except OSError as err:
        raise InputError(f"{path}: cannot write the replay: {err.strerror or err}") from None
    try:
        with open(fd, "w", encoding="utf-8") as f:
            for record in log:
                f.write(json.dumps(record, separators=(",", ":")) + "\n")
    except OSError as err:
        with contextlib.suppress(OSError):
            path.unlink()  # ours: made above
        raise InputError(f"{path}: cannot write the replay: {err.strerror or err}") from None


REPLAY_BYTES = 64 * 2**20
"""The largest replay file read, as the largest replay a store holds
(`arena.store.REPLAY_LIMIT`): a game at the highest play cap writes some 25 MiB."""


def read_replay(path: Path) -> list[Record]:
    """Read a replay file; raises InputError naming the line that is wrong, or for a
    file of more than `REPLAY_BYTES` (not read into memory whole: /dev/zero never ends)."""
    try:
        with path.open("rb") as file:
            data = file.read(REPLAY_BYTES + 1)
        if len(data) > REPLAY_BYTES:
            raise InputError(
                f"{path}: larger than {REPLAY_BYTES // 2**20} MiB, not a replay file (the"
                " longest game's replay is some 25 MiB)"
            )
        text = data.decode("utf-8")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: a folder, not a replay file") from None
    except UnicodeDecodeError:
        raise InputError(
            f"{path}: not a replay file (replays are JSON lines, as written by"
            " arena match --replays)"
        ) from None
    except OSError as err:
        raise InputError(f"{path}: cannot read: {err.strerror or err}") from None
    records = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as err:  # JSONDecodeError, or an int of over 4,300 digits
            why = str(err)
            if isinstance(err, json.JSONDecodeError):  # its msg ends "starting at"
                why = f"{err.msg} (column {err.colno})"
            if number == 1:
                raise InputError(
                    f"{path}: not a replay file (line 1 is not JSON: {why}; replays are"
                    " JSON lines, as written by arena match --replays)"
                ) from None
            raise InputError(f"{path}:{number}: not JSON: {why}") from None
        except RecursionError:  # "[" * 100000: JSON, but deeper than the parser recurses
            if number == 1:
                raise InputError(
                    f"{path}: not a replay file (line 1 is JSON nested too deeply; replays"
                    " are JSON lines, as written by arena match --replays)"
                ) from None
            raise InputError(f"{path}:{number}: not a replay record (nested too deeply)") from None
        if not isinstance(record, dict) or "type" not in record:
            raise InputError(f"{path}:{number}: not a replay record")
        records.append(record)
    if not records or records[0].get("type") != "game":
        raise InputError(f"{path}: not a replay file (no game record first)")
    try:
        check_format(records[0])
    except OtherFormat as err:
        raise InputError(f"{path}: {err}") from None
    return records


class OtherFormat(ValueError):
    """A replay of another format than this arena's (`check_format`)."""


def check_format(head: Record) -> None:
    """`OtherFormat` unless the replay whose game record is `head` is of this arena's
    format (`arena.REPLAY_FORMAT`); a replay that says none is of format 1, written
    before replays said it. Another format is another arena's: its records, or the
    rules they replay through, differ, and this arena would find it damaged."""
    found = head.get("replay_format", 1)
    if type(found) is int and found == REPLAY_FORMAT:
        return
    wrote = head.get("arena")
    by = f" (arena {clipped(wrote, 40)})" if isinstance(wrote, str) else ""
    raise OtherFormat(
        f"this replay is format {shown(found)}; this arena ({__version__}) reads format"
        f" {REPLAY_FORMAT}: open it with the arena that wrote it{by}"
    )


UNREADABLE = (
    ArenaError,
    KeyError,
    IndexError,
    TypeError,
    ValueError,
    AttributeError,
    RecursionError,
)
"""What a replay whose records lack a field, or hold one of the wrong kind (or one
nested too deeply to handle), raises in the code that reads them (`readable` turns it
into one InputError)."""


class DamagedReplay(ValueError):
    """A replay's records contradict its game: a decision or fault of a seat the game
    does not have, or a decision of a seat that was not to move (`readable` reports it
    as a damaged replay)."""


def record_seat(record: Record, seats: int, to_move: int | None = None) -> int:
    """The seat of a decision or fault ``record`` in a game of ``seats`` seats.

    `DamagedReplay` for a seat the game does not have (7 of 4 seats, -1, a bool, text)
    or, given the seat ``to_move``, for a decision of another seat: the viewer and
    `arena replay` would show a decision no seat of the game made."""
    seat = record["seat"]
    kind = record["type"]
    if type(seat) is not int or not 0 <= seat < seats:
        raise DamagedReplay(f"a {kind} of seat {shown(seat)}, in a game of {seats} seats")
    if kind == "decision" and to_move is not None and seat != to_move:
        raise DamagedReplay(f"a decision of seat {seat} when seat {to_move} was to move")
    return seat


@contextlib.contextmanager
def readable(what: object) -> Iterator[None]:
    """Turn what a malformed replay raises while it is read into InputError naming
    `what` (a replay file can be anyone's: edited, cut short, made by hand)."""
    try:
        yield
    except InputError:
        raise
    except OtherFormat as err:
        raise InputError(f"{what}: {err}") from None
    except DamagedReplay as err:
        raise InputError(f"{what}: the replay is damaged: {err}") from None
    except KeyError as err:
        raise InputError(
            f"{what}: not a replay arena can read (a record lacks the field {shown(err.args[0])})"
        ) from None
    except UNREADABLE as err:
        raise InputError(
            f"{what}: not a replay arena can read ({type(err).__name__}: {clipped(str(err))})"
        ) from None


def fault_applies(game: Game, seat: int) -> bool:
    """Whether a fault of `seat` takes it out of `game`, as the referee decides: a seat
    still in a game that is still going. A replay records every fault, also those of a
    seat already out (one eliminated at the deal, or whose process ended after it was
    eliminated) or after the end (at the game_over); those change nothing."""
    return not game.is_over and game.observation(seat).in_game[seat]


def rebuild(log: Sequence[Record]) -> Game:
    """Replay the game through the rules engine; `DamagedReplay` if it does not match
    the file (a seat the game does not have, a decision the rules refuse, other events,
    other places, points or tokens in its result), KeyError for a field a record lacks."""
    head = log[0]
    check_format(head)
    try:
        names = head["names"]
        config = GameConfig.from_dict(head["config"])
        check_names(names, config)
        for record in log:
            if record["type"] == "decision":
                record_seat(record, config.players)
        check_faults(log, config.players)
        game = Game(config, replay_seed(head))
        for record in log:
            if record["type"] == "decision":
                game.apply(action_from_dict(record["action"]))
            elif record["type"] == "fault" and fault_applies(game, record["seat"]):
                game.eliminate(record["seat"], Cause(record["cause"]))
    except (DamagedReplay, KeyError):  # (`readable` names the field a record lacks)
        raise
    except (ArenaError, ValueError, TypeError) as err:
        raise DamagedReplay(f"it does not rebuild ({err})") from None
    recorded = [r["event"] for r in log if r["type"] == "event"]
    rebuilt = [event_to_dict(e) for e in game.events]
    if rebuilt[: len(recorded)] != recorded:
        raise DamagedReplay("its events do not match the rules engine (edited or corrupt file?)")
    result = next((r for r in log if r["type"] == "result"), None)
    if result is not None:
        told = [result.get(key) for key in ("places", "points", "tokens")]
        outcome = game.outcome() if game.is_over else None
        if outcome is None or told != [
            list(outcome.places),
            None if outcome.points is None else list(outcome.points),
            None if outcome.tokens is None else list(outcome.tokens),
        ]:
            raise DamagedReplay(
                "its result does not match the rules engine's (edited or corrupt file?)"
            )
    return game


def _cards(codes: Sequence[str]) -> str:
    return " ".join(codes) if codes else "-"


NAME_CHARS = 200
"""The longest bot name a replay may give (arena's are at most 64 characters, a ladder
version's a few more): every frame of a replay's viewer, and every line `arena replay`
prints of a fault, repeats a name, so a replay of 1 MB that named a bot with a million
characters took 4 GB to show."""


def check_names(names: Sequence[str], config: GameConfig) -> None:
    """`DamagedReplay` unless a replay names one bot for each of its game's seats, each
    in at most `NAME_CHARS` characters."""
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        # (a text of 2 letters passed as the names of a game of 2: "r" and "1")
        raise DamagedReplay(f"the bots' names are no list of names ({clipped(repr(names))})")
    if len(names) != config.players:
        raise DamagedReplay(f"{len(names)} bots named for a game of {config.players} seats")
    if longest := max((len(name) for name in names if len(name) > NAME_CHARS), default=0):
        raise DamagedReplay(f"a bot named in {longest:,} characters (at most {NAME_CHARS})")


def check_faults(log: Sequence[Record], players: int) -> None:
    """`DamagedReplay` unless every fault of a replay is of a seat its game has, and no
    seat faults twice (a fault ends a bot's part in the game: arena writes one at most;
    a replay of 16 MB of faults took 1.5 GB to show, a frame each)."""
    faulted: set[int] = set()
    for record in log:
        if record["type"] == "fault":
            seat = record_seat(record, players)
            if seat in faulted:
                raise DamagedReplay(f"a second fault of seat {seat} (a seat faults once)")
            faulted.add(seat)


def replay_seed(head: Record) -> int:
    """The seed of a replay's game; `DamagedReplay` unless it is a whole number (a
    seed of 1e999 raised OverflowError from int())."""
    seed = head["seed"]
    if type(seed) is not int:
        raise DamagedReplay(f"its seed is no whole number ({clipped(repr(seed))})")
    return seed


def describe(event: Record, names: Sequence[str]) -> str:
    """One public event in words; `DamagedReplay` for an event of a seat the game
    does not have."""
    kind = event["type"]

    def name(key: str = "seat") -> str:
        seat = event[key]
        if type(seat) is not int or not 0 <= seat < len(names):
            raise DamagedReplay(
                f"a {shown(kind)} event of seat {shown(seat)}, in a game of {len(names)} seats"
            )
        return names[seat]

    def who(key: str = "seat") -> str:
        return f"{name(key)} (seat {event[key]})"

    if kind == "round_start":
        return (
            f"-- round {event['round']}: {who('starter')} starts;"
            f" hands {event['hand_sizes']}, draw pile {event['draw_size']}"
        )
    if kind == "play":
        card = NAMES[Card.from_code(event["card"])]
        return f"{who()} plays {card} -> total {event['total']}"
    if kind == "draw":
        return f"   {name()} draws {event['count']}"
    if kind == "reshuffle":
        return f"   the discard pile is shuffled into a new draw pile of {event['count']}"
    if kind == "quad":
        return f"{who()} discards four ONO 99"
    if kind == "bust":
        return f"{who()} busts with {event['card']} and is out of the round"
    if kind == "owes_two":
        return f"   {name()} must play two cards"
    if kind == "out_of_round":
        return f"{who()} cannot play and is out of the round"
    if kind == "eliminated":
        # (one out for reaching the target lays no card: "lays - face up" said it did)
        lays = f", lays {_cards(event['cards'])} face up" if event["cards"] else ""
        return f"{who()} is out ({event['cause']}){lays} -> place {event['place']}"
    if kind == "token_lost":
        return f"{who()} cannot play and loses a token ({event['tokens']} left)"
    if kind == "round_end":

        def each(values: Sequence[int | None]) -> str:  # None: a seat out of the game
            return " ".join("-" if v is None else str(v) for v in values)

        return (
            f"-- round {event['round']} ends: hand points {each(event['hand_points'])};"
            f" scores {each(event['scores'])} (by seat)"
        )
    return f"({kind})"


def _result_lines(log: Sequence[Record], names: Sequence[str]) -> Iterator[str]:
    result = next((r for r in log if r["type"] == "result"), None)
    if result is None:
        yield "(the game did not finish)"
        return
    order = sorted(range(len(names)), key=lambda s: result["places"][s])
    yield f"== result ({result['reason']}, {result['plays']} plays):"
    for seat in order:
        extra = ""
        if result.get("points") is not None:
            extra = f", {result['points'][seat]} points"
        yield f"   {result['places'][seat]}. {names[seat]}{extra}"


def render(log: Sequence[Record], seat: int | None = None) -> Iterator[str]:
    """The game play by play: as a spectator sees it, or as `seat` saw it."""
    head = log[0]
    names: list[str] = head["names"]
    config = GameConfig.from_dict(head["config"])
    check_names(names, config)
    if seat is not None and not 0 <= seat < len(names):
        raise InputError(f"no seat {seat} in this game of {len(names)}")
    rebuild(log)  # the whole file checked first, for a spectator too, as a report checks it
    yield (
        f"== {head.get('game_id', 'game')}: {config.edition.value} edition,"
        f" {config.format.value}, seed {head['seed']}"
    )
    yield "   seats: " + ", ".join(f"{i} {n}" for i, n in enumerate(names))
    # Replayed for a spectator too: a fault of a seat already out, or after the end,
    # is recorded but changes nothing, and says so.
    replayed = Game(config, replay_seed(head))
    if seat is not None:
        hand = _cards([c.code for c in replayed.hand(seat)])
        yield f"   you are seat {seat} ({names[seat]}); your hand: {hand}"
    for record in log:
        kind = record["type"]
        if kind == "event":
            yield describe(record["event"], names)
        elif kind == "fault":
            faulty = record_seat(record, len(names))
            late = ""
            if fault_applies(replayed, faulty):
                replayed.eliminate(faulty, Cause(record["cause"]))
            else:
                late = " (after the game's end" if replayed.is_over else " (already out"
                late += ": it changes nothing)"
            yield (
                f"!! {names[faulty]} (seat {faulty}) faults: {record['cause']}:"
                f" {record['message']}{late}"
            )
        elif kind == "decision":
            if record_seat(record, len(names), replayed.to_move) == seat:
                obs = replayed.observation(seat)
                legal = ", ".join(str(a) for a in replayed.legal_actions())
                yield (
                    f">> your turn: hand {_cards([c.code for c in obs.hand])},"
                    f" total {obs.total}, owes {obs.owes}; legal: {legal};"
                    f" you chose {action_from_dict(record['action'])} in {record['ms']:.1f} ms"
                )
            replayed.apply(action_from_dict(record["action"]))
    yield from _result_lines(log, names)
