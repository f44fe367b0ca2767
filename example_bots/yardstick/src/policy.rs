//! The playout policy: the Rust kit's one-ply heuristic (example_bots/rust/src/strategy.rs)
//! on the simulator's actions, with a little randomness so that the playouts vary.
//!
//! Every action gets a score, the highest wins: quad; an ONO 99 on a ten; when owing
//! two at a high total, an answer (Hold, Reverse with three or more in the game,
//! Play 2); number cards, the highest (the lowest when owing two at a high total);
//! escape cards, cheapest first; a bust last, with the card worth most points.

use crate::game::{
    card_points, Action, Card, Edition, State, BUST, DOUBLE_PLAY, HOLD, MAX_TOTAL, MINUS_TEN,
    ONO99, PLAY_TWO, QUAD, REVERSE,
};
use crate::rng::Rng;

const HIGH_TOTAL: i32 = 75;
/// The Python heuristic's DANGER: owing two at this total, it passes the obligation on.
const PY_DANGER: i32 = 70;

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
        return if owes_two && defending {
            300 + 20 - v
        } else {
            300 + v
        };
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

/// Which heuristic plays the playouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// The Rust kit's ([`best`]).
    Kit,
    /// example_bots/python/heuristic's ([`python_heuristic`]).
    Python,
}

/// The heuristic `kind`'s choice.
#[inline]
pub fn choose(kind: Policy, s: &State) -> Action {
    match kind {
        Policy::Kit => best(s),
        Policy::Python => python_heuristic(s),
    }
}

/// The playout policy: the heuristic, or with probability `epsilon` a random legal action.
#[inline]
pub fn playout(s: &State, rng: &mut Rng, epsilon: f64) -> Action {
    playout_with(Policy::Kit, s, rng, epsilon)
}

/// [`playout`] with the heuristic `kind`.
#[inline]
pub fn playout_with(kind: Policy, s: &State, rng: &mut Rng, epsilon: f64) -> Action {
    let legal = s.legal();
    if legal.len() == 1 {
        return legal[0];
    }
    if epsilon > 0.0 && rng.unit() < epsilon {
        return legal[rng.below(legal.len())];
    }
    choose(kind, s)
}

/// The Python heuristic's rule 5 test: whether `hand` without one `played` card
/// still holds a card playable at `total` (numbers, -10 and the zero cards; never
/// an ONO 99).
fn second_card_left(hand: &[Card], played: Card, total: i32) -> bool {
    let mut skipped = false;
    for &c in hand {
        if c == played && !skipped {
            skipped = true;
            continue;
        }
        let step = match c {
            0..=10 => c as i32,
            MINUS_TEN => -10,
            REVERSE | PLAY_TWO | HOLD | DOUBLE_PLAY => 0,
            _ => continue,
        };
        if total + step <= MAX_TOTAL {
            return true;
        }
    }
    false
}

/// The choice of `example_bots/python/heuristic` (the bot the arena measures the
/// yardstick against), rule for rule, on the simulator's actions: quad; in points,
/// when every action is a bust, the card worth most; an ONO 99 on a ten; owing two
/// at 70 or more with three or more in the game, Reverse then Play 2 (1980: Hold);
/// the highest number card that leaves a second card when owing two; the cheapest
/// escape (0, Hold, Reverse, Double Play, Play 2, -10); the lowest number.
pub fn python_heuristic(s: &State) -> Action {
    let legal = s.legal();
    if legal.contains(&QUAD) {
        return QUAD;
    }
    if legal.iter().all(|&a| a >= BUST) {
        let mut best = legal[0];
        for &a in legal {
            if card_points(a - BUST) > card_points(best - BUST) {
                best = a;
            }
        }
        return best;
    }
    let plays = |c: Card| legal.contains(&c);
    if plays(ONO99) {
        return ONO99;
    }
    let answers = if s.cfg.edition == Edition::E1980 {
        [REVERSE, HOLD]
    } else {
        [REVERSE, PLAY_TWO]
    };
    if s.owes == 2 && s.total >= PY_DANGER && s.alive > 2 {
        for c in answers {
            if plays(c) {
                return c;
            }
        }
    }
    let hand = s.hands[s.current];
    for v in (1..=10u8).rev() {
        if plays(v) && (s.owes == 1 || second_card_left(hand.as_slice(), v, s.total + v as i32)) {
            return v;
        }
    }
    for c in [0, HOLD, REVERSE, DOUBLE_PLAY, PLAY_TWO, MINUS_TEN] {
        if plays(c) {
            return c;
        }
    }
    (1..=10u8).find(|&v| plays(v)).unwrap_or(legal[0])
}
