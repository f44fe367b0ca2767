//! What one seat knows of a game: the public record (SPEC §2.10, §7.3, §7.4) and
//! its own hand. Fed with `game_start` and with every `act` (its observation and
//! the events since the seat's previous act), it keeps what the observation alone
//! does not say:
//!
//! - the cards that went into the draw pile at the round's latest reshuffle (R4.3):
//!   the draw pile can hold no other card until the next deal;
//! - whether the seat has already played an ONO 99 this turn (R8.4);
//! - the round's starter, and the places of the seats already out.

use crate::game::{
    card_from_code, deck_counts, Action, Card, Config, Edition, Format, BUST, CARD_KINDS,
    MAX_SEATS, ONO99, QUAD,
};
use crate::infer::Beliefs;
use crate::protocol::{get, get_array, get_int, get_str, Value};

/// The public state at an act, and the seat's hand.
#[derive(Debug, Clone, Default)]
pub struct Observation {
    pub hand: Vec<Card>,
    pub total: i32,
    pub direction: i32,
    pub to_move: usize,
    pub owes: u8,
    pub hand_sizes: Vec<usize>,
    pub in_game: Vec<bool>,
    pub in_round: Vec<bool>,
    pub face_up: Vec<Vec<Card>>,
    pub draw_size: usize,
    pub discard: Vec<Card>,
    pub scores: Option<Vec<i32>>,
    pub tokens: Option<Vec<i32>>,
    pub round: u32,
    pub plays: u32,
}

fn cards(v: Option<&Value>) -> Vec<Card> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|c| c.as_str().and_then(card_from_code))
                .collect()
        })
        .unwrap_or_default()
}

fn ints(v: Option<&Value>) -> Option<Vec<i32>> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().map(|x| x.as_i64().unwrap_or(0) as i32).collect())
}

fn bools(v: Option<&Value>) -> Vec<bool> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().map(|x| x.as_bool().unwrap_or(false)).collect())
        .unwrap_or_default()
}

impl Observation {
    pub fn from_value(obs: &Value) -> Observation {
        Observation {
            hand: cards(get(obs, "hand")),
            total: get_int(obs, "total").unwrap_or(0) as i32,
            direction: get_int(obs, "direction").unwrap_or(1) as i32,
            to_move: get_int(obs, "to_move").unwrap_or(0).max(0) as usize,
            owes: get_int(obs, "owes").unwrap_or(1).clamp(1, 2) as u8,
            hand_sizes: ints(get(obs, "hand_sizes"))
                .unwrap_or_default()
                .into_iter()
                .map(|x| x.max(0) as usize)
                .collect(),
            in_game: bools(get(obs, "in_game")),
            in_round: bools(get(obs, "in_round")),
            face_up: get_array(obs, "face_up")
                .map(|a| a.iter().map(|f| cards(Some(f))).collect())
                .unwrap_or_default(),
            draw_size: get_int(obs, "draw_size").unwrap_or(0).max(0) as usize,
            discard: cards(get(obs, "discard")),
            scores: ints(get(obs, "scores")),
            tokens: ints(get(obs, "tokens")),
            round: get_int(obs, "round").unwrap_or(1).max(0) as u32,
            plays: get_int(obs, "plays").unwrap_or(0).max(0) as u32,
        }
    }
}

/// Read the rules of a game from its `game_start` (SPEC §5.2). Unknown values fall
/// back to the defaults.
pub fn config_from_game_start(msg: &Value) -> Config {
    let mut cfg = Config {
        players: get_int(msg, "players")
            .unwrap_or(2)
            .clamp(2, MAX_SEATS as i64) as usize,
        ..Config::default()
    };
    cfg.edition = match get_str(msg, "edition") {
        Some("1980") => Edition::E1980,
        _ => Edition::E2022,
    };
    cfg.format = match get_str(msg, "format") {
        Some("tokens") => Format::Tokens,
        Some("points") => Format::Points,
        _ => Format::Single,
    };
    if let Some(opts) = get(msg, "options") {
        if let Some(t) = get_int(opts, "tokens") {
            cfg.tokens = t.clamp(0, i32::MAX as i64) as i32;
        }
        if let Some(t) = get_int(opts, "target") {
            cfg.target = t.clamp(1, i32::MAX as i64) as i32;
        }
        cfg.ending_lowest = get_str(opts, "ending") == Some("lowest");
        cfg.ono_on_tens = get(opts, "ono_on_tens").and_then(Value::as_bool) == Some(true)
            && cfg.edition == Edition::E1980;
        if let Some(c) = get_int(opts, "play_cap") {
            cfg.play_cap = c.clamp(1, u32::MAX as i64) as u32;
        }
    }
    cfg
}

/// Everything a seat knows at its act.
#[derive(Debug, Clone)]
pub struct Tracker {
    pub cfg: Config,
    pub seat: usize,
    pub obs: Observation,
    /// The discard pile of the round as the events tell it (checked against the observation).
    pub discard: Vec<Card>,
    /// The cards shuffled into the draw pile at the round's latest reshuffle, if any.
    pub reshuffled: Option<[u8; CARD_KINDS]>,
    pub starter: usize,
    /// Per seat, the place of a seat already out of the game (0: still in).
    pub places: [u8; MAX_SEATS],
    /// The seat has played an ONO 99 this turn (R8.4).
    pub tens_used: bool,
    /// `owes` at the seat's previous act of this game (0 before the first).
    prev_owes: u8,
    /// What the other seats' plays say about their hands (infer.rs).
    pub beliefs: Beliefs,
    /// The total as the events tell it (before the next play).
    total: i32,
    /// The seat that owes two cards and has not played its first yet.
    owes_two: Option<usize>,
}

impl Tracker {
    pub fn new(cfg: Config, seat: usize) -> Tracker {
        Tracker {
            cfg,
            seat,
            obs: Observation::default(),
            discard: Vec::new(),
            reshuffled: None,
            starter: 0,
            places: [0; MAX_SEATS],
            tens_used: false,
            prev_owes: 0,
            beliefs: Beliefs::default(),
            total: 0,
            owes_two: None,
        }
    }

    pub fn from_game_start(msg: &Value) -> Tracker {
        let cfg = config_from_game_start(msg);
        let seat = get_int(msg, "seat")
            .unwrap_or(0)
            .clamp(0, cfg.players as i64 - 1) as usize;
        Tracker::new(cfg, seat)
    }

    /// Take in one public event (SPEC §7.4). Returns the action it records for the
    /// tens rule: the seat's own play of an ONO 99.
    pub fn event(&mut self, ev: &Value) {
        let seat = get_int(ev, "seat").unwrap_or(-1);
        match get_str(ev, "type").unwrap_or("") {
            "round_start" => {
                self.discard.clear();
                self.reshuffled = None;
                self.starter = get_int(ev, "starter").unwrap_or(0).max(0) as usize;
                self.tens_used = false;
                self.prev_owes = 0;
                self.total = 0;
                self.owes_two = None;
                let sizes: Vec<usize> = ints(get(ev, "hand_sizes"))
                    .unwrap_or_default()
                    .into_iter()
                    .map(|x| x.max(0) as usize)
                    .collect();
                self.beliefs.round_start(&sizes);
                self.beliefs.clear(self.seat);
            }
            "owes_two" => self.owes_two = usize::try_from(seat).ok(),
            "draw" => {
                if seat != self.seat as i64 {
                    let count = get_int(ev, "count").unwrap_or(0).clamp(0, 4) as usize;
                    self.beliefs
                        .draw(seat.clamp(0, MAX_SEATS as i64) as usize, count);
                }
            }
            "play" | "bust" => {
                let card = get_str(ev, "card").and_then(card_from_code);
                if let Some(c) = card {
                    self.discard.push(c);
                    let at = seat.clamp(0, MAX_SEATS as i64) as usize;
                    let owes = if self.owes_two == Some(at) { 2 } else { 1 };
                    if self.owes_two == Some(at) {
                        self.owes_two = None;
                    }
                    if at != self.seat {
                        if get_str(ev, "type") == Some("play") {
                            self.beliefs.play(at, c, self.total, owes);
                        } else {
                            self.beliefs.remove(at, c);
                        }
                    }
                }
                if let Some(t) = get_int(ev, "total") {
                    self.total = t as i32;
                }
                let mine_ono = seat == self.seat as i64 && card == Some(ONO99);
                self.tens_used = mine_ono;
            }
            "quad" => {
                self.discard.extend([ONO99; 4]);
                self.tens_used = false;
                if self.owes_two == Some(seat.clamp(0, MAX_SEATS as i64) as usize) {
                    self.owes_two = None;
                }
                self.beliefs.clear(seat.clamp(0, MAX_SEATS as i64) as usize);
            }
            "reshuffle" => {
                let mut k = [0u8; CARD_KINDS];
                for &c in &self.discard {
                    k[c as usize] += 1;
                }
                self.reshuffled = Some(k);
                self.discard.clear();
            }
            "eliminated" => {
                if (0..self.cfg.players as i64).contains(&seat) {
                    self.places[seat as usize] = get_int(ev, "place").unwrap_or(0).max(0) as u8;
                    self.beliefs.clear(seat as usize);
                }
            }
            _ => {}
        }
    }

    /// Take in an `act` message: its events, then its observation.
    pub fn act(&mut self, act: &Value) {
        if let Some(events) = get_array(act, "events") {
            for ev in events {
                self.event(ev);
            }
        }
        let obs = Observation::from_value(get(act, "observation").unwrap_or(&Value::Nil));
        // R8.4: an ONO 99 played as the first of two owed cards counts for the turn.
        self.tens_used = self.tens_used && obs.owes == 1 && self.prev_owes == 2;
        self.prev_owes = obs.owes;
        self.obs = obs;
    }

    /// The number of each card nobody can see: in the other hands or the draw pile.
    pub fn unseen(&self) -> [i32; CARD_KINDS] {
        let counts = deck_counts(self.cfg.edition);
        let mut u = [0i32; CARD_KINDS];
        for c in 0..CARD_KINDS {
            u[c] = counts[c] as i32;
        }
        for &c in self.obs.hand.iter().chain(self.obs.discard.iter()) {
            u[c as usize] -= 1;
        }
        for f in &self.obs.face_up {
            for &c in f {
                u[c as usize] -= 1;
            }
        }
        u
    }
}

/// The legal action of the wire (SPEC §7.2) as an [`Action`]; None if unknown.
pub fn action_from_legal(entry: &Value) -> Option<Action> {
    let card = get_str(entry, "card").and_then(card_from_code);
    match get_str(entry, "kind")? {
        "play" => card,
        "quad" => Some(QUAD),
        "bust" => card.map(|c| BUST + c),
        _ => None,
    }
}
