//! Inference (infer.rs): what a play says about the hand it came from, how the
//! beliefs follow plays and draws, and deals that honour them while never dealing a
//! card that cannot be there; a perfect-information template deals only the draw pile.

use yardstick::determinize::{deal, from_state};
use yardstick::game::{Config, State, CARD_KINDS, HOLD, MINUS_TEN, PLAY_TWO, REVERSE};
use yardstick::infer::{excluded, Beliefs, ALL};
use yardstick::policy;
use yardstick::rng::Rng;

fn kinds(m: u32) -> Vec<u8> {
    (0..CARD_KINDS as u8).filter(|&k| m >> k & 1 == 1).collect()
}

#[test]
fn a_play_rules_out_the_cards_a_sensible_player_would_have_played_first() {
    // a 3 at 60: no 4 to 10 (all fit under 99)
    assert_eq!(kinds(excluded(3, 60)), vec![4, 5, 6, 7, 8, 9, 10]);
    // a 3 at 90: no 4 to 8 (9 and 10 do not fit)
    assert_eq!(kinds(excluded(3, 90)), vec![4, 5, 6, 7, 8]);
    // a 10: nothing
    assert_eq!(excluded(10, 0), 0);
    // -10 at 95: no fitting number (1 to 3), no cheaper escape
    assert_eq!(
        kinds(excluded(MINUS_TEN, 95)),
        vec![0, 1, 2, 3, 12, 14, 15, 16]
    );
    // Reverse at 98: only 0 and Hold are cheaper; no number fits
    assert_eq!(kinds(excluded(REVERSE, 98)), vec![0, 15]);
    assert_eq!(kinds(excluded(HOLD, 98)), vec![0]);
    // an ONO 99 (on a ten) says nothing
    assert_eq!(excluded(11, 30), 0);
}

#[test]
fn beliefs_follow_plays_and_draws_and_forget_a_seat_that_is_not_the_model() {
    let mut b = Beliefs::default();
    b.round_start(&[4, 4]);
    b.play(1, 2, 60, 1); // seat 1 played a 2 at 60: no 3..10 in the three left
    assert_eq!(b.slots[1].len(), 3);
    assert!(b.slots[1]
        .iter()
        .all(|&m| m & (1 << 7) == 0 && m & (1 << 2) != 0));
    b.draw(1, 1);
    assert_eq!(b.slots[1].iter().filter(|&&m| m == ALL).count(), 1);
    // owing two, nothing is read but the card itself
    b.play(1, 9, 10, 2);
    assert_eq!(b.slots[1].len(), 3);
    assert_eq!(b.misses[1], 0);
    // an 8 and a 7 now: only one slot could hold either; the second play misses
    b.draw(1, 1);
    b.play(1, 8, 20, 1);
    b.play(1, 7, 20, 1);
    assert_eq!(b.misses[1], 1);
    assert!(b.noise(1) > b.noise(0));
    // seat 0 untouched
    assert_eq!(b.slots[0], vec![ALL; 4]);
}

#[test]
fn deals_honour_the_beliefs_and_hold_only_cards_that_can_be_there() {
    let mut rng = Rng::new(3);
    let s = State::new_game(
        Config {
            players: 2,
            ..Config::default()
        },
        &mut rng,
    );
    let mut b = Beliefs::default();
    b.round_start(&[4, 4]);
    // seat 1's three old cards are escapes or small numbers: no 3..10
    for m in b.slots[1].iter_mut().take(3) {
        *m &= !excluded(2, 60);
    }
    let tp = from_state(&s, 0, None).with_beliefs(&b);
    let mut scratch = Vec::new();
    let mut free = 0;
    for _ in 0..500 {
        let d = deal(&tp, &mut rng, &mut scratch);
        let high = d.hands[1]
            .as_slice()
            .iter()
            .filter(|&&c| (3..=10).contains(&c))
            .count();
        assert!(high <= 4);
        if high <= 1 {
            free += 1;
        }
        let mut all: Vec<u8> = d.hands[1].as_slice().to_vec();
        all.extend_from_slice(&d.draw);
        let mut want: Vec<u8> = s.hands[1].as_slice().to_vec();
        want.extend_from_slice(&s.draw);
        all.sort_unstable();
        want.sort_unstable();
        assert_eq!(all, want, "the hidden cards, each exactly once");
    }
    // three narrowed slots: at most one high card but for the 5% noise
    assert!(free > 400, "{free} of 500 deals honoured the beliefs");
}

#[test]
fn a_perfect_information_template_deals_only_the_draw_pile() {
    let mut rng = Rng::new(8);
    let mut s = State::new_game(
        Config {
            players: 3,
            ..Config::default()
        },
        &mut rng,
    );
    for _ in 0..4 {
        let a = policy::best(&s);
        s.apply(a, &mut rng);
    }
    let hands: Vec<Vec<u8>> = s.hands.iter().map(|h| h.as_slice().to_vec()).collect();
    let tp = from_state(&s, s.current, None).with_hands(&hands).unwrap();
    let mut scratch = Vec::new();
    for _ in 0..50 {
        let d = deal(&tp, &mut rng, &mut scratch);
        for i in 0..3 {
            assert_eq!(d.hands[i].sorted(), s.hands[i].sorted());
        }
        let (mut x, mut y) = (d.draw.clone(), s.draw.clone());
        x.sort_unstable();
        y.sort_unstable();
        assert_eq!(x, y);
    }
    // a hand that cannot be there is refused
    let mut wrong = hands.clone();
    let other = (s.current + 1) % 3;
    wrong[other] = vec![PLAY_TWO; 4];
    let extra = 11 - s.discard.iter().filter(|&&c| c == PLAY_TWO).count();
    if extra < 4 * 3 {
        wrong[(s.current + 2) % 3] = vec![PLAY_TWO; 4];
        wrong[other] = vec![PLAY_TWO; 4];
    }
    assert!(from_state(&s, s.current, None).with_hands(&wrong).is_err() || extra >= 8);
}
