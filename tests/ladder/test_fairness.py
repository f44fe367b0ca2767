"""Whether an author can game the ladder's standings with several bots: by default an
author has one bot in play (`--bots-per-author`), so that no bot of theirs can throw
its games to another of theirs (docs/ladder.md, "Fair play between authors")."""

from __future__ import annotations

import math
import types
from pathlib import Path

import trio

from arena.ladder import LadderDB, LadderSettings, _web

from .helpers import bot_folder


def _packed(folder: Path) -> bytes:
    import io
    import tarfile

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path in sorted(folder.iterdir()):
            if path.is_file():
                tar.add(path, arcname=path.name)
    return buffer.getvalue()


async def _submit(site: _web.LadderSite, token: str, body: bytes) -> tuple[int, bytes]:
    from starlette.requests import Request

    parts = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive() -> dict[str, object]:
        return parts.pop()

    headers = [
        (b"authorization", f"Bearer {token}".encode()),
        (b"content-length", str(len(body)).encode()),
    ]
    scope = {
        "type": "http", "method": "POST", "path": "/api/submit", "query_string": b"",
        "headers": headers, "scheme": "http", "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 5000),
    }  # fmt: skip
    answer = await site.submit(Request(scope, receive))
    return answer.status_code, bytes(answer.body)


async def test_an_author_has_one_bot_in_play_unless_the_organiser_allows_more(
    tmp_path: Path,
) -> None:
    """Two bots of one author at a table: one recognised the other (by its name, or by a
    pattern of plays) and threw its games to it, on a real ladder 63 of 80 at tables of
    2, which put its sibling 40 Elo above an identical copy by another author. By
    default a second name of an author's is refused while the first is in play (active,
    or on its way); a new version of it is taken, and `bots_per_author` allows more."""
    store = tmp_path / "ladder.sqlite"
    folders = {name: bot_folder(tmp_path, name) for name in ("main", "feeder", "other")}
    with LadderDB.open(store, create=True) as db:
        tokens = {name: db.add_author(name) for name in ("alice", "bob")}
        send, _ = trio.open_memory_channel[str](math.inf)
        for per_author, allowed in ((1, False), (2, True)):
            settings = LadderSettings(store=store, bots_per_author=per_author)
            settings.make_folders()
            ladder = types.SimpleNamespace(settings=settings, db=db, queue_send=send)
            site = _web.LadderSite(ladder, None)  # type: ignore[arg-type]
            if per_author == 1:
                status, _ = await _submit(site, tokens["alice"], _packed(folders["main"]))
                assert status == 202
            status, body = await _submit(site, tokens["alice"], _packed(folders["feeder"]))
            if not allowed:
                assert status == 403, body
                assert b"'alice' has 1 bot(s) in play already (main)" in body
                assert b"--bots-per-author 1" in body
                # a new version of the bot in play, and another author's bot: taken
                assert (await _submit(site, tokens["alice"], _packed(folders["main"])))[0] == 202
                assert (await _submit(site, tokens["bob"], _packed(folders["other"])))[0] == 202
            else:
                assert status == 202, body
        assert [(s.author, s.bot) for s in db.submissions()] == [
            ("alice", "main.v1"), ("alice", "main.v2"), ("bob", "other.v1"),
            ("alice", "feeder.v1"),
        ]  # fmt: skip
    assert LadderSettings(store=store).bots_per_author == 1  # the default


def test_a_bot_whose_versions_all_ended_leaves_its_author_free_for_another(
    tmp_path: Path,
) -> None:
    """A name counts while a version of it is active or on its way (received, built,
    checked); once every version of it has failed or been retired, another name may
    be submitted."""
    with LadderDB.open(tmp_path / "ladder.sqlite", create=True) as db:
        db.add_author("alice")
        first = db.add_submission("alice", "main", "d1", bots_per_author=1)
        db.activate(first.id, "")
        assert db.in_play("alice") == ["main"]
        db.set_state(first.id, "failed", "5 faults in a row in its games")
        assert db.in_play("alice") == []
        db.add_submission("alice", "other", "d2", bots_per_author=1)
        assert db.in_play("alice") == ["other"]


def test_an_author_over_a_limit_lowered_since_may_still_send_new_versions(
    tmp_path: Path,
) -> None:
    """An author with two bots in play when the organiser restarts the ladder with
    `--bots-per-author 1` may send new versions of either (not a third name)."""
    import pytest

    from arena.errors import InputError

    with LadderDB.open(tmp_path / "ladder.sqlite", create=True) as db:
        db.add_author("alice")
        for name in ("main", "feeder"):
            db.activate(db.add_submission("alice", name, "d", bots_per_author=2).id, "")
        assert db.add_submission("alice", "feeder", "d2", bots_per_author=1).bot == "feeder.v2"
        with pytest.raises(InputError, match="2 bot"):
            db.add_submission("alice", "third", "d3", bots_per_author=1)


def test_the_organiser_withdraws_a_bot_and_the_standings_leave_it_out(tmp_path: Path) -> None:
    """`arena ladder withdraw NAME STORE`, also while a ladder holds the store: the
    active version retired, its games kept (`--all-versions` rates it), the standings
    of the active versions without it."""
    from .helpers import arena
    from .test_versions import submitted_ladder_store

    store = str(submitted_ladder_store(tmp_path / "ladder.sqlite"))
    before = arena("standings", store)
    assert "c.v1" in before.stdout, before.stderr
    from arena.store import Store

    with Store.open(Path(store)):  # held, as by a running ladder
        done = arena("ladder", "withdraw", "c", store)
    assert done.returncode == 0, done.stderr
    assert "withdrew c.v1 (author carol)" in done.stderr
    assert "c.v1" not in arena("standings", store, check=True).stdout
    assert "c.v1" in arena("standings", store, "--all-versions", check=True).stdout
    with LadderDB.open(Path(store)) as db:
        assert [(s.bot, s.state) for s in db.submissions() if s.name == "c"] == [
            ("c.v1", "retired")
        ]
    again = arena("ladder", "withdraw", "c", store)
    assert again.returncode == 2
    assert "no version of bot 'c' is active" in again.stderr
