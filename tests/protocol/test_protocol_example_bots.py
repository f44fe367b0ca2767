"""The Python example bots: real processes speaking the golden session, and their strength."""

from __future__ import annotations

import importlib.util
import os
import random
import select
import subprocess
import sys
import time
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import msgpack
import pytest

from protocol import MAX_REFEREE_FRAME, FrameDecoder, parse_bot_action, parse_bot_hello

from .conftest import ROOT, load_index, vector_bytes, vector_json

BOTS = ROOT / "example_bots" / "python"
SESSION = [name for name in load_index()["session"] if name is not None]
TIMEOUT = 20.0
"""Seconds to wait for a bot before the test fails (a safety net, not a measurement)."""


class BotProcess:
    """A bot started as the arena starts it, driven frame by frame over its pipes."""

    def __init__(self, folder: Path, *, bare: bool = False) -> None:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "RANDOM_BOT_SEED": "7"}
        flags = []
        if bare:  # a Python with msgpack but without `protocol`: no site, no .pth files
            flags = ["-S"]
            env["PYTHONPATH"] = os.path.dirname(os.path.dirname(msgpack.__file__))
        self.proc = subprocess.Popen(
            [sys.executable, *flags, "bot.py"],
            cwd=folder,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.decoder = FrameDecoder(MAX_REFEREE_FRAME)

    def send(self, frame: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(frame)
        self.proc.stdin.flush()

    def receive(self) -> dict[str, Any]:
        """The next frame from the bot; fails if none comes (e.g. the bot forgot to flush)."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + TIMEOUT
        while (message := self.decoder.next_message()) is None:
            remaining = deadline - time.monotonic()
            assert remaining > 0, "the bot did not answer"
            ready, _, _ = select.select([fd], [], [], remaining)
            if ready:
                chunk = os.read(fd, 65536)
                assert chunk, f"the bot closed its stdout: {self.stderr()}"
                self.decoder.feed(chunk)
        return message

    def close_stdin(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()

    def wait(self) -> int:
        return self.proc.wait(timeout=TIMEOUT)

    def stderr(self) -> str:
        assert self.proc.stderr is not None
        if self.proc.poll() is None:
            return "(still running)"
        return self.proc.stderr.read().decode(errors="replace")

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


@pytest.fixture
def start() -> Iterator[Callable[..., BotProcess]]:
    started: list[BotProcess] = []

    def start(name: str, bare: bool = False) -> BotProcess:
        bot = BotProcess(BOTS / name, bare=bare)
        started.append(bot)
        return bot

    yield start
    for bot in started:
        bot.kill()


def play_golden_session(bot: BotProcess) -> tuple[dict[str, Any], list[tuple[str, int]]]:
    """Speak the canonical vectors to ``bot`` in lock step; return its hello and choices."""
    hello: dict[str, Any] = {}
    choices: list[tuple[str, int]] = []
    for name in SESSION:
        if name == "bot_hello":
            hello = bot.receive()
            parse_bot_hello(hello)
        elif name.startswith("action_"):
            continue
        else:
            bot.send(vector_bytes(name))
            if name.startswith("act_"):
                act = vector_json(name)
                answer = bot.receive()
                action = parse_bot_action(
                    answer, request_id=act["request_id"], legal_count=len(act["legal"])
                )
                choices.append((name, action.choice))
    return hello, choices


@pytest.mark.subprocess
@pytest.mark.parametrize("name", ["random", "heuristic"])
def test_bot_plays_the_golden_session_and_exits_after_bye(
    start: Callable[[str], BotProcess], name: str
) -> None:
    bot = start(name)
    hello, choices = play_golden_session(bot)
    assert hello["name"] == name
    assert [act for act, _ in choices] == [n for n in SESSION if n.startswith("act_")]
    assert dict(choices)["act_2022_tokens_quad"] == 0  # the only legal action
    assert bot.wait() == 0, bot.stderr()


@pytest.mark.subprocess
def test_random_bot_hello_is_the_golden_frame(start: Callable[[str], BotProcess]) -> None:
    bot = start("random")
    bot.send(vector_bytes("referee_hello"))
    frame = bot.receive()
    assert frame == vector_json("bot_hello")
    bot.close_stdin()
    assert bot.wait() == 0


@pytest.mark.subprocess
def test_heuristic_choices_on_the_golden_acts(start: Callable[[str], BotProcess]) -> None:
    _, choices = play_golden_session(start("heuristic"))
    assert dict(choices) == {
        "act_2022_single": 1,  # the 7: the highest number that fits
        "act_2022_single_owes_two": 0,  # the 3 (total 25 is low); the R stays for the second card
        "act_1980_points_bust": 2,  # bust the 10, the most expensive card
        "act_2022_tokens_quad": 0,
    }


@pytest.mark.subprocess
@pytest.mark.parametrize("after", [0, 1, 3])
def test_bot_exits_when_stdin_closes(start: Callable[[str], BotProcess], after: int) -> None:
    bot = start("random")
    frames = [n for n in SESSION if not n.startswith(("bot_", "action_"))][:after]
    for name in frames:
        bot.send(vector_bytes(name))
        if name in ("referee_hello", "act_2022_single"):
            bot.receive()
    bot.close_stdin()
    assert bot.wait() == 0, bot.stderr()


@pytest.mark.subprocess
@pytest.mark.parametrize("name", ["random", "heuristic"])
def test_bot_finds_the_protocol_of_this_repository_when_none_is_installed(
    start: Callable[..., BotProcess], name: str
) -> None:
    bot = start(name, bare=True)
    hello, _ = play_golden_session(bot)
    assert hello["name"] == name
    assert bot.wait() == 0, bot.stderr()


@pytest.mark.parametrize("name", ["random", "heuristic"])
def test_manifests(name: str) -> None:
    manifest = tomllib.loads((BOTS / name / "bot.toml").read_text())
    assert manifest["name"] == name
    assert manifest["run"] == "python3 bot.py"
    assert set(manifest) <= {"name", "run", "build", "description"}


# -- strength: the heuristic against random, in-process over the rules engine -------------


def load_bot(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"example_bot_{name}", BOTS / name / "bot.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_heuristic_busts_only_when_it_must() -> None:
    """R4.2 [ruling]: a points player may bust next to its plays; busting costs 25."""
    act = vector_json("act_1980_points_bust")
    act["observation"]["total"] = 90
    act["observation"]["hand"] = ["2", "8", "9", "DP"]
    act["legal"] = [
        {"kind": "play", "card": "2"},
        {"kind": "play", "card": "8"},
        {"kind": "bust", "card": "9"},
    ]
    bot = load_bot("heuristic").Heuristic()
    bot.edition = "1980"
    assert act["legal"][bot.choose(act)] == {"kind": "play", "card": "8"}


def heuristic_results(players: int, edition: str, fmt: str, games: int) -> list[int]:
    """Places of the heuristic in seat ``game % players`` against random bots."""
    rules = pytest.importorskip("arena.rules")
    codes = rules.CODES
    heuristic = load_bot("heuristic")
    config = rules.GameConfig(
        players=players, edition=rules.Edition(edition), format=rules.Format(fmt)
    )
    places = []
    for number in range(games):
        game = rules.Game(config, seed=number)
        hero = number % players
        bot = heuristic.Heuristic()
        bot.edition = edition
        rng = random.Random(number)
        while legal := game.legal_actions():
            seat = game.to_move
            if seat != hero:
                game.apply(legal[rng.randrange(len(legal))])
                continue
            obs = game.observation(seat)
            act = {
                "observation": {
                    "seat": obs.seat,
                    "hand": [codes[c] for c in obs.hand],
                    "total": obs.total,
                    "direction": obs.direction,
                    "to_move": obs.to_move,
                    "owes": obs.owes,
                    "hand_sizes": list(obs.hand_sizes),
                    "in_game": list(obs.in_game),
                    "in_round": list(obs.in_round),
                    "face_up": [[codes[c] for c in cards] for cards in obs.face_up],
                    "draw_size": obs.draw_size,
                    "discard": [codes[c] for c in obs.discard],
                    "scores": None if obs.scores is None else list(obs.scores),
                    "tokens": None if obs.tokens is None else list(obs.tokens),
                    "round": obs.round,
                    "plays": obs.plays,
                },
                "legal": [
                    {
                        "kind": a.kind.value,
                        **({"card": codes[a.card]} if a.card is not None else {}),
                    }
                    for a in legal
                ],
            }
            game.apply(legal[bot.choose(act)])
        places.append(game.outcome().places[hero])
    return places


@pytest.mark.parametrize(
    ("players", "edition", "fmt", "min_win_rate"),
    [(2, "2022", "single", 0.6), (4, "2022", "single", 0.35), (3, "1980", "tokens", 0.55)],
)
def test_heuristic_clearly_beats_random(
    players: int, edition: str, fmt: str, min_win_rate: float
) -> None:
    places = heuristic_results(players, edition, fmt, games=200)
    win_rate = places.count(1) / len(places)
    assert win_rate >= min_win_rate, (win_rate, 1 / players)
