//! The yardstick bot: the message loop (SPEC §4), the clock (SPEC §8) and the
//! choice of the search (search.rs) for every act.
//!
//! Usage: yardstick [--level 1..5] [--seed N] [--fraction F] [--verbose] [--inference] [--perfect-info]
//!
//! - no `--level`: as many playouts as the clock allows (a fraction of the time
//!   of the decision or of a share of the bank, less a safety margin);
//! - `--level N`: a fixed number of playouts per decision (LEVELS), the same on
//!   every machine; the clock still caps it, as it caps the search without a level.

use std::io::{self, Read, Write};
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use yardstick::determinize::template;
use yardstick::game::{card_from_code, State, MAX_SEATS};
use yardstick::policy;
use yardstick::protocol::{
    self, get, get_array, get_int, get_str, get_uint, Value, MAX_INCOMING, PROTOCOL_VERSION,
};
use yardstick::search::{search, Params};
use yardstick::tracker::{action_from_legal, Tracker};

const NAME: &str = "yardstick";
const VERSION: &str = "1.0";

/// Playouts per decision at levels 1 to 5.
pub const LEVELS: [u64; 5] = [50, 200, 800, 3200, 12800];

#[derive(Debug, Clone)]
struct Options {
    level: Option<usize>,
    seed: u64,
    /// The share of the available time the search may use.
    fraction: f64,
    /// Always kept free of the decision time, in ms (a fifth of it when that is less).
    margin_ms: f64,
    verbose: bool,
    /// Read every hand from the act's `test_hands` key, which only arena's test hook
    /// adds (arena.testing.play_seeing): the perfect-information control of issue 46.5.
    /// Without that key (any real game) it changes nothing.
    perfect_info: bool,
    /// Deal by what the other seats' plays say of their hands (infer.rs); off by
    /// default: no gain measured against the heuristic (README).
    inference: bool,
}

macro_rules! log {
    ($($arg:tt)*) => { eprintln!("[{}] {}", NAME, format_args!($($arg)*)) };
}

fn parse_args() -> Result<Options, String> {
    let mut o = Options {
        level: None,
        seed: 0x5eed,
        fraction: 0.5,
        margin_ms: 25.0,
        verbose: false,
        perfect_info: false,
        inference: false,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let val = |i: usize| args.get(i + 1).ok_or(format!("{} needs a value", args[i]));
        match args[i].as_str() {
            "--level" => {
                let l: usize = val(i)?.parse().map_err(|_| "--level: 1 to 5")?;
                if !(1..=5).contains(&l) {
                    return Err("--level: 1 to 5".into());
                }
                o.level = Some(l);
                i += 1;
            }
            "--seed" => {
                o.seed = val(i)?.parse().map_err(|_| "--seed: an integer")?;
                i += 1;
            }
            "--fraction" => {
                o.fraction = val(i)?.parse().map_err(|_| "--fraction: a number")?;
                if !(0.0..=0.9).contains(&o.fraction) {
                    return Err("--fraction: 0 to 0.9".into());
                }
                i += 1;
            }
            "--verbose" => o.verbose = true,
            "--perfect-info" => o.perfect_info = true,
            "--inference" => o.inference = true,
            other => return Err(format!("unknown argument {other:?}")),
        }
        i += 1;
    }
    Ok(o)
}

fn main() -> ExitCode {
    let opts = match parse_args() {
        Ok(o) => o,
        Err(e) => {
            log!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let mut input = io::stdin().lock();
    let mut output = io::stdout().lock();
    match run_session(&opts, &mut input, &mut output) {
        Ok(()) => ExitCode::SUCCESS,
        Err(reason) => {
            log!("{reason}; exiting");
            ExitCode::FAILURE
        }
    }
}

struct GameClock {
    increment_ms: i64,
}

fn run_session(opts: &Options, input: &mut dyn Read, output: &mut dyn Write) -> Result<(), String> {
    let mut tracker: Option<Tracker> = None;
    let mut clock = GameClock { increment_ms: 0 };
    loop {
        let msg = match protocol::read_message(input, MAX_INCOMING) {
            Ok(Some(msg)) => msg,
            Ok(None) => return Ok(()),
            Err(err) => return Err(format!("bad frame from the referee: {err}")),
        };
        match protocol::message_type(&msg) {
            "hello" => {
                let version = get_int(&msg, "protocol");
                let game = get_str(&msg, "game");
                if version != Some(PROTOCOL_VERSION) || game != Some("ono99") {
                    return Err(format!(
                        "the referee speaks protocol {version:?} of game {game:?}; \
                         this bot speaks protocol {PROTOCOL_VERSION} of ono99"
                    ));
                }
                send(output, &protocol::hello_message(NAME, VERSION))?;
            }
            "game_start" => {
                tracker = Some(Tracker::from_game_start(&msg));
                clock.increment_ms = get(&msg, "clock")
                    .and_then(|c| get_int(c, "increment_ms"))
                    .unwrap_or(0);
            }
            "act" => {
                let started = Instant::now();
                let request_id =
                    get_uint(&msg, "request_id").ok_or("an act without an int request_id")?;
                let n_legal = get_array(&msg, "legal").map_or(0, |l| l.len());
                let choice = if n_legal <= 1 {
                    if let Some(t) = tracker.as_mut() {
                        t.act(&msg);
                    }
                    0
                } else {
                    let t = tracker.get_or_insert_with(|| Tracker::from_game_start(&Value::Nil));
                    let result = panic::catch_unwind(AssertUnwindSafe(|| {
                        decide(opts, t, &msg, started, clock.increment_ms)
                    }));
                    match result {
                        Ok(i) if i < n_legal => i,
                        _ => {
                            log!("request {request_id}: the search failed; playing the heuristic");
                            fallback(&msg)
                        }
                    }
                };
                send(output, &protocol::action_message(request_id, choice as i64))?;
                let used = started.elapsed().as_millis();
                if opts.verbose {
                    log!("request {request_id}: answered in {used} ms");
                }
            }
            "game_over" => tracker = None,
            "bye" => return Ok(()),
            _ => {}
        }
    }
}

/// The time the search may take, in ms: a fraction of the decision time (which
/// the referee already caps by the bank left), and with a bank, of a share of it.
fn budget_ms(opts: &Options, act: &Value, increment_ms: i64) -> f64 {
    let c = get(act, "clock");
    let decision = c.and_then(|c| get_int(c, "decision_ms")).unwrap_or(1000) as f64;
    let mut avail = decision;
    if let Some(bank) = c.and_then(|c| get_int(c, "bank_ms")) {
        avail = avail.min(bank as f64 / 20.0 + increment_ms as f64);
    }
    // the margin: 25 ms, or a fifth of the time on short clocks
    (avail * opts.fraction - opts.margin_ms.min(0.2 * avail)).max(0.0)
}

/// A seed for this decision from the bot's seed and what the act shows: the same
/// act gives the same search (reproducible games at a fixed level).
fn decision_seed(base: u64, t: &Tracker) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ base;
    let mut mix = |x: u64| {
        h ^= x;
        h = h.wrapping_mul(0x0100_0000_01b3);
    };
    let o = &t.obs;
    mix(t.seat as u64);
    mix(o.round as u64);
    mix(o.plays as u64);
    mix(o.owes as u64);
    mix(o.total as i64 as u64);
    for &c in &o.hand {
        mix(c as u64 + 100);
    }
    for &c in &o.discard {
        mix(c as u64 + 200);
    }
    h
}

fn decide(opts: &Options, t: &mut Tracker, act: &Value, started: Instant, inc: i64) -> usize {
    t.act(act);
    let legal: Vec<Option<u8>> = get_array(act, "legal")
        .unwrap_or(&[])
        .iter()
        .map(action_from_legal)
        .collect();
    let mut tp = match template(t) {
        Ok(tp) => tp,
        Err(e) => {
            log!("cannot read the state ({}); playing the heuristic", e.0);
            return fallback(act);
        }
    };
    if opts.inference {
        tp = tp.with_beliefs(&t.beliefs);
    }
    if opts.perfect_info {
        if let Some(hands) = get_array(act, "test_hands") {
            let hands: Vec<Vec<u8>> = hands
                .iter()
                .map(|h| {
                    h.as_array().map_or(vec![], |a| {
                        a.iter()
                            .filter_map(|c| c.as_str().and_then(card_from_code))
                            .collect()
                    })
                })
                .collect();
            match tp.clone().with_hands(&hands) {
                Ok(seen) => {
                    if opts.verbose {
                        log!("every hand shown (test_hands)");
                    }
                    tp = seen;
                }
                Err(e) => log!("test_hands do not fit ({}); searching without them", e.0),
            }
        }
    }
    // The simulator must agree with the referee; if not, do not trust it.
    let mine: Vec<Option<u8>> = tp.state.legal().iter().map(|&a| Some(a)).collect();
    if mine != legal {
        log!("the rules disagree with the referee's legal actions; playing the heuristic");
        return fallback(act);
    }
    let budget = budget_ms(opts, act, inc);
    let max_iterations = match opts.level {
        Some(l) => LEVELS[l - 1],
        None => u64::MAX,
    };
    if budget < 1.0 {
        return fallback(act);
    }
    let params = Params {
        max_iterations,
        deadline: Some(started + Duration::from_micros((budget * 1000.0) as u64)),
        seed: decision_seed(opts.seed, t),
        ..Params::default()
    };
    let out = search(&tp, &params);
    if opts.verbose {
        log!(
            "{} iterations in {} ms: {:?}",
            out.iterations,
            started.elapsed().as_millis(),
            out.stats
        );
    }
    legal
        .iter()
        .position(|&a| a == Some(out.action))
        .unwrap_or(0)
}

/// The heuristic's choice, from the act alone.
fn fallback(act: &Value) -> usize {
    let obs = get(act, "observation").unwrap_or(&Value::Nil);
    let mut s = State::empty(Default::default());
    s.total = get_int(obs, "total").unwrap_or(0) as i32;
    s.owes = get_int(obs, "owes").unwrap_or(1).clamp(1, 2) as u8;
    s.alive = get_array(obs, "in_game")
        .map_or(2, |a| {
            a.iter().filter(|b| b.as_bool() == Some(true)).count()
        })
        .min(MAX_SEATS);
    let legal = get_array(act, "legal").unwrap_or(&[]);
    let mut best = 0;
    let mut best_score = i32::MIN;
    for (i, entry) in legal.iter().enumerate() {
        let sc = action_from_legal(entry).map_or(10, |a| policy::score(&s, a));
        if sc > best_score {
            best = i;
            best_score = sc;
        }
    }
    best
}

fn send(output: &mut dyn Write, msg: &Value) -> Result<(), String> {
    protocol::write_message(output, msg).map_err(|e| format!("cannot write to stdout: {e}"))
}
