//! Inference: what the other seats' plays say about the cards they still hold.
//!
//! A sensible ONO 99 player (the kits' heuristics, and most bots written from the
//! rules) plays its highest number card that fits and spends its escape cards
//! cheapest first (0, Hold, Reverse, Double Play, Play 2, -10). So a seat that,
//! owing one card at total T, played the number v holds no number above v that
//! fits under 99; a seat that played an escape holds no number that fits and no
//! cheaper escape. Such a seat's hand is far from the uniform sample of the unseen
//! cards: a 2 played at 60 says the other three cards are escapes.
//!
//! Each hidden hand is kept as slots, one per card, each with the set of card
//! kinds it may hold. A play narrows every slot of the hand it came from (the hand
//! at that decision), then removes one slot that allows the card played (the one
//! that allows fewest kinds: the weaker beliefs are kept); a draw adds a slot that
//! allows every kind. A play that no slot allows shows that the seat does not
//! play like the model: its slots are reset, and the deals ignore its slots more
//! often from then on (`noise`). Nothing here is ever certain: the deals honour a
//! slot only with probability 1 - `noise` (determinize.rs), and never deal a card
//! that cannot be there, whatever the slots say.

use crate::game::{Card, DOUBLE_PLAY, HOLD, MAX_SEATS, MAX_TOTAL, MINUS_TEN, PLAY_TWO, REVERSE};

/// A set of card kinds (bit k: card k).
pub type Mask = u32;
pub const ALL: Mask = (1 << crate::game::CARD_KINDS) - 1;

/// The escape cards, cheapest to give up first (the heuristics' order).
const SPEND_ORDER: [Card; 6] = [0, HOLD, REVERSE, DOUBLE_PLAY, PLAY_TWO, MINUS_TEN];

/// The share of slots the deals ignore for a seat that has always played as modelled.
pub const BASE_NOISE: f64 = 0.05;

/// The kinds a sensible player would have played before `card`, owing one card at
/// `total`: they are not in its hand. Empty when the play says nothing.
pub fn excluded(card: Card, total: i32) -> Mask {
    let fits = |w: Card| total + w as i32 <= MAX_TOTAL;
    let mut x: Mask = 0;
    if (1..=10).contains(&card) {
        for w in card + 1..=10 {
            if fits(w) {
                x |= 1 << w;
            }
        }
        return x;
    }
    let Some(rank) = SPEND_ORDER.iter().position(|&c| c == card) else {
        return 0; // ONO 99 on a ten, or anything else: no inference
    };
    for w in 1..=10 {
        if fits(w) {
            x |= 1 << w;
        }
    }
    for &c in &SPEND_ORDER[..rank] {
        x |= 1 << c;
    }
    x
}

/// What the plays say about every hidden hand.
#[derive(Debug, Clone)]
pub struct Beliefs {
    /// Per seat, one mask per card in its hand.
    pub slots: [Vec<Mask>; MAX_SEATS],
    /// Per seat, the plays that no slot allowed (the seat is not the model).
    pub misses: [u32; MAX_SEATS],
}

impl Default for Beliefs {
    fn default() -> Self {
        Beliefs {
            slots: Default::default(),
            misses: [0; MAX_SEATS],
        }
    }
}

impl Beliefs {
    /// A new round: every hand freshly dealt.
    pub fn round_start(&mut self, hand_sizes: &[usize]) {
        for (seat, slots) in self.slots.iter_mut().enumerate() {
            slots.clear();
            let n = hand_sizes.get(seat).copied().unwrap_or(0);
            slots.resize(n.min(4), ALL);
        }
    }

    /// `seat` played `card` owing `owes` cards at `total` (before the play).
    pub fn play(&mut self, seat: usize, card: Card, total: i32, owes: u8) {
        if seat >= MAX_SEATS {
            return;
        }
        // Owing two, the heuristics keep a second card back and answer at high
        // totals: too many cases to read; only the card itself is taken out.
        let x = if owes == 1 { excluded(card, total) } else { 0 };
        let slots = &mut self.slots[seat];
        for m in slots.iter_mut() {
            *m &= !x;
        }
        self.remove(seat, card);
    }

    /// `seat` laid `card` down without a choice the model reads (a bust).
    pub fn remove(&mut self, seat: usize, card: Card) {
        if seat >= MAX_SEATS {
            return;
        }
        let slots = &mut self.slots[seat];
        let bit = 1 << card;
        let pick = slots
            .iter()
            .enumerate()
            .filter(|(_, &m)| m & bit != 0)
            .min_by_key(|(_, &m)| m.count_ones())
            .map(|(i, _)| i);
        match pick {
            Some(i) => {
                slots.swap_remove(i);
            }
            None => {
                // not the model: forget what we thought of this hand
                self.misses[seat] += 1;
                for m in slots.iter_mut() {
                    *m = ALL;
                }
                slots.pop();
            }
        }
    }

    /// `seat` drew `count` cards (or laid `count` cards down when negative).
    pub fn draw(&mut self, seat: usize, count: usize) {
        if seat < MAX_SEATS {
            for _ in 0..count {
                if self.slots[seat].len() < 4 {
                    self.slots[seat].push(ALL);
                }
            }
        }
    }

    /// `seat` discarded its four ONO 99 (R6.3), or left the game: no cards known.
    pub fn clear(&mut self, seat: usize) {
        if seat < MAX_SEATS {
            self.slots[seat].clear();
        }
    }

    /// Make `seat`'s slots match a hand of `size` cards (drop the oldest beliefs
    /// if there are too many, add open slots if too few).
    pub fn resize(&mut self, seat: usize, size: usize) {
        if seat < MAX_SEATS {
            let slots = &mut self.slots[seat];
            if slots.len() > size {
                slots.clear();
            }
            slots.resize(size.min(4), ALL);
        }
    }

    /// The share of `seat`'s slots a deal ignores.
    pub fn noise(&self, seat: usize) -> f64 {
        (BASE_NOISE + 0.3 * self.misses[seat.min(MAX_SEATS - 1)] as f64).min(1.0)
    }
}
