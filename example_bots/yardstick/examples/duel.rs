//! Quick strength checks in the simulator (no processes, no clock):
//!   [MS=milliseconds a decision] cargo run --release --offline --example duel -- PLAYERS ITERATIONS GAMES [FORMAT] [EDITION]
//! One seat searches (in every seat in turn), the others play the heuristic;
//! prints the searcher's mean score (the share of opponents finished above).

use yardstick::determinize::from_state;
use yardstick::game::{Config, Edition, Format, State};
use yardstick::policy;
use yardstick::rng::Rng;
use yardstick::search::{search, Params};

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
    let edition = if a.get(4).map(String::as_str) == Some("1980") { Edition::E1980 } else { Edition::E2022 };
    let exploration: f64 = std::env::var("C").ok().map_or(0.7, |x| x.parse().unwrap());
    let epsilon: f64 = std::env::var("EPS").ok().map_or(0.1, |x| x.parse().unwrap());
    let cfg = Config { players, format, edition, ..Config::default() };
    let mut total = 0.0;
    for g in 0..games {
        let me = g % players;
        let mut rng = Rng::new(1000 + g as u64);
        let mut s = State::new_game(cfg, &mut rng);
        let mut k = 0;
        while !s.over {
            let act = if s.current == me && s.legal().len() > 1 {
                k += 1;
                let tp = if std::env::var("CHEAT").is_ok() {
                    yardstick::determinize::Template { state: s.clone(), hidden: vec![], draw_cap: [0; 17], draw_size: 0, others: vec![] }
                } else {
                    from_state(&s, me, None)
                };
                let ms: Option<u64> = std::env::var("MS").ok().map(|x| x.parse().unwrap());
                let p = Params { deadline: ms.map(|m| std::time::Instant::now() + std::time::Duration::from_millis(m)), max_iterations: iterations, seed: g as u64 * 7919 + k, exploration, epsilon, opponent_nodes: std::env::var("NOOPP").is_err(), max_depth: std::env::var("DEPTH").ok().map_or(64, |x| x.parse().unwrap()), ..Params::default() };
                search(&tp, &p).action
            } else {
                policy::best(&s)
            };
            s.apply(act, &mut rng);
        }
        let place = s.places[me] as usize;
        let above = (0..players).filter(|&o| o != me && (s.places[o] as usize) > place).count() as f64;
        let tied = (0..players).filter(|&o| o != me && (s.places[o] as usize) == place).count() as f64;
        total += (above + 0.5 * tied) / (players - 1) as f64;
    }
    let score = total / games as f64;
    let elo = -400.0 * (1.0 / score.clamp(0.001, 0.999) - 1.0).log10();
    println!("players {players} iterations {iterations} C {exploration} eps {epsilon}: score {score:.3} over {games} games (about {elo:+.0} Elo)");
}
