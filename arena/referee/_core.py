"""The game as the referee plays it: the rules engine (`arena.rules.Game`, the only
implementation of the rules) and the wire forms of its state (`_wire`).

An act frame is written without the dicts of `_wire.act` (which stays the plain
reference of the same bytes): each public event is encoded once, with the others of
its step of the game, when it is converted for the log, and its bytes are spliced into
every act that carries it; the observation is a msgspec struct read from the engine's
state, whose discard pile (the longest part of it) is encoded a card at a time as it
grows, and whose face-up cards are encoded again only when they change. The bytes are those of
`protocol.encode_frame(_wire.act(...))`: keys in SPEC order, each value in its
shortest form (tests/referee/test_core.py).
"""

from __future__ import annotations

from typing import Any, cast

import msgspec

import protocol
from arena.errors import GameOverError
from arena.referee import _wire
from arena.rules import CODES, Action, Card, Cause, Draw, Event, Game, GameConfig, Outcome, Play

_encode = msgspec.msgpack.Encoder().encode
"""msgpack as msgpack-python's Packer(use_bin_type=True) writes it (the same bytes for
every value a message holds: None, bool, int, str, lists and dicts in insertion order)."""

_CODES = [CODES[Card(value)] for value in range(len(Card))]
"""The code of each card, by its value (a list is indexed faster than a dict)."""

_CODE_BYTES = [_encode(CODES[Card(value)]) for value in range(len(Card))]
"""The encoded code of each card, by its value."""

_LEGAL_BYTES = {id(action): _encode(d) for action, d in _wire._ACTION_DICTS.items()}
"""The encoded wire form of each of the engine's shared actions, by identity."""


Form = tuple[bytes, dict[str, Any]]
"""An event's encoded wire form and its record in a replay log (which holds the wire
form: `record["event"]`)."""

_FORMS: dict[type, dict[Event, Form]] = {Play: {}, Draw: {}}
"""The wire forms of the events of nearly every decision (a play, a draw), made once
for all games: its encoded bytes and its log record, by the event, a table a
kind (a Play and a Draw of equal fields are equal tuples). At most a few thousand of
each kind exist (seat, card and total; seat and count). The dicts are shared by every
log that holds the event: a log's records are read, never changed."""

_FORMS_LIMIT = 50_000
"""Past this many forms of a kind (which no game reaches), no more are kept."""


def _new_form(event: Event, forms: dict[Event, Form] | None) -> Form:
    """The form of `event`, made now; kept in `forms` (its kind's table in `_FORMS`),
    if any, while there is room."""
    wire = _wire.event_to_dict(event)
    form = (_encode(wire), {"type": "event", "event": wire})
    if forms is not None and len(forms) < _FORMS_LIMIT:
        forms[event] = form
    return form


def _array_header(n: int) -> bytes:
    """The msgpack header of an array of `n` items."""
    if n < 16:
        return _FIXARRAY[n]
    if n < 0x10000:
        return b"\xdc" + n.to_bytes(2, "big")
    return b"\xdd" + n.to_bytes(4, "big")


_FIXARRAY = [bytes([0x90 | n]) for n in range(16)]
_NOTHING = msgspec.Raw(b"")


class _Observation(msgspec.Struct):
    """The observation map of an act (SPEC §7.3), its fields in SPEC order."""

    seat: int
    hand: list[str]
    total: int
    direction: int
    to_move: int | None
    owes: int
    hand_sizes: list[int]
    in_game: list[bool]
    in_round: list[bool]
    face_up: msgspec.Raw
    draw_size: int
    discard: msgspec.Raw
    scores: list[int] | None
    tokens: list[int] | None
    round: int
    plays: int


class _Clock(msgspec.Struct):
    decision_ms: int
    bank_ms: int | None


class _Act(msgspec.Struct):
    """An act (SPEC §5.3), its fields in SPEC order; events and legal actions encoded."""

    type: str
    request_id: int
    observation: _Observation
    events: msgspec.Raw
    clock: _Clock
    legal: msgspec.Raw


Decided = tuple[int, int, int, Action, float, int, int]
"""A decision as `Core.play` logs it: the seat, the request id, the choice, the action,
the ms it took, and where its events begin and end among the game's."""

Record = dict[str, Any] | Decided
"""A record of a referee's log during a game: a replay record, or a `Decided`."""


class Core:
    """The referee's game on the rules engine: `Game` with the wire forms of its events
    (each converted once, to a dict for the log and to msgpack for the acts) and of its
    acts."""

    __slots__ = (
        "_discard",
        "_discard_bytes",
        "_discard_count",
        "_ends",
        "_event_records",
        "_face_up",
        "_game",
        "_heard",
        "_packed",
        "_taken",
    )

    def __init__(self, config: GameConfig, seed: int) -> None:
        self._game = Game(config, seed)
        self._event_records: list[dict[str, Any]] = []
        """The log records of the engine's events so far (converted when first needed),
        each holding the event's wire form."""
        self._packed = bytearray()
        """The same events encoded, one after another."""
        self._ends = {0: 0}
        """Where the bytes of the first n events end in `_packed`, for every n the
        events were synced at (every seat's news starts at one of these)."""
        self._taken = 0
        """Events handed out by `take_events`."""
        self._heard = [0] * config.players
        """Per seat, the events sent to it."""
        self._discard: list[Card] = []
        """The engine's discard pile when `_discard_bytes` was last brought up to date
        (the engine puts a new list in its place at a reshuffle or a new round)."""
        self._discard_bytes = bytearray()
        """The encoded codes of the first `_discard_count` cards of `_discard`."""
        self._discard_count = 0
        self._face_up: tuple[list[tuple[Card, ...]] | None, msgspec.Raw] = (None, _NOTHING)
        """The engine's face-up cards when last encoded, and their encoding."""

    @property
    def to_move(self) -> int | None:
        return self._game.to_move

    @property
    def is_over(self) -> bool:
        return self._game.is_over

    @property
    def plays(self) -> int:
        return self._game.plays

    def legal_actions(self) -> tuple[Action, ...]:
        return self._game.legal_actions()

    def _legal(self, index: int) -> Action:
        """The legal action number `index`; GameOverError or IndexError if none."""
        game = self._game
        if game.is_over:
            raise GameOverError("the game is over")
        legal = game.legal_actions()
        if not 0 <= index < len(legal):
            raise IndexError(f"no legal action {index} of {len(legal)}")
        return legal[index]

    def apply(self, index: int) -> None:
        """Play the legal action number `index`."""
        self._game.apply_unchecked(self._legal(index))

    def eliminate(self, seat: int, cause: Cause) -> None:
        self._game.eliminate(seat, cause)

    def in_game(self, seat: int) -> bool:
        return self._game.observation(seat).in_game[seat]

    def hand(self, seat: int) -> tuple[Card, ...]:
        return self._game.hand(seat)

    def outcome(self) -> Outcome:
        return self._game.outcome()

    def _sync(self) -> int:
        """Convert and encode the engine's new events (their forms, `_FORMS`); the
        number of events so far."""
        records = self._event_records
        engine = self._game.events
        known = len(records)
        if known < len(engine):
            parts = []
            kinds = _FORMS.get
            for event in engine[known:]:
                forms = kinds(type(event))
                form = forms.get(event) if forms is not None else None
                packed, record = form if form is not None else _new_form(event, forms)
                parts.append(packed)
                records.append(record)
            self._packed += b"".join(parts)
            self._ends[len(records)] = len(self._packed)
        return len(records)

    def _wire_forms(self, start: int) -> list[dict[str, Any]]:
        """The wire forms of the events from number `start` on."""
        return [record["event"] for record in self._event_records[start:]]

    def take_events(self) -> list[dict[str, Any]]:
        """The wire forms of the events since the last call."""
        start, self._taken = self._taken, self._sync()
        return self._wire_forms(start)

    def news(self, seat: int) -> list[dict[str, Any]]:
        """The wire forms of the events not sent to `seat` yet; they count as sent."""
        start, self._heard[seat] = self._heard[seat], self._sync()
        return self._wire_forms(start)

    def _packed_news(self, seat: int) -> bytes:
        """`news(seat)` as one encoded array: its events' bytes, spliced."""
        count = self._sync()
        start, self._heard[seat] = self._heard[seat], count
        return _array_header(count - start) + self._packed[self._ends[start] :]

    def log_events(self, log: list[Record]) -> None:
        """Append the records of the events since the last `take_events` (or call)."""
        start, self._taken = self._taken, self._sync()
        log.extend(self._event_records[start:])

    def play(self, index: int, log: list[Record], request_id: int, ms: float) -> None:
        """The referee's decision: append its record to `log`, play the legal action
        number `index` (as `apply`), then append the records of its events.

        The records are appended as one `Decided` tuple, which `records` turns into
        them (a decision's dicts cost its step a tenth of its time, and nobody reads
        them before the game is over)."""
        game = self._game
        legal = game._legal
        if game._reason is not None:
            raise GameOverError("the game is over")
        if not 0 <= index < len(legal):
            raise IndexError(f"no legal action {index} of {len(legal)}")
        action = legal[index]
        seat = game._current
        game.apply_unchecked(action)
        start, self._taken = self._taken, self._sync()
        log.append((seat, request_id, index, action, ms, start, self._taken))

    def records(self, log: list[Record]) -> list[dict[str, Any]]:
        """`log` with every `Decided` tuple of `play` in it made its records: the
        decision's, then its events'."""
        events = self._event_records
        action_dict = _wire.action_to_dict
        out: list[dict[str, Any]] = []
        for record in log:
            if type(record) is dict:
                out.append(record)
                continue
            seat, request_id, index, action, ms, start, end = cast(Decided, record)
            out.append(
                {
                    "type": "decision",
                    "seat": seat,
                    "request_id": request_id,
                    "choice": index,
                    "action": action_dict(action),
                    "ms": ms,
                }
            )
            out.extend(events[start:end])
        return out

    def _discard_raw(self) -> msgspec.Raw:
        """The discard pile, encoded: only the cards added since the last call are
        encoded (the engine's pile only grows, until it puts a new list in its place)."""
        pile = self._game._discard
        done = self._discard_bytes
        count = len(pile)
        if pile is not self._discard or count < self._discard_count:
            self._discard = pile
            self._discard_count = 0
            done.clear()
        if self._discard_count < count:
            code = _CODE_BYTES.__getitem__
            done += b"".join(map(code, pile[self._discard_count :]))
            self._discard_count = count
        return msgspec.Raw(_array_header(count) + done)

    def _face_up_raw(self) -> msgspec.Raw:
        """The face-up cards, encoded again only when they changed (at an elimination)."""
        face_up = self._game._face_up
        key, raw = self._face_up
        if key != face_up:
            raw = msgspec.Raw(_encode([[CODES[c] for c in cards] for cards in face_up]))
            self._face_up = (face_up.copy(), raw)
        return raw

    def act_frame(self, seat: int, request_id: int, decision_ms: int, bank_ms: int | None) -> bytes:
        """The act frame for `seat` (SPEC §5.3), with its news (which count as sent):
        the bytes of `protocol.encode_frame(_wire.act(...))`, built without its dicts."""
        game = self._game
        if not 0 <= seat < game._n:
            game.observation_dict(seat)  # its error
        code = _CODES.__getitem__
        scores = game._scores
        tokens = game._tokens
        observation = _Observation(
            seat,
            list(map(code, sorted(game._hands[seat]))),
            game._total,
            game._direction,
            game.to_move,
            game._owes,
            list(map(len, game._hands)),
            game._in_game,
            game._in_round,
            self._face_up_raw(),
            len(game._draw),
            self._discard_raw(),
            scores,
            tokens,
            game._round,
            game._plays,
        )
        legal = game.legal_actions()
        act = _Act(
            "act",
            request_id,
            observation,
            msgspec.Raw(self._packed_news(seat)),
            _Clock(decision_ms, bank_ms),
            msgspec.Raw(_array_header(len(legal)) + b"".join([_LEGAL_BYTES[id(a)] for a in legal])),
        )
        body = _encode(act)
        if len(body) > protocol.MAX_FRAME_LIMIT:
            raise ValueError(f"message of {len(body)} bytes does not fit in one frame")
        return len(body).to_bytes(4, "big") + body
