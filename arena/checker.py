"""`arena check-bot`: run a bot through the protocol and tell its author what is wrong.

The bot under test plays a few games against built-in opponents (in-process bots that
choose at random) in both editions and every format. Every frame it sends goes through
the referee's own checks; each check becomes a line of the report with the section of
protocol/SPEC.md that it enforces.
"""

from __future__ import annotations

import dataclasses
import fcntl
import itertools
import os
import random
import re
import struct
import tempfile
import termios
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgpack
import trio

import protocol
from arena.bots import BotProcess, BotSpec, Limits, start_process
from arena.errors import BotCrashed, BotFault, BotMalformed, shown
from arena.referee import BotSession, Clocks, Connection, PipePort, Wrap, memory_pair, play_game
from arena.referee._connection import Steps, unfinished_hint
from arena.rules import ActionKind, Edition, Ending, Format, Game, GameConfig, derive_seed

SECTIONS = {
    "start": "§14.2, §9.3",
    "start-up": "§4.2, §6.1, §9.3",
    "timeout": "§8.2, §8.3, §9.1",
    "crash": "§4.4, §9.1",
    "malformed": "§3, §4.1, §6.2, §9.1",
    "illegal": "§6.2, §7.2, §9.1",
    "bye": "§4.4, §5.5",
    "stdout": "§1.1, §3.6, §4.1",
    "eof": "§3.6, §4.4",
    "timing": "§8.3, §8.4, §8.5",
}


HELLO_WAIT_MS = 1000
"""How long check-bot waits, after it starts the bot, before it writes its hello: a bot
that writes first (its hello, before it has read the referee's) is seen doing it. The
time counts as start-up time (SPEC §4.2)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Setting:
    """One game of the plan: its rules, the bot's seat, and what else it exercises."""

    label: str
    config: GameConfig
    seat: int
    """The bot's seat (in later rounds the next seats in turn; a `quad` game keeps it)."""
    bank: bool = False
    """Played with a time bank (SPEC §8.3): `bank_ms` an int, not nil."""
    quad: bool = False
    """Dealt so that the bot's seat, seat 0, holds four ONO 99 at its first act: an act
    whose only legal action is a `quad` (SPEC §7.2), which random deals rarely give."""


GAMES: list[Setting] = [
    Setting("2022 single, 4 seats", GameConfig(players=4), 0),
    Setting("2022 single, 2 seats, four ONO 99 dealt", GameConfig(players=2), 0, quad=True),
    Setting("2022 single, 2 seats", GameConfig(players=2), 1),
    Setting("1980 single, 3 seats, ONO on tens", GameConfig(
        players=3, edition=Edition.E1980, ono_on_tens=True), 2),
    Setting("2022 single, 6 seats, time bank", GameConfig(players=6), 5, bank=True),
    Setting("2022 points, 3 seats", GameConfig(players=3, format=Format.POINTS, target=60), 0),
    Setting("1980 points, 4 seats", GameConfig(
        players=4, edition=Edition.E1980, format=Format.POINTS, target=60), 3),
    Setting("2022 points, 5 seats, ending lowest", GameConfig(
        players=5, format=Format.POINTS, target=60, ending=Ending.LOWEST), 4),
    Setting("2022 tokens, 3 seats", GameConfig(players=3, format=Format.TOKENS, tokens=1), 2),
    Setting("1980 tokens, 2 seats, time bank", GameConfig(
        players=2, edition=Edition.E1980, format=Format.TOKENS, tokens=2), 0, bank=True),
    Setting("1980 single, 6 seats, the draw pile runs out", GameConfig(
        players=6, edition=Edition.E1980), 3),
]  # fmt: skip
"""What `arena check-bot` plays, in order: both editions, every format and ending, tables
of 2 to 6 with the bot in every seat from the first to the sixth, with and without a
time bank, and an act of every kind of action (play, quad, bust). The last is a 1980 game
at 6 seats: 54 cards leave a draw pile of 30, and it runs out (a `reshuffle` event, which
no other game of the plan has: in some 199 of 200 such games). Then `WIDE` games until
its request ids are past `WIDE_ID`."""

WIDE = Setting("2022 single, 2 seats, request ids past 255", GameConfig(players=2), 0)


WIDE_ID = 300
"""Past 255 a request id takes msgpack's 16-bit form (3 bytes): games are added to the
plan, 2 seats each, until the bot has answered an id past this (a bot that kept ids in
8 bits, or read only the shorter forms, passed the plan's games alone: about 230 ids,
and then sent a wrong request_id in the 12th game of a match)."""

PADDED = 256 << 10
"""The size of the first game_over check-bot sends, padded with a key no bot knows
(SPEC §3.5: ignored): a game_over after a long game carries every event a seat missed,
a few hundred KiB (§3.3). The games check-bot plays send 2 KiB at most, and a bot that
read frames into 4 KiB passed, then crashed in 6-seat games of a match."""

PAD_KEY = "check_bot_padding"


class _PaddedConnection(Connection):
    """The bot's connection, its first game_over padded to about `PADDED` bytes."""

    padded = False

    def send_steps(self, message: dict[str, Any], deadline: float, **options: Any) -> Steps[None]:
        if not self.padded and message.get("type") == "game_over":
            self.padded = True
            message = {**message, PAD_KEY: "." * PADDED}
        return super().send_steps(message, deadline, **options)


EXITED_S = 0.05
"""How long check-bot looks, after each game, for the bot's exit: a bot that crashed on
its game_over was blamed on the next game."""


def quad_seed(config: GameConfig, round_: int) -> int:
    """The first seed of a fixed sequence that deals seat 0 four ONO 99: its first act
    then offers only `quad` (one deal in some 30,000; found in a fraction of a second)."""
    for k in itertools.count():
        seed = derive_seed("check-bot-quad", round_, k)
        if any(a.kind is ActionKind.QUAD for a in Game(config, seed).legal_actions()):
            return seed
    raise AssertionError("unreachable")


@dataclasses.dataclass(frozen=True, slots=True)
class Check:
    """One line of the report."""

    name: str
    ok: bool
    detail: str
    section: str = ""
    data: bytes | None = None
    warning: bool = False
    stderr: str = ""
    log: str = ""
    """Where the bot's whole stderr is kept (`--log-dir`); "" when it is not kept."""


def hexdump(data: bytes, limit: int = 64) -> str:
    """Bytes as spaced hex, cut at `limit`."""
    text = data[:limit].hex(" ")
    return text + (" ..." if len(data) > limit else "")


LINGER_S = 0.25
"""How long check-bot waits after the last game before it writes bye."""


async def _builtin_bot(stream: trio.abc.Stream, seed: int) -> None:
    """An in-process opponent: valid frames, uniformly random legal choices."""
    rng = random.Random(seed)
    decoder = protocol.FrameDecoder(protocol.MAX_REFEREE_FRAME)
    try:
        while data := await stream.receive_some(65536):
            decoder.feed(data)
            for message in decoder:
                if message["type"] == "hello":
                    reply = {"type": "hello", "name": "builtin", "version": "1", "protocol": 1}
                elif message["type"] == "act":
                    choice = rng.randrange(len(message["legal"]))
                    reply = {"type": "action", "request_id": message["request_id"],
                             "choice": choice}  # fmt: skip
                elif message["type"] == "bye":
                    return
                else:
                    continue
                await stream.send_all(protocol.encode_frame(reply))
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        return


class _Checker:
    def __init__(
        self,
        spec: BotSpec,
        clocks: Clocks,
        limits: Limits,
        rounds: int,
        log: Path,
        wrap: Wrap | None = None,
        hello_wait_ms: int = HELLO_WAIT_MS,
        kept: bool = False,
    ) -> None:
        self.log = log
        self.kept = kept
        """Whether the log outlives the check (`--log-dir`): the report then names it."""
        self.log_start = log.stat().st_size if log.exists() else 0
        """Where this check's output begins in the log (a kept log is appended to: its
        build's output, earlier checks)."""
        self.hello_wait = min(hello_wait_ms, clocks.startup_ms // 4) / 1000
        self.spec = spec
        self.wrap = wrap
        self.clocks = clocks
        self.limits = limits
        self.rounds = rounds
        self.checks: list[Check] = []
        self.slowest = 0.0

    def stderr_tail(self) -> str:
        """The last lines the bot wrote to its stderr during this check, or ""."""
        if not self.log.exists():
            return ""
        with self.log.open("rb") as file:
            size = file.seek(0, os.SEEK_END)
            file.seek(max(self.log_start, size - 2000))
            tail = file.read().decode(errors="replace").strip()
        return "\n".join(tail.splitlines()[-STDERR_LINES:])

    def add(self, check: Check) -> None:
        if not check.ok and (tail := self.stderr_tail()):
            detail = check.detail
            if self.wrap is not None and any(s in tail for s in READ_ONLY):
                detail += READ_ONLY_NOTE
            check = dataclasses.replace(check, detail=detail, stderr=tail)
        if not check.ok and self.kept:
            log = str(self.log)
            cap = self.limits.stderr_kb
            if self.log.exists() and self.log.stat().st_size >= cap * 1024:
                log += (
                    f" (it is full, at {cap:,} KiB: what the bot wrote after that was dropped;"
                    " remove the file, or give another --log-dir)"
                )
            check = dataclasses.replace(check, log=log)
        self.checks.append(check)

    async def start(self, nursery: trio.Nursery) -> BotSession | None:
        try:
            process = await start_process(
                self.spec, nursery, limits=self.limits, log_path=self.log, wrap=self.wrap
            )
        except OSError as err:
            self.add(Check("start-up", False, f"cannot start the bot: {err}", SECTIONS["start"]))
            return None
        connection = _PaddedConnection(PipePort(process.stream))
        session = BotSession(self.spec.name, connection, process=process)
        begin = trio.current_time()
        clocks = self.clocks
        if self.hello_wait > 0:
            early = await _written_first(session.connection, self.hello_wait)
            if early:
                await session.kill(BotMalformed("wrote first"), clocks.kill_grace_ms / 1000)
                self.add(Check("start-up", False, f"wrote {len(early)} bytes before the"
                               " referee's hello was written: a bot reads the referee's hello"
                               " first and answers it", SECTIONS["start-up"], early))  # fmt: skip
                return None
        asked = trio.current_time()
        try:  # the wait counts as start-up time: the limit runs from the process's start
            hello = await session.handshake(clocks, protocol.DEFAULT_MAX_FRAME, started=begin)
        except BotFault as fault:
            detail, data = _framing(str(fault), fault, session.connection)
            # How it ended, as a game's crash says: "exited with status 2" (a wrong file
            # name in its run command, an exception at import) or killed by a signal.
            if fault.cause == "crash" and await process.wait_exit(EXITED_S):
                detail += f": the process {process.exit_status()}"
            await session.kill(fault, self.clocks.kill_grace_ms / 1000)
            self.add(Check("start-up", False, f"{fault.cause}: {detail}", SECTIONS["start-up"],
                           data))  # fmt: skip
            return None
        now = trio.current_time()
        ms = (now - asked) * 1000
        when = (
            f"hello {ms:.0f} ms after the referee's (written {(asked - begin) * 1000:.0f} ms"
            " after the start; nothing came before it)"
            if asked > begin
            else f"hello in {ms:.0f} ms"
        )
        self.add(Check("start-up", True, f"{when}: name {shown(hello.name)},"
                       f" version {shown(hello.version)}, protocol {hello.protocol}",
                       SECTIONS["start-up"]))  # fmt: skip
        return session

    async def run(self) -> None:
        async with trio.open_nursery() as nursery:
            session = await self.start(nursery)
            plan = [(setting, r) for setting in GAMES for r in range(self.rounds)]
            games = itertools.chain(plan, itertools.repeat((WIDE, 0)))
            for number, (setting, r) in enumerate(games, 1):
                if number > len(plan) and session is not None:  # see WIDE_ID
                    if session.request_id > WIDE_ID:
                        break
                    r = number % 2
                if session is not None and number > 1:
                    session = await self.still_running(session, number - 1)
                if session is None:
                    break  # the report stops at the first failure
                session = await self.game(nursery, session, number, setting, r)
            if session is not None and not session.broken:
                await self.bye(session)
                await self.end_of_stdin(nursery)
            nursery.cancel_scope.cancel()

    async def end_of_stdin(self, nursery: trio.Nursery) -> None:
        """A second process, its stdin closed after the hellos, must exit (SPEC §4.4):
        the referee ends a session so when a tournament is interrupted."""
        name, section = "end of stdin", SECTIONS["eof"]
        try:
            process = await start_process(
                self.spec, nursery, limits=self.limits, log_path=self.log, wrap=self.wrap
            )
        except OSError as err:
            self.add(Check(name, False, f"cannot start a second process: {err}", section))
            return
        session = BotSession(self.spec.name, Connection(PipePort(process.stream)), process=process)
        try:
            await session.handshake(self.clocks, protocol.DEFAULT_MAX_FRAME)
        except BotFault as fault:
            await session.kill(fault, self.clocks.kill_grace_ms / 1000)
            self.add(Check(name, False, f"a second process failed its start-up: {fault.cause}:"
                           f" {fault}", SECTIONS["start-up"], fault.detail))  # fmt: skip
            return
        begin = time.monotonic()
        await process.process.stdin.aclose()
        grace = self.clocks.exit_grace_ms
        if await process.wait_exit(grace / 1000):
            ms = (time.monotonic() - begin) * 1000
            self.add(Check(name, True, f"exited {ms:.0f} ms after its stdin was closed", section))
        else:
            self.add(Check(name, False, f"still running {grace} ms after its stdin was closed"
                           " (it is killed): a bot exits when it reads the end of its stdin",
                           section))  # fmt: skip
        await session.close(self.clocks)

    async def game(
        self,
        nursery: trio.Nursery,
        session: BotSession,
        number: int,
        setting: Setting,
        round_: int,
    ) -> BotSession | None:
        config = setting.config
        if setting.quad:
            seat, seed = setting.seat, quad_seed(config, round_)
        else:
            seat, seed = (setting.seat + round_) % config.players, derive_seed("check-bot", number)
        clocks = self.clocks
        if setting.bank:  # a bank that a bot within its per-decision time never runs out of
            clocks = dataclasses.replace(
                clocks, bank_ms=10 * clocks.decision_ms, increment_ms=clocks.decision_ms
            )
        label = setting.label
        seats: list[BotSession] = []
        for s in range(config.players):
            if s == seat:
                seats.append(session)
                continue
            ours, theirs = memory_pair()
            nursery.start_soon(_builtin_bot, theirs, derive_seed("builtin", number, s))
            builtin = BotSession(f"builtin-{s}", Connection(ours))
            await builtin.handshake(self.clocks, protocol.DEFAULT_MAX_FRAME)
            seats.append(builtin)
        result = await play_game(seats, config, seed, clocks=clocks, game_id=f"check-{number}")
        for s, other in enumerate(seats):
            if s != seat:
                await other.close(self.clocks)
        name = f"game {number}: {label}, seat {seat}"
        mine = [f for f in result.faults if f.seat == seat]
        decisions = [r for r in result.log if r["type"] == "decision" and r["seat"] == seat]
        slowest = max((r["ms"] for r in decisions), default=0.0)
        self.slowest = max(self.slowest, slowest)
        if mine:
            fault = mine[0]
            message = fault.message
            if self.stderr_tail():  # the report shows it below, in full lines
                message = message.partition(" (its stderr ended: ")[0]
            message, data = _framing(message, fault, session.connection)
            message += _answer_note(message)
            detail = f"{fault.cause} after {len(decisions)} good decisions: {message}"
            if number == 1 and "sending game_over" in fault.message:
                detail += f"; that game_over was {PADDING_NOTE}"
            elif fault.cause in ("crash", "timeout") and not decisions:
                detail += _first_act_note(fault.message, number)
            self.add(Check(name, False, detail, SECTIONS[fault.cause], data))
            return None
        place = result.outcome.places[seat]
        self.add(Check(name, True, f"{len(decisions)} decisions, slowest {slowest:.1f} ms,"
                       f" finished {place} of {config.players}"))  # fmt: skip
        return session

    async def still_running(self, session: BotSession, number: int) -> BotSession | None:
        """`session`, unless its process exited after the game_over of game `number`
        (the next game would have failed for it, naming itself)."""
        process = session.process
        if process is None or not await process.wait_exit(EXITED_S):
            return session
        # (status 0 is a bot that meant to leave, not one that choked on the padding)
        padded = _padded(number) if _returncode(process) != 0 else ""
        self.add(Check(f"after game {number}", False, f"{process.exit_status()} after the"
                       f" game_over of that game{padded}: a bot reads every message"
                       " and exits only after bye or at the end of its stdin",
                       SECTIONS["crash"]))  # fmt: skip
        await session.close(self.clocks)
        return None

    async def bye(self, session: BotSession) -> None:
        limit = self.clocks.decision_ms
        share = self.slowest / limit if limit else 0.0
        self.add(Check("timing", True, f"slowest decision {self.slowest:.1f} ms of {limit} ms"
                       f" allowed ({share:.0%})", SECTIONS["timing"],
                       warning=share > 0.5))  # fmt: skip
        process = session.process
        assert process is not None
        fds = session.connection.pipe_fds()
        assert fds is not None
        session.resume()  # a game may leave it stopped (SPEC §8.5): it must read bye
        # A moment for a bot that leaves on its own after its last game_over to do so:
        # with bye written at once, both could come in one read of a buffered stdin,
        # and its exit look like an answer to bye.
        await process.wait_exit(LINGER_S)
        begin = time.monotonic()
        try:
            if _returncode(process) is not None:
                raise BotCrashed("it had exited")
            await session.send({"type": "bye"}, trio.current_time() + 1)
        except BotFault as fault:
            # A closed pipe is a process on its way out: it may not have been reaped yet.
            await process.wait_exit(self.clocks.exit_grace_ms / 1000)
            if (status := process.exit_status()) is not None:
                self.add(Check("bye", False, f"{status} before bye, after its"
                               " last game: a bot exits only after bye or at the end of its stdin",
                               SECTIONS["bye"]))  # fmt: skip
            else:
                self.add(Check("bye", False, f"could not send bye: {fault}", SECTIONS["bye"]))
            await session.close(self.clocks)
            return
        exited = await process.wait_exit(self.clocks.exit_grace_ms / 1000)
        ms = (time.monotonic() - begin) * 1000
        code = _returncode(process)
        unread = _unread(fds[0]) if exited else 0
        extra = session.connection.held() + _leftover(fds[1]) if exited else b""
        if not exited:
            self.add(Check("bye", False, f"still running {self.clocks.exit_grace_ms} ms after"
                           " bye (it is killed)", SECTIONS["bye"]))  # fmt: skip
        elif unread:
            self.add(Check("bye", False, f"{process.exit_status()} without reading bye"
                           f" ({unread} bytes of it left unread): it left on its own after its"
                           " last game; a bot exits only after bye or at the end of its stdin",
                           SECTIONS["bye"]))  # fmt: skip
        elif code != 0:
            self.add(Check("bye", False, f"{process.exit_status()} after bye: a bot exits with"
                           " status 0 after bye, the end of a session that went well",
                           SECTIONS["bye"]))  # fmt: skip
        else:
            self.add(Check("bye", True, f"exited with status 0 in {ms:.0f} ms", SECTIONS["bye"]))
        if extra:
            # Text printed to a buffered stdout (Python's print, when stdout is a pipe)
            # comes out at exit in a short session, and between frames in a long one.
            self.add(Check("stdout", False, f"wrote {len(extra)} bytes to stdout after its last"
                           f" action (after its last game or on bye), beginning"
                           f" {extra[:60].decode(errors='replace')!r}: stdout carries only the"
                           " answers, as frames. Output printed to a buffered stdout comes out"
                           " late (here at exit; in a longer session between frames, a"
                           " malformed fault): write debugging output to stderr",
                           SECTIONS["stdout"], extra))  # fmt: skip
        await session.close(self.clocks)


async def _written_first(connection: Connection, seconds: float) -> bytes:
    """What the bot writes to its stdout within `seconds` of its start, before it is
    sent anything (a conforming bot writes nothing then); b"" at its exit or end of
    output, which the handshake then reports."""
    fds = connection.pipe_fds()
    assert fds is not None
    with trio.move_on_after(seconds):
        await trio.lowlevel.wait_readable(fds[1])
        try:
            return os.read(fds[1], 64)
        except (BlockingIOError, OSError):
            return b""
    return b""


STDERR_LINES = 8
"""How many of the bot's last stderr lines a failed check shows."""

READ_ONLY = ("Read-only file system", "Permission denied", "EROFS", "EACCES")
"""What a bot's stderr says when it wrote where it may not (its folder, in the sandbox)."""

READ_ONLY_NOTE = (
    " (in the sandbox, as in a league, the bot's folder is read-only: a bot writes only"
    " under /tmp, where $TMPDIR and $HOME point, private to its process, SPEC §14.4)"
)


def _framing(message: str, fault: Any, connection: Connection) -> tuple[str, bytes | None]:
    """`message`, with what its bytes say of a wrong length prefix (SPEC §3.1), and the
    bytes to show: a little-endian prefix, one that counts fewer bytes than its map has,
    or one that promised more than came (a timeout, which the referee can only put down
    to an unflushed buffer)."""
    data: bytes | None = fault.detail
    limit = protocol.DEFAULT_MAX_FRAME
    if fault.cause == "timeout":
        part = connection.unfinished()
        if len(part) >= 4:
            n = int.from_bytes(part[:4], "big")
            message = message.removesuffix(unfinished_hint(part))  # the checker says more
            came = (
                f"{len(part) - 4} bytes of a frame's body had come after a length prefix of {n:,}"
            )
            if _map_size(part[4:]) == len(part) - 4:
                message += (
                    f" ({came}, and they hold a whole map: the prefix is wrong: it counts the"
                    " bytes of the encoded body (not characters), big-endian, SPEC §3.1)"
                )
            else:
                message += (
                    f" ({came}, and no more: either the rest is in a buffer the bot did not"
                    " flush, SPEC §3.6, or the prefix is wrong: it counts the bytes of the"
                    " encoded body (not characters), big-endian, §3.1)"
                )
            return message, part
        return message, part or data
    if not data or len(data) < 4 or "the bot wrote text to stdout" in message:
        return message, data
    if "exceeds the limit" in message:
        little = int.from_bytes(data[:4], "little")
        if 0 < little <= limit:
            follows = ", the size of the map that follows" if len(data) - 4 == little else ""
            message += (
                f" (read little-endian, those 4 bytes are {little}{follows}: the length"
                " prefix is big-endian, most significant byte first, SPEC §3.1)"
            )
    elif "incomplete input" in message:
        n = int.from_bytes(data[:4], "big")
        size = _map_size(data[4:])
        needs = f"the map in it is {size} bytes" if size else "the map in it is longer"
        message += (
            f" (its length prefix says {n} bytes, and {needs}: the prefix counts the bytes"
            " of the encoded body, not its characters or its items, SPEC §3.1)"
        )
    return message, data


def _map_size(data: bytes) -> int:
    """The size in bytes of the msgpack value that `data` begins with; 0 if it holds
    no whole one."""
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False)
    unpacker.feed(data)
    try:
        unpacker.unpack()
    except Exception:  # any failure: the bytes do not hold a whole value
        return 0
    return int(unpacker.tell())


NO_ANSWER = "only an act takes an answer: hello, game_start and game_over take none, SPEC §4.1"


def _answer_note(message: str) -> str:
    """For an answer with the wrong request_id, or one that came unasked, whose it may
    have been: a bot that answers every message, or keeps an earlier act's id."""
    if "a frame sent before it was asked for" in message:
        if ": an action for request_id" in message:  # the referee says whose it was
            return ""
        return f" ({NO_ANSWER})"
    got = re.search(r"request_id: expected (\d+), got int (-?\d+)", message)
    if got is None:
        return ""
    expected, answered = int(got[1]), int(got[2])
    if answered < 1:
        return f" (no act has that request_id: they start at 1; {NO_ANSWER})"
    if answered == expected - 1:
        return (
            " (the previous act's: an action copies the request_id of the act it answers,"
            " and answers each act once, SPEC §6.2)"
        )
    return ""


def _first_act_note(message: str, number: int) -> str:
    """For a bot that made no decision in game `number` before its crash or timeout:
    the messages it was sent since its last decision, which the fault may come from."""
    if number == 1:
        if message.startswith("no action"):  # a timeout (a crash says what ended)
            return (
                " (its first act went unanswered: a first decision that loads what the bot"
                " needs takes its time from the clock, SPEC §8.4; a bot that reads its stdin"
                " in pieces of a fixed size may get the game_start and the act in one piece,"
                " and take it for one message, §3.6)"
            )
        return ""
    before = f"the game_over of game {number - 1}{_padded(number - 1)}"
    if "sending game_start" in message:
        return f" (it was gone before this game began: the last message it was sent was {before})"
    if "sending act" in message:
        return (
            f" (it made no decision in this game: the messages it was last sent were {before}"
            " and this game's game_start)"
        )
    return (
        f" (it made no decision in this game: since its last decision it was sent {before},"
        " this game's game_start and its first act)"
    )


PADDING_NOTE = (
    f"padded to {PADDED // 1024} KiB with {PAD_KEY!r}, a key to ignore, SPEC §3.5: a bot"
    " reads frames of any size up to 16 MiB, and a game_over after a long game carries"
    " every event a seat missed, a few hundred KiB, §3.3"
)
"""What check-bot says of its first game_over (`PADDED`) when the bot fails on it."""


def _padded(number: int) -> str:
    """`PADDING_NOTE` in parentheses for game 1's game_over; nothing for another's."""
    return f" ({PADDING_NOTE})" if number == 1 else ""


def _returncode(process: BotProcess) -> int | None:
    """The process's exit status, or None while it runs (read through a call, so that
    type checkers do not take it for unchanged across an await)."""
    return process.process.returncode


def _unread(write_fd: int) -> int:
    """How many bytes written to a pipe have not been read from it."""
    try:
        return struct.unpack("i", fcntl.ioctl(write_fd, termios.FIONREAD, b"\0" * 4))[0]  # type: ignore[no-any-return]
    except OSError:
        return 0


def _leftover(read_fd: int, limit: int = 1 << 20) -> bytes:
    """What is left to read in a bot's stdout once it has exited (up to `limit`)."""
    data = bytearray()
    while len(data) < limit:
        try:
            chunk = os.read(read_fd, 65536)
        except (BlockingIOError, OSError):
            break  # a process it left behind holds the pipe open: what came is here
        if not chunk:
            break
        data += chunk
    return bytes(data)


async def check_bot(
    spec: BotSpec,
    *,
    clocks: Clocks = Clocks(),
    limits: Limits = Limits(),
    rounds: int = 1,
    wrap: Wrap | None = None,
    hello_wait_ms: int = HELLO_WAIT_MS,
    log_dir: Path | None = None,
) -> list[Check]:
    """Run every check on the bot (each of its processes started through `wrap`, the
    sandbox, if given); the list of results, in order. The referee's hello is written
    `hello_wait_ms` after the start (at most a quarter of the start-up time), or as
    soon as the bot writes first, which fails it. The bot's stderr is appended to
    `log_dir`/NAME.log if given (where its build's output is), else to a temporary
    file that goes with the check."""
    if log_dir is not None:
        log = log_dir / f"{spec.name}.log"
        checker = _Checker(spec, clocks, limits, rounds, log, wrap, hello_wait_ms, kept=True)
        await checker.run()
        return checker.checks
    with tempfile.TemporaryDirectory(prefix="arena-check-") as tmp:
        log = Path(tmp) / "stderr.log"
        checker = _Checker(spec, clocks, limits, rounds, log, wrap, hello_wait_ms)
        await checker.run()
    return checker.checks


def report(command: Sequence[str], checks: Sequence[Check]) -> list[str]:
    """The report as lines of text."""
    lines = [f"check-bot: {' '.join(command)}"]
    for check in checks:
        mark = "PASS" if check.ok and not check.warning else "WARN" if check.ok else "FAIL"
        lines.append(f"  {mark}  {check.name}: {check.detail}")
        if not check.ok or check.warning:
            if check.data:
                lines.append(f"        bytes received: {hexdump(check.data)}")
            if check.stderr:
                whole = (
                    f"all of it is in {check.log}"
                    if check.log
                    else "check-bot --log-dir DIR keeps all of it"
                )
                lines.append(f"        the bot's stderr ended with ({whole}):")
                lines.extend(f"          | {line}" for line in check.stderr.splitlines())
            elif check.log:
                lines.append(f"        the bot's stderr is kept in {check.log}")
            if check.section:
                lines.append(f"        see protocol/SPEC.md {check.section}")
    failed = sum(1 for c in checks if not c.ok)
    if failed:
        lines.append(f"result: {failed} of {len(checks)} checks failed: the bot does not conform")
    else:
        lines.append(f"result: all {len(checks)} checks passed")
    if any(c.section and (not c.ok or c.warning) for c in checks):
        # Installed from a wheel, arena's SPEC.md is in its protocol package, not in a
        # protocol/ folder the author can see.
        lines.append(f"protocol/SPEC.md is here: {Path(protocol.__file__).parent / 'SPEC.md'}")
    return lines


def conforms(checks: Sequence[Check]) -> bool:
    """True when every check passed (warnings allowed)."""
    return bool(checks) and all(c.ok for c in checks)
