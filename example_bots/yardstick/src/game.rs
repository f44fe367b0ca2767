//! The rules of ONO 99 (protocol/SPEC.md §2, the rule ids of protocol/RULES.md):
//! a full-information game state that the search deals (determinizes) and plays
//! out. It follows the referee's engine step by step: the legal actions in the
//! referee's order (SPEC §7.2), draws and reshuffles (R4.3), Play 2 / Double Play
//! (R7), Reverse with two left (R6.4), quad (R6.3), ONO on tens (R8.4), the three
//! formats (R9) and the play cap (R5.4). The tests replay the golden transcripts
//! of protocol/vectors/games/ through it.

use crate::rng::Rng;

/// What shuffles the piles: the search's [`Rng`]; the tests replay the referee's
/// recorded shuffles through it.
pub trait Shuffler {
    fn shuffle_cards(&mut self, cards: &mut Vec<Card>);
}

impl Shuffler for Rng {
    #[inline]
    fn shuffle_cards(&mut self, cards: &mut Vec<Card>) {
        self.shuffle(cards);
    }
}

/// Cards, numbered as the referee numbers them: 0..=10 are the number cards.
pub type Card = u8;
pub const ONO99: Card = 11;
pub const REVERSE: Card = 12;
pub const MINUS_TEN: Card = 13;
pub const PLAY_TWO: Card = 14;
pub const HOLD: Card = 15;
pub const DOUBLE_PLAY: Card = 16;
pub const CARD_KINDS: usize = 17;

pub const MAX_TOTAL: i32 = 98;
pub const HAND_SIZE: usize = 4;
pub const MAX_SEATS: usize = 6;
const OUT_OF_ROUND_POINTS: i32 = 25;

/// Card codes on the wire (SPEC §7.1), indexed by card.
pub const CODES: [&str; CARD_KINDS] = [
    "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "99", "R", "-10", "P2", "H", "DP",
];

pub fn card_from_code(code: &str) -> Option<Card> {
    CODES.iter().position(|&c| c == code).map(|i| i as Card)
}

/// Points of a card left in hand at the end of a points round (R9.3).
#[inline]
pub fn card_points(card: Card) -> i32 {
    if card <= 10 {
        card as i32
    } else if card == ONO99 {
        20
    } else {
        15
    }
}

/// An action: `play c` is `c`, `quad` is [`QUAD`], `bust c` is `BUST + c`.
pub type Action = u8;
pub const QUAD: Action = 17;
pub const BUST: Action = 32;

pub fn action_name(a: Action) -> String {
    if a == QUAD {
        "quad".into()
    } else if a >= BUST {
        format!("bust {}", CODES[(a - BUST) as usize])
    } else {
        format!("play {}", CODES[a as usize])
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edition {
    E2022,
    E1980,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Single,
    Tokens,
    Points,
}

/// The number of each card in a deck (R2.1, R2.2).
pub fn deck_counts(edition: Edition) -> [u8; CARD_KINDS] {
    match edition {
        Edition::E2022 => [8, 6, 6, 6, 6, 6, 6, 6, 6, 6, 10, 10, 10, 10, 10, 0, 0],
        Edition::E1980 => [0, 0, 3, 3, 3, 3, 3, 3, 3, 3, 10, 4, 6, 4, 0, 4, 2],
    }
}

/// The rules of one game: edition, format and options (SPEC §5.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    pub players: usize,
    pub edition: Edition,
    pub format: Format,
    pub tokens: i32,
    pub target: i32,
    pub ending_lowest: bool,
    pub ono_on_tens: bool,
    pub play_cap: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            players: 2,
            edition: Edition::E2022,
            format: Format::Single,
            tokens: 3,
            target: 100,
            ending_lowest: false,
            ono_on_tens: false,
            play_cap: 5000,
        }
    }
}

/// A hand of at most four cards, unordered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Hand {
    pub cards: [Card; HAND_SIZE],
    pub len: u8,
}

impl Hand {
    #[inline]
    pub fn as_slice(&self) -> &[Card] {
        &self.cards[..self.len as usize]
    }
    #[inline]
    pub fn push(&mut self, c: Card) {
        debug_assert!((self.len as usize) < HAND_SIZE);
        self.cards[self.len as usize] = c;
        self.len += 1;
    }
    #[inline]
    pub fn remove(&mut self, c: Card) {
        let n = self.len as usize;
        let i = self.cards[..n]
            .iter()
            .position(|&x| x == c)
            .expect("the card is in the hand");
        self.cards[i] = self.cards[n - 1];
        self.len -= 1;
    }
    pub fn sorted(&self) -> Vec<Card> {
        let mut v = self.as_slice().to_vec();
        v.sort_unstable();
        v
    }
}

/// The full state of a game (every hand, the order of the draw pile).
#[derive(Debug, Clone)]
pub struct State {
    pub cfg: Config,
    pub hands: [Hand; MAX_SEATS],
    /// The draw pile; its top is the last entry.
    pub draw: Vec<Card>,
    /// The discard pile, bottom first.
    pub discard: Vec<Card>,
    pub total: i32,
    pub direction: i32,
    pub in_game: [bool; MAX_SEATS],
    pub in_round: [bool; MAX_SEATS],
    pub alive: usize,
    pub round_alive: usize,
    /// Per seat, its place once decided (0 while still open).
    pub places: [u8; MAX_SEATS],
    pub tokens: [i32; MAX_SEATS],
    pub scores: [i32; MAX_SEATS],
    pub round: u32,
    pub starter: usize,
    pub plays: u32,
    pub current: usize,
    pub owes: u8,
    pub tens_used: bool,
    pub over: bool,
    legal: [Action; 12],
    nlegal: u8,
}

impl State {
    /// A state with no cards dealt yet (fill `hands`, `draw` … then call [`State::settle`]).
    pub fn empty(cfg: Config) -> State {
        let mut in_game = [false; MAX_SEATS];
        for s in in_game.iter_mut().take(cfg.players) {
            *s = true;
        }
        State {
            cfg,
            hands: [Hand::default(); MAX_SEATS],
            draw: Vec::with_capacity(112),
            discard: Vec::with_capacity(112),
            total: 0,
            direction: 1,
            in_game,
            in_round: in_game,
            alive: cfg.players,
            round_alive: cfg.players,
            places: [0; MAX_SEATS],
            tokens: [cfg.tokens; MAX_SEATS],
            scores: [0; MAX_SEATS],
            round: 0,
            starter: 0,
            plays: 0,
            current: 0,
            owes: 1,
            tens_used: false,
            over: false,
            legal: [0; 12],
            nlegal: 0,
        }
    }

    /// A new game, dealt with `rng` (seat 0 starts round 1, R3.2).
    pub fn new_game(cfg: Config, rng: &mut impl Shuffler) -> State {
        let mut s = State::empty(cfg);
        s.start_round(rng);
        s.settle(rng);
        s
    }

    #[inline]
    pub fn legal(&self) -> &[Action] {
        &self.legal[..self.nlegal as usize]
    }

    /// Recompute the legal actions of the seat to move (after editing the state by hand).
    pub fn refresh_legal(&mut self) -> usize {
        self.compute_legal()
    }

    /// Play `action` (one of [`State::legal`]) and resolve everything up to the next
    /// decision or the end of the game.
    pub fn apply(&mut self, action: Action, rng: &mut impl Shuffler) {
        debug_assert!(self.legal().contains(&action), "{}", action_name(action));
        if action == QUAD {
            self.quad(rng);
        } else if action >= BUST {
            self.bust(action - BUST, rng);
        } else {
            self.play(action, rng);
        }
        self.settle(rng);
    }

    /// Resolve the seats that cannot play, up to the next decision or the end.
    pub fn settle(&mut self, rng: &mut impl Shuffler) {
        while !self.over {
            if self.compute_legal() > 0 {
                return;
            }
            self.cannot_play(self.current, rng);
        }
        self.nlegal = 0;
    }

    fn compute_legal(&mut self) -> usize {
        let hand = self.hands[self.current];
        let mut seen = [false; CARD_KINDS];
        for &c in hand.as_slice() {
            seen[c as usize] = true;
        }
        let total = self.total;
        let mut n = 0usize;
        let mut unplayable = [0u8; 4];
        let mut nu = 0usize;
        for c in 0..CARD_KINDS as u8 {
            if !seen[c as usize] {
                continue;
            }
            if c <= 10 {
                if total + c as i32 <= MAX_TOTAL {
                    self.legal[n] = c;
                    n += 1;
                } else {
                    unplayable[nu] = c;
                    nu += 1;
                }
            } else if c == ONO99 {
                if self.cfg.ono_on_tens && !self.tens_used && total.rem_euclid(10) == 0 {
                    self.legal[n] = c;
                    n += 1;
                }
            } else if c == DOUBLE_PLAY {
                if self.owes != 2 {
                    self.legal[n] = c;
                    n += 1;
                } else {
                    unplayable[nu] = c;
                    nu += 1;
                }
            } else {
                self.legal[n] = c;
                n += 1;
            }
        }
        if self.cfg.edition == Edition::E2022
            && hand.len == 4
            && hand.as_slice().iter().all(|&c| c == ONO99)
        {
            self.legal[n] = QUAD;
            n += 1;
        }
        if self.cfg.format == Format::Points {
            for &c in &unplayable[..nu] {
                self.legal[n] = BUST + c;
                n += 1;
            }
        }
        self.nlegal = n as u8;
        n
    }

    fn start_round(&mut self, rng: &mut impl Shuffler) {
        self.round += 1;
        if self.round > 1 {
            self.starter = self.next_in_game(self.starter);
        }
        let counts = deck_counts(self.cfg.edition);
        self.draw.clear();
        for (c, &k) in counts.iter().enumerate() {
            for _ in 0..k {
                self.draw.push(c as Card);
            }
        }
        rng.shuffle_cards(&mut self.draw);
        self.discard.clear();
        self.hands = [Hand::default(); MAX_SEATS];
        self.total = 0;
        self.direction = 1;
        self.in_round = self.in_game;
        self.round_alive = self.alive;
        let n = self.cfg.players;
        for _ in 0..HAND_SIZE {
            for i in 0..n {
                let seat = (self.starter + i) % n;
                if self.in_game[seat] {
                    let c = self.draw.pop().expect("a full deck");
                    self.hands[seat].push(c);
                }
            }
        }
        self.begin_turn(self.starter, 1);
    }

    fn next_in_game(&self, seat: usize) -> usize {
        let n = self.cfg.players;
        for step in 1..=n {
            let s = (seat + step) % n;
            if self.in_game[s] {
                return s;
            }
        }
        seat
    }

    #[inline]
    fn begin_turn(&mut self, seat: usize, owes: u8) {
        self.current = seat;
        self.owes = owes;
        self.tens_used = false;
    }

    /// The seat after `seat` in the round, in the current direction (R4.4).
    pub fn next_in_round(&self, seat: usize) -> usize {
        let n = self.cfg.players as i32;
        let mut s = seat as i32;
        for _ in 0..n {
            s = (s + self.direction).rem_euclid(n);
            if self.in_round[s as usize] {
                return s as usize;
            }
        }
        seat
    }

    fn pass_turn(&mut self, seat: usize, owes: u8) {
        let next = self.next_in_round(seat);
        self.begin_turn(next, owes);
    }

    fn draw_cards(&mut self, seat: usize, count: usize, rng: &mut impl Shuffler) {
        for _ in 0..count {
            if self.draw.is_empty() {
                if self.discard.is_empty() {
                    break;
                }
                std::mem::swap(&mut self.draw, &mut self.discard);
                rng.shuffle_cards(&mut self.draw);
            }
            let c = self.draw.pop().unwrap();
            self.hands[seat].push(c);
        }
    }

    /// Count a play; true if that reached the play cap and ended the game (R5.4).
    fn count_play(&mut self) -> bool {
        self.plays += 1;
        if self.plays >= self.cfg.play_cap {
            self.finish();
            return true;
        }
        false
    }

    fn play(&mut self, card: Card, rng: &mut impl Shuffler) {
        let seat = self.current;
        self.hands[seat].remove(card);
        self.discard.push(card);
        let first_of_two = self.owes == 2;
        let mut answered = false;
        if card <= 10 {
            self.total += card as i32;
        } else if card == MINUS_TEN {
            self.total -= 10;
            if self.total < 0 && self.cfg.edition == Edition::E2022 {
                self.total = 0;
            }
        } else if card == REVERSE {
            if self.alive > 2 {
                self.direction = -self.direction;
                answered = first_of_two;
            }
        } else if card == PLAY_TWO || card == DOUBLE_PLAY {
            answered = true;
        } else if card == HOLD {
            answered = first_of_two;
        } else {
            self.tens_used = true;
        }
        self.draw_cards(seat, 1, rng);
        if self.count_play() {
            return;
        }
        if first_of_two && !answered {
            self.owes = 1;
            return;
        }
        self.pass_turn(seat, if answered { 2 } else { 1 });
    }

    fn quad(&mut self, rng: &mut impl Shuffler) {
        let seat = self.current;
        for _ in 0..HAND_SIZE {
            self.hands[seat].remove(ONO99);
            self.discard.push(ONO99);
        }
        self.draw_cards(seat, HAND_SIZE, rng);
        if self.count_play() {
            return;
        }
        if self.owes == 2 {
            self.owes = 1;
            return;
        }
        self.pass_turn(seat, 1);
    }

    fn bust(&mut self, card: Card, rng: &mut impl Shuffler) {
        let seat = self.current;
        self.hands[seat].remove(card);
        self.discard.push(card);
        self.leave_round(seat);
        let missing = HAND_SIZE - self.hands[seat].len as usize;
        self.draw_cards(seat, missing, rng);
        if self.count_play() {
            return;
        }
        if self.round_alive == 1 {
            self.end_points_round(rng);
        } else {
            self.pass_turn(seat, 1);
        }
    }

    fn leave_round(&mut self, seat: usize) {
        self.in_round[seat] = false;
        self.round_alive -= 1;
    }

    fn cannot_play(&mut self, seat: usize, rng: &mut impl Shuffler) {
        match self.cfg.format {
            Format::Single => {
                self.eliminate(seat);
                if !self.over {
                    self.pass_turn(seat, 1);
                }
            }
            Format::Tokens => {
                if self.tokens[seat] == 0 {
                    self.eliminate(seat);
                } else {
                    self.tokens[seat] -= 1;
                }
                if !self.over {
                    self.start_round(rng);
                }
            }
            Format::Points => {
                self.leave_round(seat);
                if self.round_alive == 1 {
                    self.end_points_round(rng);
                } else {
                    self.pass_turn(seat, 1);
                }
            }
        }
    }

    /// Take `seat` out of the game, ranked below everyone still in it (R5.3).
    pub fn eliminate(&mut self, seat: usize) {
        let place = self.alive as u8;
        self.out_of_game(seat);
        self.hands[seat] = Hand::default();
        self.places[seat] = place;
        if self.alive == 1 {
            self.finish();
        }
    }

    fn out_of_game(&mut self, seat: usize) {
        self.in_game[seat] = false;
        self.alive -= 1;
        if self.in_round[seat] {
            self.leave_round(seat);
        }
    }

    fn end_points_round(&mut self, rng: &mut impl Shuffler) {
        let n = self.cfg.players;
        for seat in 0..n {
            if self.in_game[seat] {
                let mut pts: i32 = self.hands[seat]
                    .as_slice()
                    .iter()
                    .map(|&c| card_points(c))
                    .sum();
                if !self.in_round[seat] {
                    pts += OUT_OF_ROUND_POINTS;
                }
                self.scores[seat] += pts;
            }
        }
        let mut alive = [0usize; MAX_SEATS];
        let mut na = 0;
        let mut reached = [0usize; MAX_SEATS];
        let mut nr = 0;
        for seat in 0..n {
            if self.in_game[seat] {
                alive[na] = seat;
                na += 1;
                if self.scores[seat] >= self.cfg.target {
                    reached[nr] = seat;
                    nr += 1;
                }
            }
        }
        if nr == 0 {
            self.start_round(rng);
        } else if self.cfg.ending_lowest || nr == na {
            let seats = alive;
            self.rank_by_score(&seats[..na], false);
            self.finish();
        } else {
            let seats = reached;
            self.rank_by_score(&seats[..nr], true);
            if self.alive == 1 {
                self.finish();
            } else {
                self.start_round(rng);
            }
        }
    }

    fn rank_by_score(&mut self, seats: &[usize], leave: bool) {
        let base = self.alive - seats.len() + 1;
        for &seat in seats {
            let better = seats
                .iter()
                .filter(|&&o| self.scores[o] < self.scores[seat])
                .count();
            self.places[seat] = (base + better) as u8;
        }
        if leave {
            for &seat in seats {
                self.out_of_game(seat);
            }
        }
    }

    fn finish(&mut self) {
        for seat in 0..self.cfg.players {
            if self.in_game[seat] && self.places[seat] == 0 {
                self.places[seat] = 1;
            }
        }
        self.over = true;
        self.nlegal = 0;
    }
}
