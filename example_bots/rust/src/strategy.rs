//! How the bot chooses. **This is the file to change.**
//!
//! The referee sends every legal action; the bot only picks an index into
//! `act.legal`. `protocol.rs` describes what an [`Act`] and a [`GameInfo`] hold
//! (SPEC §5.2, §5.3, §7.2, §7.3); everything else of the act is in `act.msg`.
//!
//! The heuristic (the same as the C kit's `strategy.c`): every legal action gets a
//! score; the highest wins (the first on a tie):
//!   1. `quad` (2022: discard four ONO 99) - they are dead cards otherwise.
//!   2. an ONO 99 offered as a play (1980 "ONO on tens") - also a dead card.
//!   3. when owing two cards at a high total: answer with Hold, Reverse or
//!      Play 2, passing the obligation on (R7.2, R7.5).
//!   4. number cards 1..10: the highest, pushing the total up for the next
//!      player; but when owing two at a high total, the lowest, to leave room
//!      for the second card.
//!   5. escape cards (`0`, `H`, `R`, `P2`/`DP`, `-10`), cheapest first: they
//!      are kept for when nothing else fits. -10 is the most precious.
//!   6. a bust (points format, R9.3): last of all, since busting costs 25
//!      points; it may be offered next to plays (R4.2), but is chosen only
//!      when nothing else is: throw away the card worth most points.
//!
//! Every entry of the legal list is allowed (SPEC §7.2), so "a played number
//! keeps the total <= 98" is already guaranteed by the referee.

use crate::protocol::{Act, GameInfo, Kind, Legal};

/// From this total on, the bot defends (see 3 and 4 above).
const HIGH_TOTAL: i64 = 75;

/// The bot's memory. One process usually plays many games in a row (SPEC §4.5),
/// so whatever is kept here survives from one game to the next.
#[derive(Debug, Default)]
pub struct Strategy {}

impl Strategy {
    pub fn new() -> Strategy {
        Strategy {}
    }

    /// Called at each `game_start` (`game.seat`, `game.edition`, `game.format` ...).
    pub fn game_start(&mut self, _game: &GameInfo) {
        // nothing to remember in this simple bot
    }

    /// Return an index into `act.legal`, `0 <= index < act.legal.len()`.
    pub fn choose(&mut self, game: &GameInfo, act: &Act) -> usize {
        let mut best = 0;
        let mut best_score = i64::MIN;
        for (i, action) in act.legal.iter().enumerate() {
            let s = score(game, act, action);
            if s > best_score {
                best = i;
                best_score = s;
            }
        }
        best
    }
}

/// A number card `"0"` .. `"10"`: its value. ONO 99 is not a number card.
fn number_value(card: &str) -> Option<i64> {
    if card.is_empty()
        || card.len() > 2
        || card == "99"
        || !card.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    card.parse().ok()
}

/// The card's points at the end of a points round (RULES.md, Hand scoring).
fn hand_points(card: &str) -> i64 {
    if let Some(v) = number_value(card) {
        return v;
    }
    match card {
        "99" => 20,
        "R" | "-10" | "P2" | "H" | "DP" => 15,
        _ => 0,
    }
}

/// How much an escape card is worth keeping: the lowest is spent first.
/// 0 if the card is not an escape card.
fn keep_value(card: &str) -> i64 {
    match card {
        "0" => 1,
        "H" => 2,
        "R" => 3,
        "P2" | "DP" => 4,
        "-10" => 5,
        _ => 0,
    }
}

/// How good `card` is as an answer to a Play 2 / Double Play (0: it is none).
fn answer_value(game: &GameInfo, act: &Act, card: &str) -> i64 {
    match card {
        "H" => 3,                            // 1980: a Hold does nothing else
        "R" if act.players_in_game > 2 => 2, // with two players left a Reverse is just a 0 (R6.4)
        "P2" if game.edition != "1980" => 1, // keep Play 2 if possible: it answers with two players too
        _ => 0,
    }
}

fn score(game: &GameInfo, act: &Act, action: &Legal) -> i64 {
    let defending = act.total >= HIGH_TOTAL;
    let owes_two = act.owes >= 2;
    match action.kind {
        Kind::Quad => return 1000,
        Kind::Bust => return 20 + hand_points(&action.card), // below every play (the lowest is 50)
        Kind::Other(_) => return 10, // an action kind from a later protocol version
        Kind::Play => {}
    }
    let card = action.card.as_str();
    if card == "99" {
        return 900;
    }
    let answer = answer_value(game, act, card);
    if owes_two && defending && answer > 0 {
        return 800 + answer;
    }
    if let Some(v) = number_value(card).filter(|&v| v > 0) {
        return if owes_two && defending {
            300 + (20 - v)
        } else {
            300 + v
        };
    }
    if keep_value(card) > 0 {
        return 200 - keep_value(card);
    }
    50 // a card code this bot does not know
}
