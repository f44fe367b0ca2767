//! Quick strength checks in the simulator (no processes, no clock):
//!   [ENV] cargo run --release --offline --example duel -- PLAYERS ITERATIONS GAMES [FORMAT] [EDITION]
//! One seat searches (in every seat in turn), the others play a heuristic; prints
//! the searcher's mean score (the share of opponents finished above it, ties half)
//! and the Elo it gives, with a 95% interval from the games' standard error.
//!
//! ENV: OPP=kit|py the other seats' heuristic (default py: example_bots/python/heuristic,
//! the one `arena sprt` measures against); POL=kit|py the playouts' heuristic (default
//! the bot's); INFER=1 deals by what the other seats' plays say (infer.rs); CHEAT=1
//! the searcher sees every hand and the draw pile; MS=milliseconds a decision instead
//! of a playout count; C, EPS, DEPTH, NOOPP=1 the search's parameters; SEED the first deal;
//! MO=1 multiple-observer ISMCTS (mo_search.rs: a tree per seat).

use yardstick::determinize::{from_state, Template};
use yardstick::game::{Config, Edition, Format, State, BUST, QUAD};
use yardstick::infer::Beliefs;
use yardstick::mo_search;
use yardstick::policy::{self, Policy};
use yardstick::rng::Rng;
use yardstick::search::{search, Params};

fn env<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok().and_then(|x| x.parse().ok())
}

fn heuristic(name: &str) -> Policy {
    if name == "kit" {
        Policy::Kit
    } else {
        Policy::Python
    }
}

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let players: usize = a.first().map_or(2, |x| x.parse().unwrap());
    let iterations: u64 = a.get(1).map_or(200, |x| x.parse().unwrap());
    let games: usize = a.get(2).map_or(100, |x| x.parse().unwrap());
    let format = match a.get(3).map(String::as_str) {
        Some("tokens") => Format::Tokens,
        Some("points") => Format::Points,
        _ => Format::Single,
    };
    let edition = if a.get(4).map(String::as_str) == Some("1980") {
        Edition::E1980
    } else {
        Edition::E2022
    };
    let defaults = Params::default();
    let opp = heuristic(&std::env::var("OPP").unwrap_or_default());
    let pol = std::env::var("POL").map_or(defaults.policy, |x| heuristic(&x));
    let infer = env::<u8>("INFER").is_some_and(|x| x != 0);
    let cheat = std::env::var("CHEAT").is_ok();
    let ms: Option<u64> = env("MS");
    let mo = env::<u8>("MO").is_some_and(|x| x != 0);
    let first: u64 = env("SEED").unwrap_or(1000);
    let cfg = Config {
        players,
        format,
        edition,
        ..Config::default()
    };
    let mut scores = Vec::with_capacity(games);
    for g in 0..games {
        let me = g % players;
        let mut rng = Rng::new(first + (g / players) as u64);
        let mut s = State::new_game(cfg, &mut rng);
        let mut beliefs = Beliefs::default();
        beliefs.round_start(&s.hands.iter().map(|h| h.len as usize).collect::<Vec<_>>());
        let mut k = 0;
        while !s.over {
            let seat = s.current;
            let act = if seat == me && s.legal().len() > 1 {
                k += 1;
                let tp = if std::env::var("CHEAT").as_deref() == Ok("hands") {
                    // every hand seen, the draw pile's order not
                    let hands: Vec<Vec<u8>> =
                        s.hands.iter().map(|h| h.as_slice().to_vec()).collect();
                    from_state(&s, me, None)
                        .with_hands(&hands)
                        .expect("the true hands fit")
                } else if cheat {
                    Template {
                        state: s.clone(),
                        hidden: vec![],
                        draw_cap: [0; 17],
                        draw_size: 0,
                        others: vec![],
                        slots: vec![],
                        noise: [0.0; 6],
                    }
                } else if infer {
                    from_state(&s, me, None).with_beliefs(&beliefs)
                } else {
                    from_state(&s, me, None)
                };
                let p = Params {
                    deadline: ms
                        .map(|m| std::time::Instant::now() + std::time::Duration::from_millis(m)),
                    max_iterations: iterations,
                    seed: g as u64 * 7919 + k,
                    exploration: env("C").unwrap_or(defaults.exploration),
                    epsilon: env("EPS").unwrap_or(defaults.epsilon),
                    opponent_nodes: std::env::var("NOOPP").is_err(),
                    max_depth: env("DEPTH").unwrap_or(defaults.max_depth),
                    policy: pol,
                    ..defaults.clone()
                };
                if mo {
                    mo_search::search(&tp, &p).action
                } else {
                    search(&tp, &p).action
                }
            } else {
                policy::choose(opp, &s)
            };
            let (total, owes, round) = (s.total, s.owes, s.round);
            s.apply(act, &mut rng);
            // what every seat saw: the play, then the draws (infer.rs)
            if s.round != round {
                beliefs.round_start(&s.hands.iter().map(|h| h.len as usize).collect::<Vec<_>>());
                continue;
            }
            if act == QUAD {
                beliefs.clear(seat);
            } else if act >= BUST {
                beliefs.remove(seat, act - BUST);
            } else {
                beliefs.play(seat, act, total, owes);
            }
            for o in 0..players {
                beliefs.resize(o, s.hands[o].len as usize);
            }
        }
        let place = s.places[me] as usize;
        let above = (0..players)
            .filter(|&o| o != me && (s.places[o] as usize) > place)
            .count() as f64;
        let tied = (0..players)
            .filter(|&o| o != me && (s.places[o] as usize) == place)
            .count() as f64;
        scores.push((above + 0.5 * tied) / (players - 1) as f64);
    }
    let n = scores.len() as f64;
    let mean = scores.iter().sum::<f64>() / n;
    let sd = (scores.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0)).sqrt();
    let se = sd / n.sqrt();
    let elo = |x: f64| -400.0 * (1.0 / x.clamp(0.001, 0.999) - 1.0).log10();
    println!(
        "players {players} iterations {iterations} opp {opp:?} pol {pol:?} infer {infer} cheat {cheat} mo {mo}: \
         score {mean:.3} over {games} games: {:+.0} Elo [{:+.0}, {:+.0}]",
        elo(mean),
        elo(mean - 1.96 * se),
        elo(mean + 1.96 * se)
    );
}
