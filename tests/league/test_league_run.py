"""`arena league`: every game played once, resumable after SIGKILL, builds, faults, Ctrl-C."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import zlib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.store import Store
from arena.testing import alive, pids, script

from ..sandbox.helpers import arena_on_read_only, cannot_write_store, gone_sync, needs_bwrap
from ..store_edits import without_proofs

pytestmark = pytest.mark.subprocess

ROOT = Path(__file__).resolve().parents[2]


def make_bot(root: Path, name: str, behaviour: str = "good", build: str | None = None) -> Path:
    folder = root / "bots" / name
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(script(behaviour))
    manifest = f'name = "{name}"\nrun = "python3 bot.py {root / "pids"}"\n'
    if build is not None:
        manifest += f'build = "{build}"\n'
    (folder / "bot.toml").write_text(manifest)
    return folder


def random_bot(root: Path, name: str) -> None:
    folder = root / "bots" / name
    folder.mkdir(parents=True)
    source = (ROOT / "example_bots" / "python" / "random" / "bot.py").read_text()
    fallback = "os.path.join(here, os.pardir, os.pardir, os.pardir)"  # this repository
    assert fallback in source
    source = source.replace(fallback, repr(str(ROOT)))
    (folder / "bot.py").write_text(source)
    (folder / "bot.toml").write_text(f'name = "{name}"\nrun = "python3 bot.py"\n')


def league_file(root: Path, **league: object) -> Path:
    settings = {
        "bots": "bots", "store": "league.sqlite", "seed": 3, "table_size": 3,
        "games_per_table": 3, "duplicate": True, "concurrency": 2, "fault_limit": 3,
    } | league  # fmt: skip
    lines = ["[league]"] + [f"{k} = {json.dumps(v)}" for k, v in settings.items()]
    lines += ["[clocks]", "decision_ms = 2000", "exit_grace_ms = 500", "kill_grace_ms = 200"]
    path = root / "league.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def results(store: Path) -> dict[str, list[tuple[str, int, str | None]]]:
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT game_id, bot, place, cause FROM seats ORDER BY game_id, seat")
        out: dict[str, list[tuple[str, int, str | None]]] = {}
        for game_id, bot, place, cause in rows:
            out.setdefault(game_id, []).append((bot, place, cause))
    return out


def run_cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def four_bots(root: Path) -> None:
    for name in ("ann", "bob"):
        make_bot(root, name)
    for name in ("cat", "dan"):
        random_bot(root, name)


def test_a_folder_given_as_the_league_file_is_the_bots_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`arena league bots/`, as an organiser points arena at a folder of submissions: it
    was refused ("File 'bots' is a directory"), and only `--bots bots/` played."""
    for name in ("ann", "bob"):
        make_bot(tmp_path, name)
    monkeypatch.chdir(tmp_path)
    args = ["--table-size", "2", "--games-per-table", "2", "--sandbox", "none", "-q"]
    code, out, err = run_cli("league", "bots", *args)
    assert code == 0, err
    assert len(results(tmp_path / "league.sqlite")) == 2
    assert {"ann", "bob"} <= set(out.split())
    code, _, err = run_cli("league", "bots", "--bots", "bots", *args)
    assert code == 2
    assert "bots is a folder: give it as FILE or as --bots, not both" in err


def test_league_plays_every_game_once_and_prints_standings(tmp_path: Path) -> None:
    four_bots(tmp_path)
    code, out, err = run_cli("league", str(league_file(tmp_path)), "--progress", "quiet")
    assert code == 0, err
    games = results(tmp_path / "league.sqlite")
    assert len(games) == 4 * 3  # C(4,3) tables x 3 rotations
    assert all(len(seats) == 3 for seats in games.values())
    assert {line.split()[1] for line in out.splitlines()[2:6]} == {"ann", "bob", "cat", "dan"}
    # Running again plays nothing and changes nothing.
    code, _, err2 = run_cli("league", str(league_file(tmp_path)))
    assert code == 0, err2
    assert "0 games played" in err2
    assert "12 already stored" in err2
    # and says where the games are and how to see them (make demo printed neither)
    store = tmp_path / "league.sqlite"
    assert f"stored in {store}; its web report: arena report {store} -o site/" in err2
    assert results(tmp_path / "league.sqlite") == games


def test_jsonl_progress_reports_each_game(tmp_path: Path) -> None:
    four_bots(tmp_path)
    code, out, _ = run_cli("league", str(league_file(tmp_path)), "--progress", "jsonl")
    assert code == 0
    events = [json.loads(line) for line in out.splitlines()]
    assert events[0]["event"] == "start"
    assert events[0]["total"] == 12
    games = [e for e in events if e["event"] == "game"]
    assert sorted(e["done"] for e in games) == list(range(1, 13))
    assert events[-1]["event"] == "done"
    assert events[-1]["played"] == 12


def test_a_bot_whose_program_is_not_found_is_left_out_by_name(tmp_path: Path) -> None:
    """A run command with a typo was left out as "command 'pyhton3' not found on the
    PATH", naming no bot; with -q nothing was said but "2 playable bot(s) for tables
    of 3: not enough". Both now name the bot and say why."""
    make_bot(tmp_path, "ann")
    make_bot(tmp_path, "bob")
    typo = make_bot(tmp_path, "typo")
    (typo / "bot.toml").write_text('name = "typo"\nrun = "pyhton3 bot.py"\n')
    code, _, err = run_cli("league", str(league_file(tmp_path)))
    assert code == 2
    assert "left out: typo: command 'pyhton3' not found on the PATH" in err
    code, _, err = run_cli("league", str(league_file(tmp_path)), "-q")
    assert code == 2
    assert (
        "2 playable bot(s) for tables of 3: not enough (--table-size 2 makes tables they fill);"
        " left out: typo: command 'pyhton3'" in err
    ), err


@pytest.mark.parametrize("strict", [False, True])
def test_a_league_refused_for_a_failed_build_says_so_in_one_line(
    tmp_path: Path, strict: bool
) -> None:
    """Found in an audit: a league refused for too few playable bots, or by --strict,
    named each submission left out with its whole reason, and a failed build's reason
    holds the last lines of its output: the error ran over many lines. Each reason is
    said by its first line (which names the build's log) in the error."""
    make_bot(tmp_path, "ann")
    make_bot(tmp_path, "bob")
    if strict:
        make_bot(tmp_path, "cat")
    make_bot(tmp_path, "noisy", build="sh -c 'echo one; echo two; echo three; exit 1'")
    code, _, err = run_cli("league", str(league_file(tmp_path)), "-q", *["--strict"] * strict)
    assert code == (1 if strict else 2), err
    assert err.startswith("arena: error: ")
    assert "left out" in err
    assert "noisy: build exited with status 1" in err
    assert len(err.splitlines()) == 1, err


def test_build_failure_is_reported_and_the_bot_left_out(tmp_path: Path) -> None:
    four_bots(tmp_path)
    make_bot(tmp_path, "broken", build="false")
    code, _, err = run_cli("league", str(league_file(tmp_path)))
    assert code == 0, err
    assert "left out: broken: build exited with status 1" in err
    games = results(tmp_path / "league.sqlite")
    assert len(games) == 12
    assert all(bot != "broken" for seats in games.values() for bot, _, _ in seats)


def test_a_bot_with_too_many_faults_in_a_row_is_disqualified(tmp_path: Path) -> None:
    four_bots(tmp_path)
    make_bot(tmp_path, "crasher", "crash_at_start")
    path = league_file(tmp_path, fault_limit=2, concurrency=1)
    code, _, err = run_cli("league", str(path))
    assert code == 0, err
    assert "crasher is disqualified after 2 faults in a row (the last: crash: " in err
    # Said so, its author would not know what went wrong, nor where to read why.
    # (Issue 44.2: the logs are kept by default, beside the store.)
    log = tmp_path / "league-logs" / "crasher.log"
    assert f"its remaining games are forfeits (its stderr is in {log}" in err
    assert log.exists()
    games = results(tmp_path / "league.sqlite")
    crasher = [seats for seats in games.values() if any(b == "crasher" for b, _, _ in seats)]
    causes = [c for seats in crasher for b, _, c in seats if b == "crasher"]
    assert causes.count("crash") == 2
    assert causes.count("forfeit") == len(crasher) - 2
    assert len(games) == 10 * 3  # C(5,3) tables x 3 rotations, every one recorded


def test_changed_submission_is_reported(tmp_path: Path) -> None:
    four_bots(tmp_path)
    path = league_file(tmp_path)
    assert run_cli("league", str(path), "-q")[0] == 0
    bot = tmp_path / "bots" / "ann" / "bot.py"
    bot.write_text(bot.read_text() + "\n# a new version\n")
    code, _, err = run_cli("league", str(path))
    assert code == 0
    assert "warning: the submission of ann changed" in err


def test_a_bot_built_into_its_own_folder_is_not_reported_changed_on_resume(
    tmp_path: Path,
) -> None:
    """Found in an audit: a bot whose build writes into its folder (the C and Go kits'
    ./bot) had its digest taken before the first build, without that file, and before
    the resume's build, with it: every resume warned that its submission had changed,
    as it warned of a real change. A folder as the last build left it is unchanged; an
    edit after the build still is a change."""
    make_bot(tmp_path, "ann", build="cp bot.py built.py")
    make_bot(tmp_path, "bob", build="cp bot.py built.py")
    for name in ("cat", "dan"):
        random_bot(tmp_path, name)
    path = league_file(tmp_path)
    store = tmp_path / "league.sqlite"
    assert run_cli("league", str(path), "-q")[0] == 0
    assert (tmp_path / "bots" / "ann" / "built.py").exists()
    _forget_last_games(store, 2)
    code, _, err = run_cli("league", str(path), "-q")
    assert (code, err) == (0, "")
    assert len(results(store)) == 12
    assert run_cli("league", str(path), "-q")[:3:2] == (0, "")  # finished: nothing either
    bot = tmp_path / "bots" / "ann" / "bot.py"
    bot.write_text(bot.read_text() + "\n# a new version\n")
    code, _, err = run_cli("league", str(path), "-q")
    assert code == 0, err
    assert err.startswith("warning: the submission of ann changed since its stored games")
    assert len(err.splitlines()) == 1


def test_a_submission_edited_while_the_league_plays_is_reported_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found in an audit: a submission edited while the league ran had its later games
    played by the new version and counted with the earlier ones, and a league that then
    ran to its end said nothing (only a resume would have). The league looks again once
    its games are played, warns of each folder not as its build left it, even with -q,
    and stores the new digest, so that the next run does not warn again."""
    from arena.store import Store

    four_bots(tmp_path)
    path = league_file(tmp_path, concurrency=1)
    real = Store.record_game
    recorded: list[str] = []

    def record(self: Store, result: object, **kwargs: object) -> None:
        real(self, result, **kwargs)  # type: ignore[arg-type]
        recorded.append("")
        if len(recorded) == 2:  # the organiser edits dan's bot
            bot = tmp_path / "bots" / "dan" / "bot.py"
            bot.write_text(bot.read_text() + "\n# a new version\n")

    monkeypatch.setattr(Store, "record_game", record)
    code, _, err = run_cli("league", str(path), "-q")
    assert code == 0, err
    assert err.startswith("warning: the submission of dan changed while the league played it")
    assert len(err.splitlines()) == 1
    assert len(results(tmp_path / "league.sqlite")) == 12
    monkeypatch.setattr(Store, "record_game", real)
    assert run_cli("league", str(path), "-q")[:3:2] == (0, "")


@pytest.mark.parametrize("quiet", [["-q"], ["--progress", "quiet"]])
def test_a_changed_submission_is_reported_even_when_progress_is_quiet(
    tmp_path: Path, quiet: list[str]
) -> None:
    """Found in an audit: with -q the warning that a submission changed was not shown,
    and the run stored the new digest, so no later run warned either: the new program's
    games were counted with the old one's without a word."""
    four_bots(tmp_path)
    path = league_file(tmp_path)
    assert run_cli("league", str(path), "-q")[0] == 0
    _forget_last_games(tmp_path / "league.sqlite", 2)  # games left for the new version
    bot = tmp_path / "bots" / "ann" / "bot.py"
    bot.write_text(bot.read_text() + "\n# a new version\n")
    code, _, err = run_cli("league", str(path), *quiet)
    assert code == 0, err
    assert err.startswith("warning: the submission of ann changed")
    assert "count in its standings with the new version's" in err
    assert len(err.splitlines()) == 1


def test_the_standings_say_which_rows_pool_versions_of_a_submission(tmp_path: Path) -> None:
    """Found in an audit: a submission that changed between runs was warned of once;
    after that nothing said that its row pooled two programs (a league run in CI, its
    log lost). The store counts its versions and the standings' notes and JSON name it,
    the league's own table too; a finished league plays no new version, so counts none."""
    four_bots(tmp_path)
    path = league_file(tmp_path)
    store = tmp_path / "league.sqlite"
    assert run_cli("league", str(path), "-q")[0] == 0
    _forget_last_games(store, 2)  # games left for the new version
    bot = tmp_path / "bots" / "ann" / "bot.py"
    bot.write_text(bot.read_text() + "\n# a new version\n")
    code, out, err = run_cli("league", str(path), "-q")
    assert code == 0, err
    assert "Versions: the games of ann (2) were played by that many versions" in out
    bot.write_text(bot.read_text() + "\n# a third, after the league is finished\n")
    assert run_cli("league", str(path), "-q")[0] == 0
    code, out, _ = run_cli("standings", str(store))
    assert code == 0
    assert "Versions: the games of ann (2) were played" in out
    code, out, _ = run_cli("standings", str(store), "--format", "json")
    assert json.loads(out)["versions"] == {"ann": 2}


def test_a_refused_resume_stores_nothing(tmp_path: Path) -> None:
    """Found in an audit: a resume refused for its settings had already stored the bots'
    new digests (and a new bot), so the next, right resume no longer warned that a
    submission had changed since its games were played."""
    four_bots(tmp_path)
    path = league_file(tmp_path)
    store = tmp_path / "league.sqlite"
    assert run_cli("league", str(path), "-q")[0] == 0
    with sqlite3.connect(store) as db:
        before = db.execute("SELECT * FROM bots ORDER BY name").fetchall()
    bot = tmp_path / "bots" / "ann" / "bot.py"
    bot.write_text(bot.read_text() + "\n# a new version\n")
    make_bot(tmp_path, "eve")
    code, _, err = run_cli("league", str(path), "--games-per-table", "6")
    assert code == 2
    assert "other settings" in err
    with sqlite3.connect(store) as db:
        assert db.execute("SELECT * FROM bots ORDER BY name").fetchall() == before
    shutil.rmtree(tmp_path / "bots" / "eve")
    code, _, err = run_cli("league", str(path))
    assert code == 0, err
    assert "warning: the submission of ann changed" in err


def test_a_later_submission_that_claims_a_taken_name_is_left_out(tmp_path: Path) -> None:
    """Found in an audit: of two folders that claim one name, the one that sorted first
    played under it, so a stranger's "aaa-" folder took a rival's place (and its games
    went to the rival's record on resume). Then a clash stopped the whole league
    (issue 40.7). Now the submission whose bot.toml came later is left out, named with
    the folder that keeps the name, and the league plays on; on a resume the stored
    bot keeps its name whatever came when."""
    four_bots(tmp_path)
    impostor = make_bot(tmp_path, "aaa-impostor", "unhurried")  # not a copy of bob
    (impostor / "bot.toml").write_text(
        (impostor / "bot.toml").read_text().replace('name = "aaa-impostor"', 'name = "bob"')
    )
    code, _, err = run_cli("league", str(league_file(tmp_path)))
    assert code == 0, err
    bob = tmp_path / "bots" / "bob"
    assert f"{impostor}: its bot.toml claims the name 'bob', which {bob} has" in err
    assert "Traceback" not in err
    assert len(results(tmp_path / "league.sqlite")) == 12  # the four bots' league
    # The real bob's bot.toml touched (its inode changes later than the impostor's):
    # the stored bot still keeps the name.
    (bob / "bot.toml").write_text((bob / "bot.toml").read_text())
    code, _, err = run_cli("league", str(league_file(tmp_path)))
    assert code == 0, err
    assert f"{impostor}: its bot.toml claims the name 'bob', which {bob} has (the stored" in err


def test_a_stored_bot_edited_while_a_stranger_claims_its_name_does_not_lose_it(
    tmp_path: Path,
) -> None:
    """Found in an audit: on a resume, of two folders that claim a stored bot's name and
    neither of which is the stored submission (its author edited bot.toml, which makes
    it the later one), the stranger's, whose bot.toml "came first", took the name and
    played on under it: its games counted with the stored bot's. Neither can be told to
    be the stored bot, so neither plays, and the resume is refused naming both."""
    four_bots(tmp_path)
    impostor = make_bot(tmp_path, "aaa-impostor", "unhurried")  # not a copy of bob
    (impostor / "bot.toml").write_text(
        (impostor / "bot.toml").read_text().replace('name = "aaa-impostor"', 'name = "bob"')
    )
    path = league_file(tmp_path, concurrency=1)
    store = tmp_path / "league.sqlite"
    assert run_cli("league", str(path), "-q")[0] == 0
    _forget_last_games(store, 2)
    bob = tmp_path / "bots" / "bob"
    (bob / "bot.toml").write_text((bob / "bot.toml").read_text() + "# its author's fix\n")
    code, _, err = run_cli("league", str(path))
    assert code == 2, err
    assert f"left out: {impostor}: its bot.toml claims the name 'bob'" in err
    assert f"left out: {bob}: its bot.toml claims the name 'bob'" in err
    assert "none of them is the stored bot of that name" in err
    assert "bob is not playable now" in err
    assert len(results(store)) == 10  # nothing played
    shutil.rmtree(impostor)  # the organiser sorts it out: the edited bob plays on
    code, _, err = run_cli("league", str(path), "-q")
    assert code == 0, err
    assert err.startswith("warning: the submission of bob changed")
    assert len(results(store)) == 12


@pytest.mark.parametrize("found", [0, 3])
def test_too_few_submissions_are_refused_before_a_store_is_made(tmp_path: Path, found: int) -> None:
    """A league pointed at an empty or mistyped folder said "0 playable bot(s) for
    tables of 4: not enough" and left an empty store behind. It names the folder and
    what it found, says what it left out, and makes no store."""
    bots = tmp_path / "subs"
    bots.mkdir()
    for name in ("ann", "bob", "cat")[:found]:
        make_bot(bots, name)
    (bots / "broken").mkdir()
    (bots / "broken" / "bot.toml").write_text("name = [\n")
    store = tmp_path / "s.sqlite"
    code, _, err = run_cli("league", "--bots", str(bots), "--store", str(store))
    assert code == 2, err
    assert f"{bots}: {found} bot submission(s) (folders with bot.toml)" in err
    assert "tables of 4 need 4" in err
    assert ("--table-size 3 makes tables they fill" if found else "a league needs 2 bots") in err
    assert f"left out: {bots / 'broken' / 'bot.toml'}: not valid TOML" in err
    assert "Traceback" not in err
    assert not store.exists()


@pytest.mark.parametrize("what", ["store", "log_dir", "league file"])
def test_a_store_logs_or_league_file_in_a_bots_folder_are_refused(
    tmp_path: Path, what: str
) -> None:
    """Found in an audit: a store put in a bot's folder (so in its sandbox) let that bot
    read the secret seed, and so every deal. The same goes for the logs (the other
    bots' stderr) and a league file that holds the seed."""
    four_bots(tmp_path)
    inside = tmp_path / "bots" / "cat"
    if what == "league file":
        path = league_file(tmp_path)
        moved = inside / "league.toml"
        text = path.read_text().replace('"bots"', json.dumps(str(tmp_path / "bots")))
        moved.write_text(text.replace('"league.sqlite"', json.dumps(str(tmp_path / "l.sqlite"))))
        path = moved
    elif what == "store":
        path = league_file(tmp_path, store=str(inside / "league.sqlite"))
    else:
        path = league_file(tmp_path, log_dir=str(inside / "logs"))
    code, _, err = run_cli("league", str(path))
    assert code == 2, err
    assert "in the folder of the bot cat" in err
    assert "which the bot can read" in err
    assert sorted(p.name for p in inside.iterdir()) == ["bot.py", "bot.toml"] + (
        ["league.toml"] if what == "league file" else []
    )  # nothing made there


@pytest.mark.parametrize(
    "command",
    [
        ["match", "{ann}", "{bob}", "-n", "1", "--replays", "{bob}/replays"],
        ["match", "{ann}", "{bob}", "-n", "1", "--log-dir", "{ann}/logs"],
        ["sprt", "{ann}", "{bob}", "--max-games", "2", "--store", "{bob}/sprt.sqlite"],
        ["sprt", "{ann}", "{bob}", "--store", "{root}/s.sqlite", "--log-dir", "{bob}/l"],
    ],
    ids=["match-replays", "match-logs", "sprt-store", "sprt-logs"],
)
def test_match_and_sprt_refuse_their_files_in_a_bots_folder(
    tmp_path: Path, command: list[str]
) -> None:
    """Found in a review: the refusal covered only leagues. A match's replays hold
    every finished game's seed and deal, an SPRT store the test's secret seed, the
    logs the other bots' stderr: in a bot's folder, that bot could read them."""
    four_bots(tmp_path)
    names = {"ann": tmp_path / "bots" / "ann", "bob": tmp_path / "bots" / "bob"}
    args = [a.format(root=tmp_path, **names) for a in command]
    before = {n: sorted(p.name for p in f.iterdir()) for n, f in names.items()}
    code, _, err = run_cli(*args, "--sandbox", "none")
    assert code == 2, err
    assert "which the bot can read" in err
    assert {n: sorted(p.name for p in f.iterdir()) for n, f in names.items()} == before


def _start(path: Path, *extra: str) -> subprocess.Popen[bytes]:
    """The league in a session of its own, as a terminal's job is (`_stop` signals it)."""
    return subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "league", str(path), "--progress", "quiet", *extra],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip


def _stop(proc: subprocess.Popen[bytes], stop: signal.Signals) -> None:
    """Send `stop` as it comes: Ctrl-C and a hang-up from the terminal, to the whole
    job (the league's worker processes too); SIGTERM to the league's process."""
    if stop == signal.SIGTERM:
        proc.send_signal(stop)
    else:
        os.killpg(proc.pid, stop)


def _wait_for_games(store: Path, count: int, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if store.exists():
            try:
                with sqlite3.connect(store) as db:
                    (done,) = db.execute("SELECT count(*) FROM games").fetchone()
                if done >= count:
                    return
            except sqlite3.OperationalError:
                pass
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else b""
        time.sleep(0.05)
    raise AssertionError("the league did not get going")


def test_sigkill_mid_league_then_resume_equals_an_uninterrupted_run(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    for root in (one, two):
        four_bots(root)
        random_bot(root, "eve")
    path = league_file(one, games_per_table=6)  # 10 tables x 6 = 60 games
    proc = _start(path)
    _wait_for_games(one / "league.sqlite", 8, proc)
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    partial = results(one / "league.sqlite")
    assert 8 <= len(partial) < 60
    assert all(len(seats) == 3 for seats in partial.values())  # no half-recorded game
    code, _, err = run_cli("league", str(path))
    assert code == 0, err
    assert f"resuming: {len(partial)} of 60 games already played" in err
    resumed = results(one / "league.sqlite")
    assert {k: resumed[k] for k in partial} == partial  # nothing re-counted
    code, _, err = run_cli("league", str(league_file(two, games_per_table=6)), "-j", "1")
    assert code == 0, err
    assert resumed == results(two / "league.sqlite")


def test_a_new_store_beside_the_log_of_a_removed_one_is_refused(tmp_path: Path) -> None:
    """A league killed leaves its store's write-ahead log (store.sqlite-wal); an organiser
    who then removes store.sqlite to start afresh leaves the log. SQLite takes a log by
    its name: a new store made there was read with the old log applied to it, so the
    "new" league held the killed one's games (or was damaged, had the old store grown
    further). It is refused, naming the file to move, and nothing is made or removed."""
    four_bots(tmp_path)
    path = league_file(tmp_path, games_per_table=30, table_size=3)
    store = tmp_path / "league.sqlite"
    wal = tmp_path / "league.sqlite-wal"
    proc = _start(path, "--sandbox", "none")
    _wait_for_games(store, 2, proc)
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    assert wal.exists()
    store.unlink()
    log = wal.read_bytes()
    code, _, err = run_cli("league", str(path), "--progress", "quiet", "--sandbox", "none")
    assert code == 2, err
    assert "league.sqlite-wal is left beside it" in err
    assert len(err.strip().splitlines()) == 1
    assert not store.exists()
    assert wal.read_bytes() == log
    wal.unlink()
    code, _, err = run_cli("league", str(path), "--progress", "quiet", "--sandbox", "none")
    assert code == 0, err
    assert len(results(store)) == 4 * 30


def test_a_new_store_beside_the_empty_log_a_reader_left_is_made(tmp_path: Path) -> None:
    """`arena standings` (any reader) leaves an empty store.sqlite-wal beside a finished
    store: a read-only connection makes it and cannot remove it. An organiser who then
    removed the store to start again was refused as for a killed league's log, which an
    empty one is not: it holds nothing SQLite could apply. It is removed."""
    four_bots(tmp_path)
    path = league_file(tmp_path, games_per_table=3, table_size=4, duplicate=False)
    store = tmp_path / "league.sqlite"
    wal = tmp_path / "league.sqlite-wal"
    code, _, err = run_cli("league", str(path), "--progress", "quiet", "--sandbox", "none")
    assert code == 0, err
    assert not wal.exists()
    code, _, err = run_cli("standings", str(store))
    assert code == 0, err
    assert wal.exists()
    assert wal.stat().st_size == 0
    store.unlink()
    code, _, err = run_cli("league", str(path), "--progress", "quiet", "--sandbox", "none")
    assert code == 0, err
    assert len(results(store)) == 3


def running_with(text: str) -> list[int]:
    """Processes whose command line mentions `text` (zombies excluded)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if text.encode() in cmdline and alive(int(entry.name)):
                found.append(int(entry.name))
    return found


@pytest.mark.parametrize(
    ("sandbox", "stop", "code", "concurrency"),
    [
        ("none", signal.SIGINT, 130, 2),
        ("default", signal.SIGINT, 130, 2),
        ("none", signal.SIGTERM, 143, 2),  # issue 10.8: SIGTERM stops as promptly as Ctrl-C
        ("none", signal.SIGINT, 130, 4),  # issue 14.2: workers with two games at once
        ("none", signal.SIGHUP, 129, 2),
        ("default", signal.SIGHUP, 129, 2),
    ],
)
def test_ctrl_c_stops_cleanly_kills_bots_and_loses_nothing(
    tmp_path: Path, sandbox: str, stop: signal.Signals, code: int, concurrency: int
) -> None:
    """Also a hang-up (the terminal closing, an ssh session dropping): it killed arena
    and its workers at once, leaving unsandboxed bots running and, in the sandbox, the
    bots' memory groups behind."""
    for name in ("ann", "bob", "cat"):  # a game takes a second or two: time to stop it
        make_bot(tmp_path, name, "unhurried")
    path = league_file(tmp_path, games_per_table=30, table_size=3)
    # Unconfined, the bots can leave their pids; in the sandbox they cannot.
    args = ("-j", str(concurrency)) if concurrency != 2 else ()
    proc = _start(path, "--sandbox", "none", *args) if sandbox == "none" else _start(path)
    _wait_for_games(tmp_path / "league.sqlite", 1, proc)
    _stop(proc, stop)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == code, err
    assert b"Traceback" not in err
    assert b"run the same command to resume" in err
    if sandbox == "none":
        assert len(pids(tmp_path / "pids")) >= 3
    assert [p for p in pids(tmp_path / "pids") if alive(p)] == []
    assert running_with(str(tmp_path)) == []
    stored = results(tmp_path / "league.sqlite")
    assert all(len(seats) == 3 for seats in stored.values())
    assert 1 <= len(stored) < 30


@pytest.mark.parametrize("removed", ["league.sqlite", "league.sqlite-wal"])
def test_a_store_removed_before_the_league_is_stopped_has_its_games_saved(
    tmp_path: Path, removed: str
) -> None:
    """The store (or its write-ahead log) removed after a game, then Ctrl-C before the
    next game is stored: the league said "1 games are stored in league.sqlite; run the
    same command to resume", of a file that was gone with its games (or, its log gone,
    lacked them). Its games are saved on the way out, and the last words say where."""
    for name in ("ann", "bob", "cat"):
        make_bot(tmp_path, name, "hangs_after_first_game")
    path = league_file(tmp_path, concurrency=1)
    # A clock no bot reaches: the league holds still with one game stored.
    path.write_text(path.read_text().replace("decision_ms = 2000", "decision_ms = 600000"))
    store = tmp_path / "league.sqlite"
    proc = _start(path, "--sandbox", "none")
    _wait_for_games(store, 1, proc)
    (tmp_path / removed).unlink()
    _stop(proc, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    rescue = tmp_path / f"league.sqlite.rescued-{proc.pid}"
    what = "the store" if removed == "league.sqlite" else "its write-ahead log league.sqlite-wal"
    assert err.decode().splitlines()[-1] == (
        f"interrupted: {store}: {what} was removed while this league wrote it; its 1 game"
        f" is saved in {rescue}: move that to {store} to resume"
    )
    rescue.replace(store)
    assert len(results(store)) == 1
    code, _, err = run_cli("standings", str(store))
    assert code == 0, err


@pytest.mark.parametrize("opened", ["outside", "inside"])
def test_a_run_stopped_as_it_saves_the_games_of_its_removed_log_says_where(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], opened: str
) -> None:
    """The check after a game found the store's write-ahead log removed, saved the games
    elsewhere, closed the store and raised, while Ctrl-C stopped the run: the stop won.
    A league (its store opened outside the run) asked the closed store how many games
    it held and ended with "cannot read the games: the store is closed" (exit 2); `arena
    ladder settle` (its store opened inside) said the games were "kept in" the removed
    store (a clean-clone run under load, at the next test's Ctrl-C). Either ends as a
    stop, saying where they are."""
    import trio

    from arena.commands._stopping import run_stoppable

    path = tmp_path / "league.sqlite"

    async def checked_as_stopped(store: Store) -> None:
        (tmp_path / "league.sqlite-wal").unlink()
        signal.raise_signal(signal.SIGINT)
        try:
            await trio.sleep_forever()
        except trio.Cancelled:  # the stop is taken: meanwhile, the check after a game
            store.check_in_place()
            raise

    async def opened_inside() -> None:
        with Store.open(path) as store:
            await checked_as_stopped(store)

    if opened == "inside":
        with pytest.raises(SystemExit) as stopped:
            run_stoppable(opened_inside, lambda: f": the games played are kept in {path}")
    else:
        with Store.open(path) as store, pytest.raises(SystemExit) as stopped:
            run_stoppable(
                lambda: checked_as_stopped(store),
                lambda: f": {len(store.done_game_ids())} games are stored",
                moved=store.moved,
            )
    assert stopped.value.code == 130
    rescue = tmp_path / f"league.sqlite.rescued-{os.getpid()}"
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"interrupted: {path}: its write-ahead log league.sqlite-wal was removed while this"
        f" league wrote it; its 0 games are saved in {rescue}: move that to {path} to resume"
    )
    assert rescue.exists()


def test_a_store_removed_before_the_league_fails_has_its_games_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same, ended by an error (a worker process died): the error is said, then
    where the games are."""
    import arena.league
    from arena.runners import WorkerLost

    league = arena.league.run_league

    async def removed_then_failing(config: Any, store: Store, *args: Any) -> Any:
        await league(config, store, *args)
        config.store.unlink()
        raise WorkerLost("a worker process died while playing g000012")

    monkeypatch.setattr(arena.league, "run_league", removed_then_failing)
    four_bots(tmp_path)
    code, _, err = run_cli("league", str(league_file(tmp_path)), "-q", "--sandbox", "none")
    assert code == 2, err
    store = tmp_path / "league.sqlite"
    rescue = tmp_path / f"league.sqlite.rescued-{os.getpid()}"
    assert err.splitlines()[-2:] == [
        "arena: error: a worker process died while playing g000012",
        f"arena: {store}: the store was removed while this league wrote it; its 12 games are"
        f" saved in {rescue}: move that to {store} to resume",
    ]
    assert len(results(rescue)) == 12


@pytest.mark.parametrize("sandbox", [pytest.param("bwrap", marks=needs_bwrap), "none"])
@pytest.mark.parametrize(("stop", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_league_stopped_during_a_build_kills_it_and_stops_at_once(
    tmp_path: Path, sandbox: str, stop: signal.Signals, code: int
) -> None:
    """SIGTERM (and a hang-up) waited for a bot's build to end, up to its timeout (10
    minutes by default), and Ctrl-C left an unsandboxed build running after arena had
    gone. Either now kills the build and stops the league at once; a sandboxed build's
    folder is given back to its owner."""
    token = f"arena-build-{os.getpid()}-{stop.value}-{sandbox}"
    for name in ("ann", "bob"):
        make_bot(tmp_path, name)
    # A process that leaves the build's group holds its output open: the stop went on
    # waiting for it (without the sandbox, whose PID namespace ends it with the build).
    left = f"arena-left-{os.getpid()}-{stop.value}-{sandbox}"
    slow = make_bot(
        tmp_path,
        "slow",
        build=f'sh -c \'touch started; setsid sh -c \\"sleep 30; : {left}\\" &'
        f" sleep 60; : {token}'",
    )
    for name in ("x1", "x2"):  # after the stop, these are neither built nor left out
        make_bot(tmp_path, name, build="true")
    os.chmod(tmp_path, 0o755)
    owner = slow.stat().st_uid
    path = league_file(tmp_path, table_size=2)
    proc = _start(path, "--sandbox", sandbox)
    deadline = time.monotonic() + 30
    while not (slow / "started").exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.05)
    started = time.monotonic()
    _stop(proc, stop)
    try:
        _, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:  # fail here, leaving no process to a later test
        proc.kill()
        proc.communicate()
        pytest.fail(f"the league did not stop within 30 s of {stop.name}")
    assert proc.returncode == code, err
    assert time.monotonic() - started < 10
    assert b"Traceback" not in err
    assert b"building x1" not in err
    assert b"left out" not in err
    assert gone_sync(token)
    assert {p.stat().st_uid for p in [slow, *slow.rglob("*")]} == {owner}
    subprocess.run(["pkill", "-f", left], check=False)


def test_a_league_whose_output_is_closed_stops_cleanly_and_resumes(tmp_path: Path) -> None:
    """`arena league --progress jsonl | head -3`: once head had gone, the next event
    raised a BrokenPipeError traceback out of the league. Now it stops as on a signal:
    every bot killed, the games stored kept, exit 141 (as for SIGPIPE); it resumes."""
    for name in ("ann", "bob", "cat"):
        make_bot(tmp_path, name, "unhurried")
    path = league_file(tmp_path, games_per_table=9, table_size=3)
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "league", str(path), "--progress", "jsonl",
         "--sandbox", "none"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert proc.stdout is not None
    events = [json.loads(proc.stdout.readline()) for _ in range(3)]
    assert [e["event"] for e in events] == ["start", "game", "game"]
    proc.stdout.close()
    err = proc.communicate(timeout=30)[1].decode()
    assert proc.returncode == 141, err
    stored = results(tmp_path / "league.sqlite")
    assert err == (
        f"\noutput closed: {len(stored)} games are stored in {tmp_path / 'league.sqlite'};"
        " run the same command to resume\n"
    )
    assert {e["game_id"] for e in events[1:]} <= set(stored)
    assert [p for p in pids(tmp_path / "pids") if alive(p)] == []
    assert run_cli("league", str(path), "-q", "--sandbox", "none")[0] == 0
    assert len(results(tmp_path / "league.sqlite")) == 9


def test_standings_reads_the_store_in_any_format(tmp_path: Path) -> None:
    four_bots(tmp_path)
    assert run_cli("league", str(league_file(tmp_path)), "-q")[0] == 0
    store = str(tmp_path / "league.sqlite")
    code, out, err = run_cli("standings", store)
    assert code == 0, err
    assert out.splitlines()[0].split()[:4] == ["rank", "bot", "Elo", "±"]
    code, out, _ = run_cli("standings", store, "--format", "csv")
    assert code == 0
    assert out.splitlines()[0].startswith("rank,bot,elo")
    assert len(out.splitlines()) == 5
    code, out, _ = run_cli("standings", store, "--format", "json")
    assert code == 0
    assert {row["bot"] for row in json.loads(out)["rows"]} == {"ann", "bob", "cat", "dan"}
    code, out, _ = run_cli("standings", store, "--matrix")
    assert code == 0
    assert "ann" in out.splitlines()[0] or "ann" in out


def test_standings_of_a_missing_or_foreign_file_fails_cleanly(tmp_path: Path) -> None:
    code, _, err = run_cli("standings", str(tmp_path / "nope.sqlite"))
    assert code == 2
    assert "no such league store" in err
    bad = tmp_path / "bad.sqlite"
    bad.write_text("hello" * 1000)
    code, _, err = run_cli("standings", str(bad))
    assert code == 2
    assert "not an arena league store" in err
    empty = tmp_path / "empty.sqlite"  # it said "an SQLite file, but not an arena store"
    empty.write_bytes(b"")
    for command in ("standings", "report"):
        out = ["-o", str(tmp_path / "site")] if command == "report" else []
        code, _, err = run_cli(command, str(empty), *out)
        assert code == 2
        assert f"{empty} is an empty file, not an arena league store" in err, err
    assert empty.read_bytes() == b""


@needs_bwrap
def test_a_finished_store_on_a_read_only_file_system_is_read(tmp_path: Path) -> None:
    """A league's store handed on where nobody may write (a read-only mount, another
    user's folder): SQLite cannot make the write-ahead log's side files there, yet
    standings, replay and report read it, and write nothing beside it."""
    four_bots(tmp_path)
    assert run_cli("league", str(league_file(tmp_path)), "-q")[0] == 0
    shelf = tmp_path / "shelf"
    shelf.mkdir()
    shutil.copy(tmp_path / "league.sqlite", shelf / "league.sqlite")
    store = str(shelf / "league.sqlite")
    expected = run_cli("standings", str(tmp_path / "league.sqlite"))[1]
    for command in (
        ["standings", store],
        ["replay", store, "g000000"],
        ["report", store, "-o", str(tmp_path / "site")],
    ):
        done = arena_on_read_only(shelf, *command)
        assert done.returncode == 0, done.stderr
        if command[0] == "standings":
            assert done.stdout == expected
    assert (tmp_path / "site" / "index.html").is_file()
    assert os.listdir(shelf) == ["league.sqlite"]
    # A league, which writes, is told why it cannot (SQLite: "unable to open database
    # file", which an audit found was all it said).
    config = league_file(tmp_path, store=store)
    done = arena_on_read_only(shelf, "league", config, "-q")
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(cannot_write_store(Path(store))), done.stderr
    assert os.listdir(shelf) == ["league.sqlite"]


def test_an_empty_store_path_is_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--store ''` (the folder .): a league and an SPRT made their default log folder
    beside it first, and Path('.').with_name raised a ValueError traceback."""
    four_bots(tmp_path)
    monkeypatch.chdir(tmp_path)
    bots = ("bots/ann", "bots/bob")
    for command in (["league", "--bots", "bots"], ["sprt", *bots, "--trusted"]):
        code, out, err = run_cli(*command, "--store", "", "--sandbox", "none", "-q")
        assert (code, out) == (2, ""), err
        assert err == "arena: error: . is a folder, not a store: give the store's file\n"
    assert os.listdir(tmp_path) == ["bots"]  # nothing made


def test_resuming_with_other_settings_is_refused(tmp_path: Path) -> None:
    four_bots(tmp_path)
    path = league_file(tmp_path)
    assert run_cli("league", str(path), "-q")[0] == 0
    code, _, err = run_cli("league", str(path), "--seed", "99")
    assert code == 2
    assert "holds a league with other settings (seed)" in err
    assert len(results(tmp_path / "league.sqlite")) == 12  # untouched


def test_resuming_with_another_maximum_of_tables_is_refused(tmp_path: Path) -> None:
    """The maximum of tables decides the schedule (1 of the 4 tables here, 3 with
    --max-tables 3): a resume with another one would play another schedule's games
    beside the stored ones, under the same game ids."""
    four_bots(tmp_path)
    path = league_file(tmp_path, max_tables=1)
    assert run_cli("league", str(path), "-q")[0] == 0
    before = results(tmp_path / "league.sqlite")
    assert len(before) == 3
    code, _, err = run_cli("league", str(path), "--max-tables", "3")
    assert code == 2
    assert "holds a league with other settings (max_tables)" in err
    assert results(tmp_path / "league.sqlite") == before  # untouched


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (("--target", "5"), "the single format has no target (an option of the points format"),
        (("--format", "tokens", "--ending", "lowest"), "the tokens format has no ending"),
        (("--format", "points", "--tokens", "2"), "the points format has no tokens (an option"),
    ],
)
def test_a_rule_option_of_another_format_is_refused(
    tmp_path: Path, options: tuple[str, ...], said: str
) -> None:
    """An option of another format (R9.2, R9.3) was taken, ignored by the rules and
    stored: a resume without it was then refused as "other settings (game)". It is
    refused as ono_on_tens outside the 1980 edition is."""
    four_bots(tmp_path)
    code, _, err = run_cli("league", str(league_file(tmp_path)), "-q", *options)
    assert code == 2
    assert err.startswith(f"arena: error: {said}"), err
    assert not (tmp_path / "league.sqlite").exists()


def test_a_store_that_kept_an_option_of_another_format_resumes(tmp_path: Path) -> None:
    """arena once took `--tokens 5` with the single format and stored it in the
    league's settings; refusing that option now must not strand such a store: its
    rules in play are the same as a resume's without the option."""
    four_bots(tmp_path)
    path = league_file(tmp_path)
    store = tmp_path / "league.sqlite"
    assert run_cli("league", str(path), "-q", "--sandbox", "none")[0] == 0
    stored = results(store)
    with Store.open(store) as opened:
        settings = opened.get_setting("league")
        assert settings is not None
        settings["game"] |= {"tokens": 5, "target": 7}
        opened.set_meta("league", settings)
    _forget_last_games(store, 2)
    code, _, err = run_cli("league", str(path), "-q", "--sandbox", "none")
    assert code == 0, err
    assert results(store).keys() == stored.keys()
    code, _, err = run_cli("league", str(path), "-q", "--sandbox", "none", "--format", "tokens")
    assert code == 2
    assert "(game: format 'single' in the store, 'tokens' now)" in err


def test_a_resume_with_other_rules_names_them(tmp_path: Path) -> None:
    """It said only "other settings (game)"; and resuming a single-format league in the
    points format spoke of "earlier rules of the points format", which it never had."""
    four_bots(tmp_path)
    path = league_file(tmp_path)
    assert run_cli("league", str(path), "-q", "--format", "points", "--target", "5")[0] == 0
    code, _, err = run_cli("league", str(path), "-q", "--format", "points")
    assert code == 2
    assert "other settings (game: target 5 in the store, 100 now)" in err
    single = league_file(tmp_path, store="single.sqlite")
    assert run_cli("league", str(single), "-q")[0] == 0
    code, _, err = run_cli("league", str(single), "-q", "--format", "points")
    assert code == 2
    assert "other settings (game: format 'single' in the store, 'points' now)" in err
    assert "points_rules" not in err


def test_a_resume_with_other_clocks_or_sandbox_says_so(tmp_path: Path) -> None:
    """Found in an audit: a resume with other clocks (or another sandbox) played on
    without a word and overwrote the stored settings, so the report showed the new
    clocks for games played under the old. They may change (a slower machine), with a
    warning that names what changed, even with -q."""
    four_bots(tmp_path)
    path = league_file(tmp_path, concurrency=1)
    store = tmp_path / "league.sqlite"
    assert run_cli("league", str(path), "-q", "--sandbox", "none")[0] == 0
    with contextlib.closing(sqlite3.connect(store)) as db, db:
        last = [r[0] for r in db.execute("SELECT game_id FROM games ORDER BY idx DESC LIMIT 2")]
        for table in ("replays", "seats", "games"):
            db.executemany(f"DELETE FROM {table} WHERE game_id = ?", [(i,) for i in last])
    code, _, err = run_cli("league", str(path), "-q", "--sandbox", "none", "--decision-ms", "1500")
    assert code == 0, err
    assert err.startswith("warning: the games stored so far were played with other settings")
    assert "decision_ms 2000 -> 1500" in err
    assert len(err.splitlines()) == 1
    assert len(results(store)) == 12


def _forget_last_games(store: Path, n: int) -> None:
    """Remove the last `n` games of the schedule from `store`, as a league stopped
    before them leaves it."""
    with contextlib.closing(sqlite3.connect(store)) as db, db:
        last = [
            r[0] for r in db.execute("SELECT game_id FROM games ORDER BY idx DESC LIMIT ?", (n,))
        ]
        for table in ("replays", "seats", "games"):
            db.executemany(f"DELETE FROM {table} WHERE game_id = ?", [(i,) for i in last])


def test_a_resume_with_another_fault_limit_says_a_disqualified_bot_stays_so(
    tmp_path: Path,
) -> None:
    """Found in an audit: a resume that raised the fault limit (or set 0, never) said
    "fault_limit 2 -> 0" but not that a bot disqualified under the old one stays
    disqualified, its games forfeits."""
    four_bots(tmp_path)
    make_bot(tmp_path, "crasher", "crash_at_start")
    path = league_file(tmp_path, fault_limit=2, concurrency=1)
    store = tmp_path / "league.sqlite"
    assert run_cli("league", str(path), "-q")[0] == 0
    _forget_last_games(store, 2)
    code, _, err = run_cli("league", str(path), "-q", "--fault-limit", "0")
    assert code == 0, err
    assert "(fault_limit 2 -> 0)" in err
    assert err.rstrip().endswith(
        "; crasher stays disqualified (the limit applies to faults to come)"
    ), err


@pytest.mark.parametrize(
    ("option", "change"),
    [
        (("--fault-limit", "1"), "fault_limit 3 -> 1"),
        (("--memory-mb", "900"), "memory_mb 4096 -> 900"),
        (("--cpu-seconds", "30"), "cpu_seconds 3600 -> 30"),
        (("--max-frame", "8192"), "max_frame 4096 -> 8192"),
        (("--fresh-process",), "fresh_process False -> True"),
    ],
)
def test_a_resume_with_other_limits_or_fault_limit_says_so(
    tmp_path: Path, option: tuple[str, ...], change: str
) -> None:
    """Found in an audit: a resume with another fault limit (which decides who is
    disqualified, and so who forfeits), other resource limits (which decide who
    crashes), another frame limit or --fresh-process played on without a word, the
    games of both settings counted together. Like other clocks, they are taken, with a
    warning that names each change, even with -q."""
    four_bots(tmp_path)
    path = league_file(tmp_path, concurrency=1)
    store = tmp_path / "league.sqlite"
    assert run_cli("league", str(path), "-q", "--sandbox", "none")[0] == 0
    _forget_last_games(store, 2)
    code, _, err = run_cli("league", str(path), "-q", "--sandbox", "none", *option)
    assert code == 0, err
    assert err.startswith("warning: the games stored so far were played with other settings")
    assert f"({change})" in err
    assert len(err.splitlines()) == 1
    assert len(results(store)) == 12
    _forget_last_games(store, 2)  # the same settings again: nothing to say
    code, _, err = run_cli("league", str(path), "-q", "--sandbox", "none", *option)
    assert (code, err) == (0, "")


def test_a_finished_league_run_again_keeps_the_settings_and_bots_its_games_were_played_with(
    tmp_path: Path,
) -> None:
    """Found in an audit: a finished league run again with other clocks (or limits, or
    sandbox) plays nothing, yet stored them as the league's settings without a word, so
    the report showed clocks no game was played under; and a submission edited since
    had its new digest stored as the bot's, the version none of its games were played
    by, with a warning that its games "count with the new version's" (there are none).
    A run that plays nothing stores neither, and says the league is finished."""
    four_bots(tmp_path)
    path = league_file(tmp_path, concurrency=1)
    store = tmp_path / "league.sqlite"
    assert run_cli("league", str(path), "-q", "--sandbox", "none")[0] == 0
    with contextlib.closing(sqlite3.connect(store)) as db:
        before = db.execute("SELECT key, value FROM meta ORDER BY key").fetchall()
        bots = db.execute("SELECT * FROM bots ORDER BY name").fetchall()
    bot = tmp_path / "bots" / "ann" / "bot.py"
    bot.write_text(bot.read_text() + "\n# a new version\n")
    code, _, err = run_cli("league", str(path), "-q", "--sandbox", "none", "--decision-ms", "500")
    assert code == 0, err
    assert err.startswith("warning: the submission of ann changed since its stored games")
    assert "the league is finished" in err
    assert "with the new version's" not in err
    assert len(err.splitlines()) == 1
    with contextlib.closing(sqlite3.connect(store)) as db:
        assert db.execute("SELECT key, value FROM meta ORDER BY key").fetchall() == before
        assert db.execute("SELECT * FROM bots ORDER BY name").fetchall() == bots
    assert run_cli("league", str(path), "-q", "--sandbox", "none")[2] == err  # said again
    bot.write_text(bot.read_text().removesuffix("\n# a new version\n"))
    assert run_cli("league", str(path), "-q", "--sandbox", "none")[:3:2] == (0, "")


def test_a_ladders_store_is_refused_for_a_league(tmp_path: Path) -> None:
    """Found in an audit: `arena league --store` given a ladder's store (a league store
    marked a ladder's) played a whole league into it: its games went into the ladder's
    standings, its bots among the ladder's active versions. It is refused, in one
    line, and nothing is written."""
    from arena.ladder._db import mark_ladder

    four_bots(tmp_path)
    store = tmp_path / "league.sqlite"
    with Store.open(store) as ladder:
        mark_ladder(ladder)
    with contextlib.closing(sqlite3.connect(store)) as db:
        before = db.execute("SELECT key, value FROM meta ORDER BY key").fetchall()
    code, _, err = run_cli("league", str(league_file(tmp_path)), "-q", "--sandbox", "none")
    assert code == 2, err
    assert err.startswith("arena: error: ")
    assert "a ladder's store" in err
    assert len(err.splitlines()) == 1
    with contextlib.closing(sqlite3.connect(store)) as db:
        assert db.execute("SELECT key, value FROM meta ORDER BY key").fetchall() == before
        assert db.execute("SELECT count(*) FROM bots").fetchone() == (0,)
    assert results(store) == {}


def test_a_store_of_an_older_arena_resumes_without_a_warning(tmp_path: Path) -> None:
    """A store whose settings hold only the clocks and the sandbox (as arena kept them
    before the limits) is not told that the limits it never recorded changed."""
    four_bots(tmp_path)
    path = league_file(tmp_path, concurrency=1)
    store = tmp_path / "league.sqlite"
    assert run_cli("league", str(path), "-q", "--sandbox", "none")[0] == 0
    _forget_last_games(store, 2)
    with contextlib.closing(sqlite3.connect(store)) as db, db:
        (text,) = db.execute("SELECT value FROM meta WHERE key = 'settings'").fetchone()
        settings = json.loads(text)
        old = {"clocks": settings["clocks"], "sandbox": settings["sandbox"]}
        db.execute("UPDATE meta SET value = ? WHERE key = 'settings'", (json.dumps(old),))
        without_proofs(db)  # as an older arena kept it
    code, _, err = run_cli("league", str(path), "-q", "--sandbox", "none")
    assert (code, err) == (0, "")
    assert len(results(store)) == 12


def test_a_points_league_played_under_the_earlier_points_rules_is_not_resumed(
    tmp_path: Path,
) -> None:
    """R4.2 [ruling]: busting on purpose is offered in the points format since points
    rules revision 2. A points league stored before it would go on under other legal
    actions than its games so far: it is refused, its games untouched, and a league
    of another format is not affected."""
    four_bots(tmp_path)
    path = league_file(tmp_path)
    path.write_text(path.read_text() + '[game]\nformat = "points"\ntarget = 30\n')
    store = tmp_path / "league.sqlite"
    assert run_cli("league", str(path), "-q")[0] == 0
    assert run_cli("league", str(path), "-q")[0] == 0  # the same rules: it resumes
    with sqlite3.connect(store) as db:
        (text,) = db.execute("SELECT value FROM meta WHERE key = 'league'").fetchone()
        stored = json.loads(text)
        assert stored["points_rules"] == 2
        del stored["points_rules"]  # as a store made before the revision holds it
        db.execute("UPDATE meta SET value = ? WHERE key = 'league'", (json.dumps(stored),))
    code, _, err = run_cli("league", str(path))
    assert code == 2
    assert "earlier rules of the points format, without busting on purpose" in err
    assert len(results(store)) == 12  # untouched
    single = tmp_path / "single"
    four_bots(single)
    assert run_cli("league", str(league_file(single)), "-q")[0] == 0
    with sqlite3.connect(single / "league.sqlite") as db:
        (text,) = db.execute("SELECT value FROM meta WHERE key = 'league'").fetchone()
    assert "points_rules" not in json.loads(text)


def test_a_resume_that_differs_in_duplicate_deals_says_which_flag_to_give(
    tmp_path: Path,
) -> None:
    """Duplicate deals used to be the default: a league stored with them, resumed
    without saying so, is told the flag that resumes it."""
    four_bots(tmp_path)
    path = league_file(tmp_path)
    assert run_cli("league", str(path), "-q")[0] == 0
    code, _, err = run_cli("league", str(path), "--no-duplicate")
    assert code == 2
    assert "(duplicate: the store's league has duplicate deals: give --duplicate)" in err
    assert run_cli("league", str(path), "--duplicate", "-q")[0] == 0
    assert len(results(tmp_path / "league.sqlite")) == 12  # untouched
    fresh = tmp_path / "fresh.sqlite"
    assert run_cli("league", str(path), "--no-duplicate", "--store", str(fresh), "-q")[0] == 0
    code, _, err = run_cli("league", str(path), "--duplicate", "--store", str(fresh))
    assert code == 2
    assert "(duplicate: the store's league deals every game afresh: give --no-duplicate)" in err


@pytest.mark.parametrize("command", ["league", "match", "sprt"])
def test_a_log_folder_that_cannot_be_made_is_refused_before_any_game(
    tmp_path: Path, command: str
) -> None:
    """A --log-dir arena cannot write (under a file here; a read-only or another user's
    folder alike) failed every bot's start, charged to the bot as a crash: a league
    stored crashes, disqualifications and forfeits for every bot. It is refused first."""
    four_bots(tmp_path)
    (tmp_path / "file").write_text("not a folder")
    logs = tmp_path / "file" / "logs"
    bots = [str(tmp_path / "bots" / name) for name in ("ann", "cat")]
    store = tmp_path / "league.sqlite"
    args = {
        "league": [str(league_file(tmp_path))],
        "match": ["match", *bots, "-n", "2"],
        "sprt": ["sprt", *bots, "--store", str(store), "--max-games", "4"],
    }[command]
    if command == "league":
        args = ["league", *args]
    code, out, err = run_cli(*args, "--sandbox", "none", "--log-dir", str(logs))
    assert code == 2, out + err
    assert f"log folder {logs}" in err, err
    assert not store.exists()


def test_a_resume_that_lost_a_bot_says_which(tmp_path: Path) -> None:
    """A bot whose bot.toml broke (or whose build now fails) is left out of a resume,
    so the league's bots differ from the stored ones: the refusal names the bot, as
    --progress quiet shows nothing of the "left out" message (it said only "other
    settings (bots)", as if the organiser had changed a setting)."""
    four_bots(tmp_path)
    random_bot(tmp_path, "eve")
    path = league_file(tmp_path)
    assert run_cli("league", str(path), "-q")[0] == 0
    stored = results(tmp_path / "league.sqlite")
    (tmp_path / "bots" / "cat" / "bot.toml").write_text("name = [\n")
    code, _, err = run_cli("league", str(path), "-q")
    assert code == 2
    assert "other settings (bots: cat is not playable now" in err, err
    assert results(tmp_path / "league.sqlite") == stored


@pytest.mark.parametrize(
    ("manifest", "message"),
    [
        # tomllib's int() refuses 4,300 digits with a ValueError, not a TOMLDecodeError
        (f'name = "eve"\nrun = "python3 bot.py"\nversion = {"9" * 5000}\n', "not valid TOML"),
        (f'name = "eve"\nrun = "python3 bot.py"\n# {"x" * 70_000}\n', "larger than 64 KiB"),
        (f'name = "{"e" * 60_000}"\nrun = "python3 bot.py"\n', "bot name 'eeee"),
        # `match` with `$` took a final newline: "ann\n" stood in the report as "ann".
        ('name = "ann\\n"\nrun = "python3 bot.py"\n', "bot name 'ann\\n' must be"),
    ],
)
def test_a_strangers_bot_toml_is_left_out_in_one_line(
    tmp_path: Path, manifest: str, message: str
) -> None:
    """A submission's bot.toml is anyone's: one that tomllib cannot turn into values,
    or that is huge, is left out with one short line, and the league plays without
    it (its int of 5,000 digits stopped every league with a traceback)."""
    four_bots(tmp_path)
    random_bot(tmp_path, "eve")
    (tmp_path / "bots" / "eve" / "bot.toml").write_text(manifest)
    code, out, err = run_cli("league", str(league_file(tmp_path)), "--sandbox", "none")
    assert code == 0, err
    left_out = [line for line in (out + err).splitlines() if line.startswith("left out")]
    assert len(left_out) == 1
    assert message in left_out[0]
    assert len(left_out[0]) < 400
    assert err.splitlines()[-2] == "warning: 1 submission(s) left out, not playing:"  # (44.4)
    assert len(err.splitlines()[-1]) < 400
    assert len(results(tmp_path / "league.sqlite")) == 4 * 3
    code, _, err = run_cli("check-bot", str(tmp_path / "bots" / "eve"))
    assert code != 0
    assert message in err
    assert len(err) < 400


OUT_OF_FOLDER = "a link out of its folder (a submission's files are its own)"


@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
def test_a_bot_toml_that_is_no_file_is_refused_in_one_line(tmp_path: Path, kind: str) -> None:
    """A stranger's bot folder whose bot.toml is a FIFO made arena match, check-bot
    and sprt wait forever on it before anything ran (one that is a link to /dev/zero
    was refused as larger than 64 KiB); now either is refused at once, naming the file."""
    four_bots(tmp_path)
    eve = tmp_path / "bots" / "eve"
    eve.mkdir()
    if kind == "fifo":
        os.mkfifo(eve / "bot.toml")
    elif kind == "folder":  # its message was "cannot read: [Errno 21] ...: 14" (a leaked fd)
        (eve / "bot.toml").mkdir()
    else:  # a link to a device, out of its folder
        (eve / "bot.toml").symlink_to("/dev/zero")
    why = (
        "a link out of its folder (a submission's files are its own)"
        if kind == "device"
        else "not a regular file"
    )
    ann = str(tmp_path / "bots" / "ann")
    for args in (
        ["match", str(eve), ann, "-n", "1"],
        ["check-bot", str(eve)],
        ["sprt", str(eve), ann, "--store", str(tmp_path / "sprt.sqlite")],
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "arena.cli", *args, "--sandbox", "none"],
            capture_output=True, text=True, timeout=30,
        )  # fmt: skip
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr == f"arena: error: {eve / 'bot.toml'}: {why}\n"
    # A league leaves it out, saying so (it was skipped without a word, as no bot).
    code, _, err = run_cli("league", str(league_file(tmp_path)), "--sandbox", "none")
    assert code == 0, err
    assert f"left out: {eve / 'bot.toml'}: {why}" in err


def test_a_bot_toml_linked_out_of_its_folder_is_not_read(tmp_path: Path) -> None:
    """Found in an audit: a submission's bot.toml that links out of its folder (to
    /etc/shadow, to a file of the organiser's) was read with arena's rights, and the
    keys of the file it reached named in the error. A link inside the folder holds."""
    four_bots(tmp_path)
    mine = tmp_path / "organiser.toml"
    mine.write_text('password = "hunter2"\n')
    eve = tmp_path / "bots" / "eve"
    eve.mkdir()
    (eve / "bot.toml").symlink_to(mine)
    code, _, err = run_cli("check-bot", str(eve), "--sandbox", "none")
    assert code == 2
    assert err == f"arena: error: {eve / 'bot.toml'}: {OUT_OF_FOLDER}\n"
    assert "password" not in err
    # A link to a file of its own folder is the submission's own.
    ann = tmp_path / "bots" / "ann"
    (ann / "real.toml").write_text((ann / "bot.toml").read_text())
    (ann / "bot.toml").unlink()
    (ann / "bot.toml").symlink_to("real.toml")
    code, _, err = run_cli(
        "match", str(ann), str(tmp_path / "bots" / "bob"), "-n", "1", "--sandbox", "none"
    )
    assert code == 0, err


def test_a_league_without_a_seed_draws_a_secret_and_resumes_with_it(tmp_path: Path) -> None:
    """Issue 10.1: no seed given, a 128-bit secret is drawn and stored; the same command
    resumes with it; another seed, or a store from before secret deals, is refused."""
    four_bots(tmp_path)
    path = league_file(tmp_path, seed=None, concurrency=1, games_per_table=3)
    text = path.read_text().replace("seed = null\n", "")
    path.write_text(text)
    store = tmp_path / "league.sqlite"
    args = ("league", str(path), "--progress", "quiet", "--sandbox", "none")
    assert run_cli(*args)[0] == 0
    with sqlite3.connect(store) as db:
        (meta,) = db.execute("SELECT value FROM meta WHERE key = 'league'").fetchone()
    secret = json.loads(meta)["seed"]
    assert len(secret) == 32
    first = results(store)
    other = tmp_path / "other.sqlite"  # another league draws another secret
    assert run_cli(*args, "--store", str(other))[0] == 0
    with sqlite3.connect(other) as db:
        (again,) = db.execute("SELECT value FROM meta WHERE key = 'league'").fetchone()
    assert len(json.loads(again)["seed"]) == 32
    assert json.loads(again)["seed"] != secret
    code, _, err = run_cli(*args)
    assert code == 0, err
    assert results(store) == first
    code, _, err = run_cli(*args, "--seed", "1")
    assert code != 0
    assert "other settings (seed)" in err
    code, _, err = run_cli(*args, "--seed", secret)  # the organiser may name it
    assert code == 0, err
    with sqlite3.connect(store) as db:
        old = json.loads(meta)
        del old["deals"]
        db.execute("UPDATE meta SET value = ? WHERE key = 'league'", (json.dumps(old),))
    code, _, err = run_cli(*args)
    assert code != 0
    assert "older arena whose deals a bot could predict" in err
    assert results(store) == first  # nothing lost
    with sqlite3.connect(store) as db:  # a newer arena's, say (found in an audit: "older")
        db.execute(
            "UPDATE meta SET value = ? WHERE key = 'league'",
            (json.dumps(old | {"deals": "another-kdf"}),),
        )
    code, _, err = run_cli(*args)
    assert code != 0
    assert "made by another arena, which deals its games another way ('another-kdf'" in err
    assert results(store) == first


def test_a_second_league_on_a_store_in_use_is_refused_and_the_first_goes_on(
    tmp_path: Path,
) -> None:
    """Two `arena league` runs on one store would play the same games, and the second to
    record one would stop with an error: whichever it was, a league was lost. The second
    is refused at once, before it plays or builds anything, and the first plays on."""
    for name in ("ann", "bob"):
        make_bot(tmp_path, name)
    make_bot(tmp_path, "cat", "slow")
    path = league_file(tmp_path, games_per_table=6, table_size=3)
    store = tmp_path / "league.sqlite"
    # Games of 8 plays at most: the slow bot's 0.6 s acts keep the first league going
    # for some 10 s after its first game, not 40 s.
    first = _start(path, "--sandbox", "none", "--play-cap", "8")
    _wait_for_games(store, 1, first)
    second = _start(path, "--sandbox", "none", "--play-cap", "8")
    _, err = second.communicate(timeout=120)
    assert second.returncode == 2, err
    assert b"in use by another arena process" in err
    assert b"Traceback" not in err
    _, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    assert len(results(store)) == 6


def test_a_damaged_or_empty_store_is_refused_on_resume(tmp_path: Path) -> None:
    """Issue 10.10: an empty file is not taken as a new league, and a resume reads the
    whole store first (page structure and every replay's checksum)."""
    four_bots(tmp_path)
    path = league_file(tmp_path, concurrency=1)
    store = tmp_path / "league.sqlite"
    store.write_bytes(b"")
    code, _, err = run_cli("league", str(path), "--progress", "quiet", "--sandbox", "none")
    assert code != 0
    assert "is an empty file" in err
    assert store.read_bytes() == b""
    store.unlink()
    assert run_cli("league", str(path), "--progress", "quiet", "--sandbox", "none")[0] == 0
    with sqlite3.connect(store) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        blob = db.execute("SELECT log FROM replays ORDER BY game_id LIMIT 1").fetchone()[0]
    data = bytearray(store.read_bytes())
    at = data.find(bytes(blob[10:40]))
    data[at : at + 30] = bytes(30)
    store.write_bytes(bytes(data))
    code, _, err = run_cli("league", str(path), "--progress", "quiet", "--sandbox", "none")
    assert code != 0
    assert "the store is damaged" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("table", ["seats", "replays", "faults"])
def test_a_games_rows_without_the_game_are_refused_on_resume(tmp_path: Path, table: str) -> None:
    """Found by a red team: a store whose games row of a game was deleted by hand, its
    seats (or replay) left, was resumed: the game was played again and failed to be
    recorded with SQLite's "UNIQUE constraint failed". The resume's check of the whole
    store now says what is wrong, before any game, and changes nothing."""
    four_bots(tmp_path)
    path = league_file(tmp_path, concurrency=1)
    store = tmp_path / "league.sqlite"
    assert run_cli("league", str(path), "--progress", "quiet", "--sandbox", "none")[0] == 0
    with contextlib.closing(sqlite3.connect(store)) as db, db:
        (game_id,) = db.execute("SELECT game_id FROM games ORDER BY rowid LIMIT 1").fetchone()
        db.execute("INSERT INTO faults(game_id, bot) VALUES (?, 'ann')", (game_id,))
        db.execute("DELETE FROM games WHERE game_id = ?", (game_id,))
        for other in {"seats", "replays", "faults"} - {table}:
            db.execute(f"DELETE FROM {other} WHERE game_id = ?", (game_id,))
    before = _seats(store)
    code, _, err = run_cli("league", str(path), "--progress", "quiet", "--sandbox", "none")
    assert code == 2, err
    assert f"the store is damaged ({table} of game {game_id!r}, which is not stored)" in err
    assert "UNIQUE" not in err
    assert _seats(store) == before


def _seats(store: Path) -> dict[str, list[str]]:
    """Who sat where in each game (read on a connection closed at once: the file is
    rewritten next, and a connection left open would hold its old state)."""
    with contextlib.closing(sqlite3.connect(store)) as db:
        rows = db.execute("SELECT game_id, bot FROM seats ORDER BY game_id, seat").fetchall()
    out: dict[str, list[str]] = {}
    for game_id, bot in rows:
        out.setdefault(game_id, []).append(bot)
    return out


def _replan(store: Path, blob: bytes, forget: int = 3) -> None:
    """Put `blob` in place of the store's kept schedule, and take its last games out
    (as if the league had been stopped before them)."""
    with contextlib.closing(sqlite3.connect(store)) as db, db:
        ids = [r[0] for r in db.execute("SELECT game_id FROM games ORDER BY idx DESC")]
        for table in ("replays", "seats", "games"):
            db.executemany(f"DELETE FROM {table} WHERE game_id = ?", [(i,) for i in ids[:forget]])
        db.execute("UPDATE schedule SET blob = ?", (blob,))


def test_a_schedule_kept_in_a_strangers_store_is_used_only_if_it_is_the_leagues(
    tmp_path: Path,
) -> None:
    """A store can be anyone's (a league's published results), and a resume read the
    schedule kept in it as it was: one that seats a bot twice had the league play and
    store a game no league can hold (the standings then refused the store as
    damaged), one with a bot of no submission or a seat too few killed a worker
    ('a worker process died'), and a zlib stream of gigabytes was unpacked whole. A
    kept schedule is now used only if its games are those its tables make for these
    settings, and is otherwise computed again: the resume plays the league's games."""
    import msgspec

    from arena.schedule import Schedule

    four_bots(tmp_path)
    path = league_file(tmp_path, concurrency=1)
    store = tmp_path / "league.sqlite"
    assert run_cli("league", str(path), "-q", "--sandbox", "none")[0] == 0
    seats = _seats(store)
    with contextlib.closing(sqlite3.connect(store)) as db:  # the log is folded in
        (blob,) = db.execute("SELECT blob FROM schedule").fetchone()
    pristine = store.read_bytes()
    kept = msgspec.msgpack.decode(zlib.decompress(blob), type=Schedule)
    first = kept.games[-1]
    bomb = zlib.compressobj(9)
    packed = b"".join(bomb.compress(bytes(2**26)) for _ in range(24)) + bomb.flush()
    for games in (
        (*kept.games[:-1], dataclasses.replace(first, seats=(first.seats[0],) * 3)),
        (*kept.games[:-1], dataclasses.replace(first, seats=("zed", *first.seats[1:]))),
        (*kept.games[:-1], dataclasses.replace(first, seats=first.seats[:2])),
        None,  # 1.5 GiB of zeros
    ):
        store.write_bytes(pristine)
        if games is None:
            _replan(store, packed)
        else:
            schedule = dataclasses.replace(kept, games=games)
            _replan(store, zlib.compress(msgspec.msgpack.encode(schedule)))
        done = subprocess.run(
            [sys.executable, "-m", "arena.cli", "league", str(path), "-q", "--sandbox", "none"],
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (2**30, 2**30)),
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert _seats(store) == seats


@pytest.mark.parametrize(
    ("change", "seed", "message"),
    [
        ("UPDATE meta SET value = '[1, 2]' WHERE key = 'league'", 3, "(setting 'league': [1, 2])"),
        ("UPDATE meta SET value = '\"x\"' WHERE key = 'league'", 3, "(setting 'league': 'x')"),
        (
            "UPDATE meta SET value = json_remove(value, '$.seed') WHERE key = 'league'",
            None,
            "(setting 'league' holds no seed)",
        ),
        # A red team: settings emptied by hand were called an older arena's.
        (
            "UPDATE meta SET value = '{}' WHERE key = 'league'",
            3,
            "(setting 'league' holds no seed)",
        ),
    ],
)
def test_a_resume_on_league_settings_no_league_writes_refuses_in_one_line(
    tmp_path: Path, change: str, seed: int | None, message: str
) -> None:
    """The league's settings in a store stored as a list or a string gave a resume an
    AttributeError traceback, and without their seed (and none given) a KeyError one;
    each is now damage, said in one line, and the store is left as it was."""
    four_bots(tmp_path)
    path = league_file(tmp_path, concurrency=1, seed=seed)
    path.write_text(path.read_text().replace("seed = null\n", ""))
    store = tmp_path / "league.sqlite"
    assert run_cli("league", str(path), "-q", "--sandbox", "none")[0] == 0
    with sqlite3.connect(store) as db:
        db.execute(change)
    before = results(store)
    code, _, err = run_cli("league", str(path), "-q", "--sandbox", "none")
    assert code == 2, err
    assert err == f"arena: error: {store}: the store is damaged {message}\n"
    assert results(store) == before


COUNTING_CRASHER = """
import pathlib, sys, time
counter = pathlib.Path(sys.argv[1])
starts = int(counter.read_text()) + 1 if counter.exists() else 1
counter.write_text(str(starts))
if starts == 4:
    time.sleep(3)  # the test kills the league here, after the third fault was stored
sys.exit(3)
"""


def test_a_resumed_league_disqualifies_as_an_uninterrupted_one(tmp_path: Path) -> None:
    """Issue 10.9: a league killed after a bot's third fault in a row (limit 5) and
    resumed records 5 crashes and the rest forfeits, as without the interruption (the
    streaks are stored with each game), not 3 + 5 crashes."""
    stores = []
    for run in ("killed", "whole"):
        root = tmp_path / run
        four_bots(root)
        folder = root / "bots" / "crasher"
        folder.mkdir(parents=True)
        (folder / "bot.py").write_text(COUNTING_CRASHER)
        (folder / "bot.toml").write_text(
            f'name = "crasher"\nrun = "python3 bot.py {root / "starts"}"\n'
        )
        path = league_file(root, fault_limit=5, concurrency=1, games_per_table=6)
        if run == "killed":
            proc = _start(path, "--sandbox", "none")
            deadline = time.monotonic() + 60
            while not ((root / "starts").exists() and (root / "starts").read_text() == "4"):
                assert proc.poll() is None
                assert time.monotonic() < deadline
                time.sleep(0.02)
            proc.send_signal(signal.SIGKILL)
            proc.communicate()
            partial = results(root / "league.sqlite")
            crashes = sum(c == "crash" for s in partial.values() for b, _, c in s if b == "crasher")
            assert crashes == 3
        code, _, err = run_cli("league", str(path), "--progress", "quiet", "--sandbox", "none")
        assert code == 0, err
        stores.append(results(root / "league.sqlite"))
    killed, whole = stores
    causes = [c for s in whole.values() for b, _, c in s if b == "crasher"]
    assert causes.count("crash") == 5
    assert causes.count("forfeit") == len(causes) - 5
    assert killed == whole


@pytest.mark.parametrize(
    ("section", "line", "message"),
    [
        ("league", "fault_limit = -1", "[league] fault_limit = -1: -1 is not in the range x>=0"),
        ("league", "concurrency = 0", "[league] concurrency = 0: 0 is not in the range"),
        ("league", "concurrency = 1000", "[league] concurrency = 1000: 1000 is not in the range"),
        ("league", "max_tables = -5", "[league] max_tables = -5: -5 is not in the range x>=0"),
        ("league", 'duplicate = "yes"', '[league] duplicate = "yes": must be true or false'),
        ("league", 'table_size = "3"', '[league] table_size = "3": must be a whole number from 2'),
        ("game", 'edition = "2023"', "[game] edition = \"2023\": '2023' is not one of"),
        ("game", "edition = 2022", '[game] edition = 2022: must be one of "2022", "1980"'),
        ("clocks", 'decision_ms = "1000"', '[clocks] decision_ms = "1000": must be a whole number'),
        ("clocks", "kill_grace_ms = -3", "[clocks] kill_grace_ms = -3: -3 is not in the range"),
        ("limits", "stderr_kb = 1.5", "[limits] stderr_kb = 1.5: must be a whole number from 0"),
        # A number of seconds: once "600" and true taken as they are (a build then failed
        # with a TypeError traceback on "600"), an array or a date a traceback at once.
        ("league", 'build_timeout = "600"', '[league] build_timeout = "600": must be a number'),
        ("league", "build_timeout = true", "[league] build_timeout = true: must be a number"),
        ("league", "build_timeout = [600]", "[league] build_timeout = [600]: must be a number"),
        ("league", "build_timeout = 0.5", "[league] build_timeout = 0.5: 0.5 is not in the range"),
        # Numbers too large for a deadline, a limit or a message: once tracebacks.
        ("clocks", f"decision_ms = {10**17}", f"[clocks] decision_ms = {10**17}: {10**17} is not"),
        ("clocks", f"kill_grace_ms = {10**20}", f"[clocks] kill_grace_ms = {10**20}: {10**20} is"),
        ("limits", f"memory_mb = {10**17}", f"[limits] memory_mb = {10**17}: {10**17} is not in"),
        ("limits", f"stderr_kb = {10**20}", f"[limits] stderr_kb = {10**20}: {10**20} is not in"),
        ("league", f"max_processes = {10**20}", f"[league] max_processes = {10**20}: {10**20} is"),
        ("league", f"max_frame = {2**32}", f"[league] max_frame = {2**32}: {2**32} is not in the"),
        ("game", f"tokens = {10**20}", f"[game] tokens = {10**20}: {10**20} is not in the range"),
        # tomllib refuses 4,300 digits with a ValueError that is no TOMLDecodeError.
        ("game", f"tokens = {'9' * 5000}", "not valid TOML: Exceeds the limit (4300 digits)"),
        # A misspelt key: once "clocks: Clocks.__init__() got an unexpected keyword ...".
        ("clocks", "decision = 500", "unknown [clocks] key(s): decision"),
        ("limits", "memory = 512", "unknown [limits] key(s): memory"),
        ("game", "taget = 50", "unknown [game] key(s): taget"),
        # Once ignored: the league played tables of table_size (4) where 3 were meant.
        ("game", "players = 3", "[game] players: a league's tables seat [league] table_size"),
        # TOML's \u0000 is a NUL, which no path holds: once a ValueError traceback.
        ("league", 'bots = "a\\u0000b"', "[league] bots: a path cannot hold a NUL character"),
        ("league", 'store = "s\\u0000"', "[league] store: a path cannot hold a NUL character"),
        ("league", 'log_dir = "\\u0000"', "[league] log_dir: a path cannot hold a NUL character"),
    ],
)
def test_league_file_values_get_the_checks_of_their_options(
    tmp_path: Path, section: str, line: str, message: str
) -> None:
    """Issue 10.8: a league-file value is checked as its command-line option is, and the
    message names the file, the section and the key."""
    four_bots(tmp_path)
    path = league_file(tmp_path)
    key = line.split(" =")[0]
    text = "".join(
        old for old in path.read_text().splitlines(keepends=True) if not old.startswith(key + " =")
    )
    header = f"[{section}]\n"
    text = text.replace(header, header + line + "\n") if header in text else text + header + line
    path.write_text(text + "\n")
    code, _, err = run_cli("league", str(path), "--progress", "quiet")
    assert code == 2
    assert f"{path}: {message}" in err, err
    assert "Traceback" not in err
    assert not (tmp_path / "league.sqlite").exists()


def test_hostile_submission_files_are_refused_and_the_league_goes_on(tmp_path: Path) -> None:
    """Issue 10.6: a 20 GB sparse file (which a whole-file read turned into a MemoryError
    traceback), a FIFO (which a read would wait on forever) and a link out of the
    folder each leave their bot out with a message naming it; the others play."""
    four_bots(tmp_path)
    bots = tmp_path / "bots"
    for name in ("sparse", "fifo", "escape"):
        make_bot(tmp_path, name)
    with open(bots / "sparse" / "data.bin", "wb") as f:
        f.truncate(20 * 1024**3)
    os.mkfifo(bots / "fifo" / "pipe")
    (bots / "escape" / "passwd").symlink_to("/etc/passwd")
    (bots / "ann" / "inside").symlink_to("bot.py")  # a link inside is fine
    path = league_file(tmp_path, concurrency=1)
    code, _, err = run_cli("league", str(path), "--sandbox", "none")
    assert code == 0, err
    assert "left out: sparse: the submission holds 20480 MiB of files, more than the 512" in err
    assert "left out: fifo: pipe is a special file" in err
    assert "left out: escape: passwd is a link out of the submission (to /etc/passwd)" in err
    players = {b for seats in results(tmp_path / "league.sqlite").values() for b, _, _ in seats}
    assert players == {"ann", "bob", "cat", "dan"}


def test_unreadable_or_nul_submissions_are_left_out_and_the_league_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found in an audit: a NUL in a manifest's run or build (exec refuses it), a file
    of a submission or a folder of the tree that arena may not read (another user's,
    mode 000) each stopped the league with a traceback. They leave out what they are
    in, with a message, and the others play. (Root reads mode-000 files, so the
    refusals are made by the file system calls here.)"""
    import arena.bots._manifest as manifest

    four_bots(tmp_path)
    bots = tmp_path / "bots"
    for name in ("nulrun", "nulbuild", "secret"):
        make_bot(tmp_path, name)
    (bots / "nulrun" / "bot.toml").write_text('name = "nulrun"\nrun = "python3 bot.py\\u0000x"\n')
    with (bots / "nulbuild" / "bot.toml").open("a") as toml:
        toml.write('build = "echo \\u0000"\n')
    (bots / "secret" / "key.bin").write_bytes(b"\0")
    (bots / "closed").mkdir()
    real_open, real_iterdir = open, Path.iterdir

    def refusing_open(file: object, *args: object, **kwargs: object) -> object:
        if str(file).endswith("key.bin"):
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)  # type: ignore[call-overload]

    def refusing_iterdir(self: Path) -> object:
        if self.name == "closed":
            raise PermissionError(13, "Permission denied", str(self))
        return real_iterdir(self)

    monkeypatch.setattr(manifest, "open", refusing_open, raising=False)
    monkeypatch.setattr(Path, "iterdir", refusing_iterdir)
    code, _, err = run_cli("league", str(league_file(tmp_path, concurrency=1)), "--sandbox", "none")
    assert code == 0, err
    assert "Traceback" not in err
    assert "'run' holds a NUL character" in err
    assert "'build' holds a NUL character" in err
    assert "left out: secret: cannot read key.bin: Permission denied" in err
    assert "closed: cannot read the folder: Permission denied" in err
    players = {b for seats in results(tmp_path / "league.sqlite").values() for b, _, _ in seats}
    assert players == {"ann", "bob", "cat", "dan"}


@pytest.mark.parametrize("value", ["nan", "inf", "1e300", "0.5"])
def test_a_build_timeout_that_is_no_number_of_seconds_is_refused(
    tmp_path: Path, value: str
) -> None:
    """Found in an audit: --build-timeout nan, inf or 1e300 passed the range check
    (NaN compares false with both ends) and failed in the build with a traceback."""
    four_bots(tmp_path)
    path = league_file(tmp_path)
    code, _, err = run_cli("league", str(path), "--build-timeout", value)
    assert code == 2, err
    assert "--build-timeout" in err
    assert "Traceback" not in err
    number = float(value)
    path.write_text(path.read_text().replace("[league]", f"[league]\nbuild_timeout = {number}"))
    code, _, err = run_cli("league", str(path))
    assert code == 2, err
    assert "build_timeout" in err
    assert not (tmp_path / "league.sqlite").exists()


def test_links_back_up_the_submissions_folder_are_searched_once(tmp_path: Path) -> None:
    """A folder among the submissions with two links to its parent (a stranger's
    unpacked submission) made the search for bot.toml files walk 2^40 paths: the league
    hung before its first game, and a single such link found every bot again under a
    longer path, each 'taken by' itself. Every folder is now searched once, and a bot
    reached through a link to its folder from elsewhere is still found."""
    four_bots(tmp_path)
    bots = tmp_path / "bots"
    (bots / "junk").mkdir()
    (bots / "junk" / "up").symlink_to("..")
    (bots / "junk" / "up2").symlink_to("..")
    elsewhere = tmp_path / "elsewhere"
    random_bot(elsewhere, "eve")
    (bots / "eve").symlink_to(elsewhere / "bots" / "eve")
    proc = subprocess.run(
        [sys.executable, "-m", "arena.cli", "league", str(league_file(tmp_path, concurrency=1)),
         "--sandbox", "none"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "taken by" not in proc.stdout + proc.stderr
    players = {b for seats in results(tmp_path / "league.sqlite").values() for b, _, _ in seats}
    assert players == {"ann", "bob", "cat", "dan", "eve"}


def test_names_that_are_not_utf8_leave_no_traceback(tmp_path: Path) -> None:
    """File names are bytes: a file in a submission whose name is not UTF-8 stopped the
    league with a UnicodeEncodeError traceback as its digest was taken, and a bot in a
    folder whose name is not UTF-8 with another as its folder was sent to a worker
    process. The first bot plays; the second is left out, naming its folder."""
    four_bots(tmp_path)
    bots = os.fsencode(tmp_path / "bots")
    open(os.path.join(bots, b"ann", b"data-\xfe"), "wb").close()
    odd = os.path.join(bots, b"eve-\xff")
    random_bot(tmp_path, "eve")
    os.rename(os.path.join(bots, b"eve"), odd)
    code, _, err = run_cli("league", str(league_file(tmp_path)), "--sandbox", "none")
    assert code == 0, err
    assert "left out: '" + os.fsdecode(odd).replace("\udcff", "\\udcff") in err
    assert "the folder's path is not UTF-8 text" in err
    players = {b for seats in results(tmp_path / "league.sqlite").values() for b, _, _ in seats}
    assert players == {"ann", "bob", "cat", "dan"}


ESCAPES = "\x1b]0;pwned\x07\x1b[2J\rok"
"""Retitle the window, clear the screen, write over the start of the line."""


def test_text_a_bot_chose_reaches_the_terminal_escaped(tmp_path: Path) -> None:
    """A terminal obeys the escape sequences it is sent. A build's output, a file name
    and a manifest key are a bot's to choose: their control characters are shown as
    escapes in the league's messages, never sent to the terminal."""
    four_bots(tmp_path)
    noisy = make_bot(tmp_path, "noisy", build="python3 build.py")
    (noisy / "build.py").write_text(f"import sys\nprint({ESCAPES!r})\nsys.exit(1)\n")
    fifo = make_bot(tmp_path, "fifo")
    os.mkfifo(fifo / f"{ESCAPES}pipe")
    keys = make_bot(tmp_path, "keys")
    with (keys / "bot.toml").open("a") as f:
        f.write('"\\u001b]0;pwned\\u0007" = 1\n')
    path = league_file(tmp_path, concurrency=1)
    result = CliRunner().invoke(main, ["league", str(path), "--sandbox", "none"], color=True)
    err = result.stderr
    assert result.exit_code == 0, err
    assert not set("\x1b\x07\r") & set(err)
    shown = "\\x1b]0;pwned\\x07\\x1b[2J\\x0dok"
    log = tmp_path / "league-logs" / "noisy.log"  # (issue 44.3: where its whole output is)
    assert f"left out: noisy: build exited with status 1 (the whole output: {log}):" in err
    assert f"): {shown[:-6]}" in err
    assert f"left out: fifo: {shown}pipe is a special file" in err
    assert "unknown key(s): \\x1b]0;pwned\\x07" in err
    players = {b for seats in results(tmp_path / "league.sqlite").values() for b, _, _ in seats}
    assert players == {"ann", "bob", "cat", "dan"}


@pytest.mark.parametrize("pin", [True, False])
def test_pinned_workers_run_their_bots_on_a_cpu_of_their_own(tmp_path: Path, pin: bool) -> None:
    """With --pin-cpus each worker process runs on one CPU, in turn, and every bot
    process it starts inherits that; without it, bots may run on every CPU arena may."""
    for name in ("ann", "bob", "cat", "dan"):
        random_bot(tmp_path, name)
        bot = tmp_path / "bots" / name / "bot.py"
        report = "import os, sys; print('CPUS', sorted(os.sched_getaffinity(0)), file=sys.stderr)\n"
        future = "from __future__ import annotations\n"
        source = bot.read_text()
        assert future in source
        bot.write_text(source.replace(future, future + report, 1))
    path = league_file(tmp_path, log_dir="logs")
    flag = "--pin-cpus" if pin else "--no-pin-cpus"
    code, _, err = run_cli("league", str(path), "-q", "--sandbox", "none", flag)
    assert code == 0, err
    seen = [
        line.removeprefix("CPUS ")
        for log in (tmp_path / "logs").glob("*.log")
        for line in log.read_text().splitlines()
        if line.startswith("CPUS ")
    ]
    assert len(seen) >= 4  # a process of each bot at least
    allowed = sorted(os.sched_getaffinity(0))
    if pin:
        workers = min(2, os.cpu_count() or 1)  # the league's concurrency is 2
        assert {s for s in seen} == {f"[{cpu}]" for cpu in allowed[:workers]}
    else:
        assert set(seen) == {str(allowed)}


def test_pinning_without_worker_processes_says_it_pins_nothing(tmp_path: Path) -> None:
    """At a concurrency of 1 the games run in arena's own process: --pin-cpus has no
    worker to pin, and says so rather than doing nothing in silence."""
    four_bots(tmp_path)
    path = league_file(tmp_path, concurrency=1)
    code, _, err = run_cli("league", str(path), "--sandbox", "none", "--pin-cpus")
    assert code == 0, err
    assert "--pin-cpus pins nothing at a concurrency of 1" in err
    code, _, err = run_cli("league", str(path), "--sandbox", "none")
    assert code == 0, err
    assert "--pin-cpus" not in err


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("concurrency", [1, 2])
def test_a_bot_log_on_a_full_disk_stops_the_league_and_charges_no_bot(
    tmp_path: Path, concurrency: int
) -> None:
    """Found in an audit: a --log-dir on a full disk (here a bot's log is /dev/full,
    where every write fails with ENOSPC) lost the bot's log, and the league went on and
    exited 0 without a word. It stops in one line, as a machine that cannot start a bot
    does (in arena's process or a worker's); the games stored stay, no bot is charged,
    and once there is room the league resumes and the log is written."""
    make_bot(tmp_path, "ann", "chatty")  # writes a line to stderr at every decision
    make_bot(tmp_path, "bob")
    random_bot(tmp_path, "cat")
    random_bot(tmp_path, "dan")
    path = league_file(tmp_path, concurrency=concurrency, log_dir="logs")
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "ann.log").symlink_to("/dev/full")
    code, _, err = run_cli("league", str(path), "--sandbox", "none", "-q")
    assert code == 2, err
    assert f"cannot write the bot log {logs / 'ann.log'}: No space left on device" in err
    assert "this machine's problem, not the bot's, so nothing is charged to it" in err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert not [pid for pid in pids(tmp_path / "pids") if alive(pid)]  # every bot killed
    stored = results(tmp_path / "league.sqlite")
    assert len(stored) < 12
    assert all(cause != "crash" for seats in stored.values() for _, _, cause in seats)
    (logs / "ann.log").unlink()  # room again
    code, _, err = run_cli("league", str(path), "--sandbox", "none", "-q")
    assert code == 0, err
    games = results(tmp_path / "league.sqlite")
    assert len(games) == 12
    assert {game: games[game] for game in stored} == stored  # nothing stored is lost
    assert all(cause != "crash" for seats in games.values() for _, _, cause in seats)
    assert "thinking" in (logs / "ann.log").read_text()


@pytest.mark.parametrize("broken", ["full", "folder", "build"])
def test_a_match_whose_bot_log_cannot_be_written_stops_in_one_line(
    tmp_path: Path, broken: str
) -> None:
    """The same for a match, for a log that cannot even be opened (a folder in its
    place, as a log folder that became unwritable), and for a build's output: each was
    dropped without a word."""
    if broken != "folder" and not Path("/dev/full").exists():
        pytest.skip("needs /dev/full")
    build = "echo built" if broken == "build" else None
    ann, bob = make_bot(tmp_path, "ann", "chatty", build), make_bot(tmp_path, "bob")
    logs = tmp_path / "logs"
    logs.mkdir()
    if broken != "folder":
        (logs / "ann.log").symlink_to("/dev/full")
    else:
        (logs / "ann.log").mkdir()
    args = ["match", str(ann), str(bob), "-n", "2", "--sandbox", "none", "--log-dir", str(logs)]
    code, out, err = run_cli(*args)
    assert code == 2, out + err
    *before, last = err.strip().splitlines()
    assert last.startswith(f"arena: error: cannot write the bot log {logs / 'ann.log'}: "), err
    assert last.endswith("nothing is charged to it")
    # The log is written as the bot's stderr is read, by the trio thread, while the
    # games are played in the referee's thread: on a busy machine a game of instant
    # bots may end, and be told, before that read (2 runs in 3 of five test folders
    # with -n 2 told m0001 first). Nothing else comes before the error.
    told = [line for line in before if line.startswith(("m0001 ", "m0002 "))]
    assert [line for line in before if line not in told] == (
        ["building ann: echo built"] if build else []
    ), err
    assert "Traceback" not in err


@pytest.mark.parametrize("sandbox", [pytest.param("bwrap", marks=needs_bwrap), "none"])
def test_a_submission_folder_moved_mid_league_stops_it_and_charges_no_bot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sandbox: str
) -> None:
    """Found in an audit: an organiser who moved (or renamed, or removed) a submission
    folder while the league ran had every later start of that bot charged as a crash
    ("could not start python3 bot.py: No such file or directory"), so the bot was
    disqualified and its remaining games were forfeits: measured, 5 crashes and 73
    forfeits of 90 games. A bot whose folder is gone stops the league in one line, no
    game charged to it; with the folder back, the league resumes as if nothing had
    happened."""
    from arena.store import Store

    four_bots(tmp_path)
    path = league_file(tmp_path)  # 12 games, 9 of them dan's, 3 faults disqualify
    real = Store.record_game
    recorded: list[str] = []

    def record(self: Store, result: object, **kwargs: object) -> None:
        real(self, result, **kwargs)  # type: ignore[arg-type]
        recorded.append("")
        if len(recorded) == 2:  # the organiser moves dan's folder away
            (tmp_path / "bots" / "dan").rename(tmp_path / "dan-moved")

    monkeypatch.setattr(Store, "record_game", record)
    args = ("league", str(path), "--fresh-process", "--sandbox", sandbox)
    code, _, err = run_cli(*args)
    assert code == 2, err
    assert f"the submission folder {tmp_path / 'bots' / 'dan'} of dan is gone" in err
    assert "nothing is charged to it" in err
    assert "Traceback" not in err
    games = results(tmp_path / "league.sqlite")
    assert not {cause for seats in games.values() for _, _, cause in seats} & {"crash", "forfeit"}
    monkeypatch.setattr(Store, "record_game", real)
    (tmp_path / "dan-moved").rename(tmp_path / "bots" / "dan")
    code, _, err = run_cli(*args)
    assert code == 0, err
    assert "disqualified" not in err
    games = results(tmp_path / "league.sqlite")
    assert len(games) == 12
    assert not {cause for seats in games.values() for _, _, cause in seats} & {"crash", "forfeit"}


_LEAVES_MID_GAME = r"""
import os, sys, msgpack
folder, moved, once = os.getcwd(), sys.argv[1], sys.argv[1] + ".once"
r, w = sys.stdin.buffer, sys.stdout.buffer
acts = 0
while len(h := r.read(4)) == 4:
    m = msgpack.unpackb(r.read(int.from_bytes(h, "big")))
    if m["type"] == "hello":
        b = msgpack.packb({"type": "hello", "name": "dan", "version": "1", "protocol": 1})
    elif m["type"] == "act":
        acts += 1
        if acts == 5 and not os.path.exists(once):  # the organiser moves the folder
            open(once, "w").close()
            os.rename(folder, moved)
            os._exit(1)  # and the bot, its files gone, fails
        b = msgpack.packb({"type": "action", "request_id": m["request_id"], "choice": 0})
    elif m["type"] == "bye":
        break
    else:
        continue
    w.write(len(b).to_bytes(4, "big") + b)
    w.flush()
"""


def test_a_fault_after_a_submission_folder_went_mid_game_is_not_stored(tmp_path: Path) -> None:
    """A folder removed in the middle of a game: the bot's process, its files gone under
    it, fails before the league's next start of it. The fault was stored as the bot's
    crash; now the game is not stored and the league stops in one line, and with the
    folder back the resume plays that game again, no bot charged."""
    for name in ("ann", "bob", "cat"):
        make_bot(tmp_path, name)
    dan, moved = tmp_path / "bots" / "dan", tmp_path / "dan-moved"
    dan.mkdir()
    (dan / "bot.py").write_text(_LEAVES_MID_GAME)
    (dan / "bot.toml").write_text(f'name = "dan"\nrun = "python3 bot.py {moved}"\n')
    args = ("league", str(league_file(tmp_path)), "--sandbox", "none")
    code, _, err = run_cli(*args)
    assert code == 2, err
    last = err.strip().splitlines()[-1]
    assert last.startswith("arena: error: "), err
    assert f"the submission folder {dan} of dan is gone" in last
    games = results(tmp_path / "league.sqlite")
    assert not {c for seats in games.values() for *_, c in seats} & {"crash", "forfeit"}
    moved.rename(dan)
    code, _, err = run_cli(*args)
    assert code == 0, err
    games = results(tmp_path / "league.sqlite")
    assert len(games) == 12
    assert not {cause for seats in games.values() for *_, cause in seats} & {"crash", "forfeit"}


def test_a_machine_that_cannot_start_bots_stops_the_league_and_charges_no_bot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found in an audit: a start that failed for the machine's reasons (a full /tmp for
    the bot's private folder, no processes or file descriptors left) was charged to the
    bot as a crash, so every bot in turn was disqualified. It stops the league, in one
    line; once the machine is mended the league resumes, no bot charged anything."""
    import errno

    import arena.bots._process as process

    four_bots(tmp_path)
    path = league_file(tmp_path, concurrency=1)
    real = process.tempfile.mkdtemp
    starts = {"left": 2}  # two bots start, then the disk is full

    def mkdtemp(*args: object, **kwargs: object) -> str:
        if starts["left"] == 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        starts["left"] -= 1
        return real(*args, **kwargs)  # type: ignore[call-overload, no-any-return]

    monkeypatch.setattr(process.tempfile, "mkdtemp", mkdtemp)
    code, _, err = run_cli("league", str(path), "--sandbox", "none")
    assert code == 2, err
    assert "No space left on device" in err
    assert "this machine's problem, not the bot's" in err
    assert "Traceback" not in err
    monkeypatch.setattr(process.tempfile, "mkdtemp", real)
    code, _, err = run_cli("league", str(path), "--sandbox", "none")
    assert code == 0, err
    assert "disqualified" not in err
    games = results(tmp_path / "league.sqlite")
    assert len(games) == 12
    assert all(cause != "crash" for seats in games.values() for _, _, cause in seats)


def test_a_league_file_and_a_manifest_saved_with_a_byte_order_mark_are_read(
    tmp_path: Path,
) -> None:
    """Found by a red team: a file an editor saved as UTF-8 with a byte order mark (as
    Windows editors do) was "not valid TOML: Invalid statement (at line 1, column 1)",
    the mark invisible in any editor. It is now read past."""
    import codecs

    from arena.bots import load_manifest
    from arena.errors import InputError
    from arena.league import read_league_file

    folder = tmp_path / "eve"
    folder.mkdir()
    (folder / "bot.toml").write_bytes(codecs.BOM_UTF8 + b'name = "eve"\nrun = "python3 bot.py"\n')
    assert load_manifest(folder).name == "eve"
    path = tmp_path / "league.toml"
    path.write_bytes(codecs.BOM_UTF8 + b'[league]\nbots = "bots"\ntable_size = 3\n')
    assert read_league_file(path)["league"]["table_size"] == 3
    # A mark anywhere else is still no TOML.
    path.write_bytes(b"[league]\n" + codecs.BOM_UTF8 + b'bots = "bots"\n')
    with pytest.raises(InputError, match="not valid TOML"):
        read_league_file(path)


@pytest.mark.parametrize("quiet", [False, True])
def test_left_out_submissions_are_repeated_at_the_end(tmp_path: Path, quiet: bool) -> None:
    """Issue 44.4: a league that left out 5 of 7 bots said so only at the top of its
    output, and exited 0: the end says it again, also with -q."""
    four_bots(tmp_path)
    (tmp_path / "bots" / "broken").mkdir()
    (tmp_path / "bots" / "broken" / "bot.toml").write_text("name = [\n")
    make_bot(tmp_path, "unbuilt", build="false")
    path = league_file(tmp_path, games_per_table=1, duplicate=False)
    code, _, err = run_cli("league", str(path), *(["-q"] if quiet else []))
    assert code == 0, err
    tail = err.splitlines()[-3:]
    assert tail[0] == "warning: 2 submission(s) left out, not playing:"
    assert tail[1].startswith(f"  {tmp_path / 'bots' / 'broken' / 'bot.toml'}: not valid TOML")
    assert tail[2].startswith("  unbuilt: build exited with status 1")


def test_strict_refuses_to_play_when_a_submission_is_left_out(tmp_path: Path) -> None:
    four_bots(tmp_path)
    make_bot(tmp_path, "unbuilt", build="false")
    path = league_file(tmp_path, games_per_table=1, duplicate=False)
    code, _, err = run_cli("league", str(path), "--strict")
    assert code == 1, err
    assert "arena: error: --strict: 1 submission(s) left out, so no game is played: unbuilt:" in (
        err
    )
    assert results(tmp_path / "league.sqlite") == {}
    shutil.rmtree(tmp_path / "bots" / "unbuilt")
    code, _, err = run_cli("league", str(path), "--strict")
    assert code == 0, err
    assert len(results(tmp_path / "league.sqlite")) == 4


def test_sigint_stops_a_league_started_with_it_ignored(tmp_path: Path) -> None:
    """Issue 44.5: started from a script as `setsid arena league ... &` (SIGINT ignored),
    a SIGINT to the group stopped the worker processes and arena failed with "a worker
    process died while playing g000479", exit 2. It stops cleanly, as Ctrl-C does."""
    for name in ("ann", "bob", "cat"):
        make_bot(tmp_path, name, "unhurried")
    path = league_file(tmp_path, games_per_table=30, table_size=3)

    def ignore_sigint() -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)

    proc = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "league", str(path), "--progress", "quiet",
         "--sandbox", "none"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        preexec_fn=ignore_sigint,
    )  # fmt: skip
    _wait_for_games(tmp_path / "league.sqlite", 1, proc)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert b"worker process died" not in err
    assert b"run the same command to resume" in err
    assert [p for p in pids(tmp_path / "pids") if alive(p)] == []
