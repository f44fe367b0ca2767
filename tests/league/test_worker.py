"""What crosses between the league and its worker processes survives the trip."""

from __future__ import annotations

from pathlib import Path

import protocol
from arena.bots import BotSpec, Limits
from arena.referee import Clocks, FaultRecord, GameResult, RunSettings
from arena.worker import settings_from_dict, settings_to_dict, spec_from_dict, spec_to_dict

from .test_store_basics import finished


def test_a_game_result_survives_the_wire() -> None:
    result = finished("g7", 9)
    result = GameResult(
        **{f: getattr(result, f) for f in result.__dataclass_fields__}
        | {"faults": (FaultRecord(1, "malformed", "bad bytes", b"\x00\xff", 12),)}
    )
    message = protocol.decode_frame(protocol.encode_frame({"result": result.to_dict()}))
    assert GameResult.from_dict(message["result"]) == result


def test_bots_and_settings_survive_the_wire() -> None:
    spec = BotSpec("ann", ("python3", "bot.py"), Path("/x/ann"), ("make",))
    assert spec_from_dict(spec_to_dict(spec)) == spec
    bare = BotSpec("cmd", ("./bot",), None)
    assert spec_from_dict(spec_to_dict(bare)) == bare
    settings = RunSettings(
        clocks=Clocks(decision_ms=123, bank_ms=4000, increment_ms=7),
        limits=Limits(memory_mb=512, processes=None),
        max_frame=4096,
        fresh_process=True,
        log_dir=Path("/tmp/logs"),
    )
    back = settings_from_dict(settings_to_dict(settings, "none"))
    assert back == settings
