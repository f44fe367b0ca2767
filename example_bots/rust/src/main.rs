//! The message loop of the Rust starter bot for the ONO 99 arena (SPEC §4).
//!
//!   referee: hello      -> we answer hello {name, version, protocol: 1}
//!   referee: game_start -> we remember the game (seat, edition, format ...)
//!   referee: act        -> we answer action {request_id, choice}, the choice from strategy.rs
//!   referee: game_over  -> logged to stderr
//!   referee: bye        -> exit 0 (and exit 0 as well when stdin ends)
//!
//! stdout carries frames only: every diagnostic goes to stderr (`eprintln!`; never
//! `println!` in a bot). The framing is in protocol.rs, the decisions in strategy.rs.

use std::io::{self, Read, Write};
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;
use std::time::Instant;

use ono99::protocol::{self, Act, GameInfo, Value, MAX_INCOMING, PROTOCOL_VERSION};
use ono99::strategy::Strategy;

/// Shown in results; 1 to 64 characters (SPEC §6.1).
const NAME: &str = "rust-heuristic";
const VERSION: &str = "1.0";

macro_rules! log {
    ($($arg:tt)*) => { eprintln!("[{}] {}", NAME, format_args!($($arg)*)) };
}

fn main() -> ExitCode {
    let mut input = io::stdin().lock();
    let mut output = io::stdout().lock();
    match run_session(&mut input, &mut output) {
        Ok(()) => ExitCode::SUCCESS,
        Err(reason) => {
            log!("{reason}; exiting");
            ExitCode::FAILURE
        }
    }
}

/// One session, until `bye` or the end of `input`. Err: the reason to exit with
/// status 1 (a broken frame, a referee of another protocol, a failed write).
fn run_session(input: &mut dyn Read, output: &mut dyn Write) -> Result<(), String> {
    let mut strategy = Strategy::new();
    let mut game = GameInfo::default();
    loop {
        let msg = match protocol::read_message(input, MAX_INCOMING) {
            Ok(Some(msg)) => msg,
            Ok(None) => {
                log!("end of stdin; exiting");
                return Ok(());
            }
            Err(err) => return Err(format!("bad frame from the referee: {err}")),
        };
        match protocol::message_type(&msg) {
            "hello" => {
                let version = protocol::get_int(&msg, "protocol");
                let name = protocol::get_str(&msg, "game");
                if version != Some(PROTOCOL_VERSION) || name != Some("ono99") {
                    return Err(format!(
                        "the referee speaks protocol {version:?} of game {name:?}; \
                         this bot speaks protocol {PROTOCOL_VERSION} of ono99"
                    ));
                }
                send(output, &protocol::hello_message(NAME, VERSION))?;
            }
            "game_start" => {
                game = GameInfo::from_message(msg);
                log!(
                    "game {}: edition {}, format {}, seat {} of {}",
                    game.game_id,
                    game.edition,
                    game.format,
                    game.seat,
                    game.players
                );
                strategy.game_start(&game);
            }
            "act" => {
                let act = Act::from_message(msg).map_err(|e| format!("cannot answer: {e}"))?;
                let choice = decide(&mut strategy, &game, &act);
                send(
                    output,
                    &protocol::action_message(act.request_id, choice as i64),
                )?;
            }
            "game_over" => {
                let place = protocol::get_array(&msg, "places")
                    .and_then(|places| places.get(usize::try_from(game.seat).ok()?))
                    .and_then(Value::as_i64);
                log!(
                    "game {} over: place {}",
                    game.game_id,
                    place.map_or("?".into(), |p| p.to_string())
                );
            }
            "bye" => return Ok(()),
            other => log!("ignoring a message of type {other:?}"), // SPEC §10.2
        }
    }
}

/// Ask the strategy, and make sure the answer is a valid index whatever it does:
/// a bug in the strategy costs a bad move, not an `illegal` fault.
fn decide(strategy: &mut Strategy, game: &GameInfo, act: &Act) -> usize {
    if act.legal.is_empty() {
        log!("act {} has no legal action; answering 0", act.request_id);
        return 0;
    }
    let started = Instant::now();
    let choice = panic::catch_unwind(AssertUnwindSafe(|| strategy.choose(game, act)));
    let used_ms = started.elapsed().as_millis() as i64;
    if used_ms * 2 > act.decision_ms.unwrap_or(1000) {
        log!("request {}: the decision took {used_ms} ms", act.request_id);
    }
    match choice {
        Ok(i) if i < act.legal.len() => i,
        Ok(i) => {
            log!(
                "the strategy chose {i} of {} actions; playing 0",
                act.legal.len()
            );
            0
        }
        Err(_) => {
            log!(
                "the strategy panicked on request {}; playing 0",
                act.request_id
            );
            0
        }
    }
}

fn send(output: &mut dyn Write, msg: &Value) -> Result<(), String> {
    protocol::write_message(output, msg).map_err(|e| format!("cannot write to stdout: {e}"))
}
