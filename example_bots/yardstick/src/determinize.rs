//! Determinization: one full game state consistent with everything the seat knows.
//!
//! The hidden cards are the deck of the edition (R2.1, R2.2) less the seat's hand,
//! the discard pile and the cards laid face up this round (every round is a fresh
//! deal of the whole deck, R3.1). They lie in the other hands (of the sizes the
//! observation gives) and in the draw pile. After a reshuffle (R4.3) the draw pile
//! holds only cards that were shuffled into it, so it is dealt from those first;
//! the rest goes to the other hands. Never more of a card than the deck holds.

use crate::game::{Card, Hand, State, CARD_KINDS, MAX_SEATS};
use crate::infer::{Beliefs, Mask, ALL};
use crate::rng::Rng;
use crate::tracker::Tracker;

/// Why the observation cannot be turned into a state (a tracking bug, or a referee
/// this bot does not understand): the bot then falls back to its heuristic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inconsistent(pub String);

/// The public part of the state (everything but the hidden cards), built once per
/// decision; [`deal`] completes a copy of it for each search iteration.
#[derive(Debug, Clone)]
pub struct Template {
    pub state: State,
    /// The hidden cards, one entry per card.
    pub hidden: Vec<Card>,
    /// Of those, how many of each card the draw pile may hold.
    pub draw_cap: [i32; CARD_KINDS],
    pub draw_size: usize,
    /// The seats whose hands are hidden, with their sizes.
    pub others: Vec<(usize, usize)>,
    /// One entry per hidden card in a hand: its seat and the kinds it may be
    /// (infer.rs), the narrowest first.
    pub slots: Vec<(usize, Mask)>,
    /// Per seat, the share of its slots a deal ignores.
    pub noise: [f64; MAX_SEATS],
}

impl Template {
    /// Take what the plays say about the other hands into the deals (infer.rs).
    /// A seat whose slots do not match its hand size keeps open slots.
    pub fn with_beliefs(mut self, b: &Beliefs) -> Template {
        let mut slots = Vec::new();
        for &(seat, size) in &self.others {
            let known = &b.slots[seat];
            for i in 0..size {
                let m = if known.len() == size { known[i] } else { ALL };
                slots.push((seat, m));
            }
            self.noise[seat] = b.noise(seat);
        }
        slots.sort_by_key(|&(_, m)| m.count_ones());
        self.slots = slots;
        self
    }
}

impl Template {
    /// Every other hand seen (`hands[seat]`, as a perfect-information control sees
    /// them; the seat's own entry is ignored): those cards leave the hidden ones, and
    /// a deal fills only the draw pile. Inconsistent if a hand does not fit what the
    /// seat knows (a card more often than it can be unseen, a wrong size).
    pub fn with_hands(mut self, hands: &[Vec<Card>]) -> Result<Template, Inconsistent> {
        let mut left = [0i32; CARD_KINDS];
        for &c in &self.hidden {
            left[c as usize] += 1;
        }
        for &(seat, size) in &self.others {
            let hand = hands
                .get(seat)
                .ok_or_else(|| Inconsistent(format!("no hand for seat {seat}")))?;
            if hand.len() != size {
                return Err(Inconsistent(format!(
                    "seat {seat}: {} cards shown, {size} held",
                    hand.len()
                )));
            }
            for &c in hand {
                left[c as usize] -= 1;
                if left[c as usize] < 0 {
                    return Err(Inconsistent(format!(
                        "seat {seat}: a card that cannot be there"
                    )));
                }
                self.state.hands[seat].push(c);
            }
        }
        self.hidden.clear();
        for (c, &k) in left.iter().enumerate() {
            for _ in 0..k {
                self.hidden.push(c as Card);
            }
            self.draw_cap[c] = self.draw_cap[c].min(k);
        }
        self.others.clear();
        self.slots.clear();
        self.state.refresh_legal();
        Ok(self)
    }
}

fn open_slots(others: &[(usize, usize)]) -> Vec<(usize, Mask)> {
    others
        .iter()
        .flat_map(|&(seat, size)| std::iter::repeat_n((seat, ALL), size))
        .collect()
}

pub fn template(t: &Tracker) -> Result<Template, Inconsistent> {
    let o = &t.obs;
    let n = t.cfg.players;
    if o.hand_sizes.len() != n || o.in_game.len() != n || o.in_round.len() != n {
        return Err(Inconsistent("per-seat lists of the wrong length".into()));
    }
    if o.hand.len() > 4 || o.hand_sizes.iter().any(|&h| h > 4) {
        return Err(Inconsistent("a hand of more than four cards".into()));
    }
    let unseen = t.unseen();
    if unseen.iter().any(|&u| u < 0) {
        return Err(Inconsistent(format!(
            "more cards seen than the deck holds: {unseen:?}"
        )));
    }
    let mut hidden = Vec::with_capacity(112);
    for (c, &k) in unseen.iter().enumerate() {
        for _ in 0..k {
            hidden.push(c as Card);
        }
    }
    let mut others = Vec::new();
    let mut in_hands = 0;
    for s in 0..n {
        if s != t.seat && o.hand_sizes[s] > 0 {
            others.push((s, o.hand_sizes[s]));
            in_hands += o.hand_sizes[s];
        }
    }
    if in_hands + o.draw_size != hidden.len() {
        return Err(Inconsistent(format!(
            "{} hidden cards for {} in hands and {} in the draw pile",
            hidden.len(),
            in_hands,
            o.draw_size
        )));
    }
    let mut draw_cap = unseen;
    if let Some(k) = t.reshuffled {
        for c in 0..CARD_KINDS {
            draw_cap[c] = draw_cap[c].min(k[c] as i32);
        }
        if draw_cap.iter().sum::<i32>() < o.draw_size as i32 {
            // Cannot happen with the rules as tracked; deal from all hidden cards.
            draw_cap = unseen;
        }
    }

    let mut s = State::empty(t.cfg);
    s.hands = [Hand::default(); MAX_SEATS];
    for &c in &o.hand {
        s.hands[t.seat].push(c);
    }
    s.discard = o.discard.clone();
    s.total = o.total;
    s.direction = if o.direction < 0 { -1 } else { 1 };
    for i in 0..n {
        s.in_game[i] = o.in_game[i];
        s.in_round[i] = o.in_round[i];
        s.places[i] = if o.in_game[i] { 0 } else { t.places[i].max(1) };
    }
    s.alive = o.in_game.iter().filter(|&&b| b).count();
    s.round_alive = o.in_round.iter().filter(|&&b| b).count();
    if let Some(tk) = &o.tokens {
        for (i, &v) in tk.iter().enumerate().take(n) {
            s.tokens[i] = v;
        }
    }
    if let Some(sc) = &o.scores {
        for (i, &v) in sc.iter().enumerate().take(n) {
            s.scores[i] = v;
        }
    }
    s.round = o.round;
    s.starter = t.starter;
    s.plays = o.plays;
    s.current = t.seat;
    s.owes = o.owes;
    s.tens_used = t.tens_used;
    s.refresh_legal();
    Ok(Template {
        state: s,
        hidden,
        draw_cap,
        draw_size: o.draw_size,
        slots: open_slots(&others),
        others,
        noise: [0.0; MAX_SEATS],
    })
}

/// One determinization: the template's state with the hidden cards dealt at random.
pub fn deal(tp: &Template, rng: &mut Rng, scratch: &mut Vec<Card>) -> State {
    let mut s = tp.state.clone();
    if tp.hidden.is_empty() {
        return s; // nothing hidden (a full-information template)
    }
    let mut rest = [0u32; CARD_KINDS];
    for &c in &tp.hidden {
        rest[c as usize] += 1;
    }
    s.draw.clear();
    let capped = (0..CARD_KINDS).any(|k| (tp.draw_cap[k].max(0) as u32) < rest[k]);
    if capped {
        // After a reshuffle the draw pile may hold only reshuffled cards: it is dealt
        // first (uniform over the allowed cards), the hands from what is left.
        scratch.clear();
        scratch.extend_from_slice(&tp.hidden);
        rng.shuffle(scratch);
        let mut cap = tp.draw_cap;
        rest = [0; CARD_KINDS];
        for &c in scratch.iter() {
            if s.draw.len() < tp.draw_size && cap[c as usize] > 0 {
                cap[c as usize] -= 1;
                s.draw.push(c);
            } else {
                rest[c as usize] += 1;
            }
        }
    }
    // The hands, slot by slot, narrowest first: a card of a kind the slot allows (at
    // random, as many of a kind as are left), or of any kind if none is left or the
    // slot is ignored (noise). Only hidden cards are dealt.
    for &(seat, mask) in &tp.slots {
        let mut m = mask;
        if m != ALL && tp.noise[seat] > 0.0 && rng.unit() < tp.noise[seat] {
            m = ALL;
        }
        let mut n: u32 = (0..CARD_KINDS)
            .filter(|&k| m >> k & 1 == 1)
            .map(|k| rest[k])
            .sum();
        if n == 0 {
            m = ALL;
            n = rest.iter().sum();
        }
        let mut r = rng.below(n as usize) as u32;
        for (k, left) in rest.iter_mut().enumerate() {
            if m >> k & 1 == 0 || *left == 0 {
                continue;
            }
            if r < *left {
                *left -= 1;
                s.hands[seat].push(k as Card);
                break;
            }
            r -= *left;
        }
    }
    if !capped {
        // the draw pile: the cards left, shuffled
        for (k, &left) in rest.iter().enumerate() {
            for _ in 0..left {
                s.draw.push(k as Card);
            }
        }
        rng.shuffle(&mut s.draw);
    }
    s.refresh_legal();
    s
}

/// The template of what `seat` knows in a full state `s` of the simulator (for
/// self-play and the tests): its own hand and everything public; the other hands
/// and the draw pile hidden (`reshuffled`: the cards of the round's last reshuffle).
pub fn from_state(s: &State, seat: usize, reshuffled: Option<[u8; CARD_KINDS]>) -> Template {
    let mut t = s.clone();
    let mut hidden: Vec<Card> = s.draw.clone();
    let mut others = Vec::new();
    for i in 0..s.cfg.players {
        if i != seat && s.hands[i].len > 0 {
            hidden.extend_from_slice(s.hands[i].as_slice());
            others.push((i, s.hands[i].len as usize));
            t.hands[i] = Hand::default();
        }
    }
    hidden.sort_unstable();
    let mut draw_cap = [0i32; CARD_KINDS];
    for &c in &hidden {
        draw_cap[c as usize] += 1;
    }
    if let Some(k) = reshuffled {
        for c in 0..CARD_KINDS {
            draw_cap[c] = draw_cap[c].min(k[c] as i32);
        }
    }
    t.draw.clear();
    Template {
        state: t,
        hidden,
        draw_cap,
        draw_size: s.draw.len(),
        slots: open_slots(&others),
        others,
        noise: [0.0; MAX_SEATS],
    }
}
