//! The playout policy: the Rust kit's one-ply heuristic (example_bots/rust/src/strategy.rs)
//! on the simulator's actions, with a little randomness so that the playouts vary.
//!
//! Every action gets a score, the highest wins: quad; an ONO 99 on a ten; when owing
//! two at a high total, an answer (Hold, Reverse with three or more in the game,
//! Play 2); number cards, the highest (the lowest when owing two at a high total);
//! escape cards, cheapest first; a bust last, with the card worth most points.

use crate::game::{card_points, Action, State, BUST, DOUBLE_PLAY, HOLD, ONO99, PLAY_TWO, QUAD, REVERSE, MINUS_TEN};
use crate::rng::Rng;

const HIGH_TOTAL: i32 = 75;

fn keep_value(card: u8) -> i32 {
    match card {
        0 => 1,
        HOLD => 2,
        REVERSE => 3,
        PLAY_TWO | DOUBLE_PLAY => 4,
        MINUS_TEN => 5,
        _ => 0,
    }
}

/// The heuristic's score of `a` in `s` (higher is better).
#[inline]
pub fn score(s: &State, a: Action) -> i32 {
    if a == QUAD {
        return 1000;
    }
    if a >= BUST {
        return 20 + card_points(a - BUST);
    }
    if a == ONO99 {
        return 900;
    }
    let defending = s.total >= HIGH_TOTAL;
    let owes_two = s.owes >= 2;
    let answer = match a {
        HOLD => 3,
        REVERSE if s.alive > 2 => 2,
        PLAY_TWO => 1,
        _ => 0,
    };
    if owes_two && defending && answer > 0 {
        return 800 + answer;
    }
    if (1..=10).contains(&a) {
        let v = a as i32;
        return if owes_two && defending { 300 + 20 - v } else { 300 + v };
    }
    let k = keep_value(a);
    if k > 0 {
        return 200 - k;
    }
    50
}

/// The heuristic's choice (the first of the best).
pub fn best(s: &State) -> Action {
    let legal = s.legal();
    let mut best = legal[0];
    let mut best_score = i32::MIN;
    for &a in legal {
        let sc = score(s, a);
        if sc > best_score {
            best = a;
            best_score = sc;
        }
    }
    best
}

/// The playout policy: the heuristic, or with probability `epsilon` a random legal action.
#[inline]
pub fn playout(s: &State, rng: &mut Rng, epsilon: f64) -> Action {
    let legal = s.legal();
    if legal.len() == 1 {
        return legal[0];
    }
    if rng.unit() < epsilon {
        return legal[rng.below(legal.len())];
    }
    best(s)
}
