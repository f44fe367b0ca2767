//! The golden transcripts of protocol/vectors/games/ (worked examples of every rule,
//! SPEC §12), fed act by act to one tracker per seat, as the bot receives them:
//!
//! - the tracker's discard pile, read from the events, is the observation's;
//! - the state built from what the seat knows offers exactly the act's legal
//!   actions, in the act's order (the simulator and the tracking of the tens rule);
//! - every determinization deals exactly the cards that can be there: the seat's own
//!   hand, every other hand at its size, the draw pile at its size, after a
//!   reshuffle only from the reshuffled cards, and over all hands and piles never
//!   more of a card than the deck holds (nor fewer).

mod common;

use std::fs;

use common::parse_json;
use yardstick::determinize::{deal, template};
use yardstick::game::{deck_counts, CARD_KINDS};
use yardstick::infer::ALL;
use yardstick::protocol::{get, get_array, get_int, Value};
use yardstick::rng::Rng;
use yardstick::tracker::{action_from_legal, Tracker};

/// The golden transcripts, and the longer games of tests/fixtures/ (written by
/// tests/fixtures/transcripts.py with the same code: acts after reshuffles).
fn transcripts() -> Vec<(String, Vec<Value>)> {
    let mut out = Vec::new();
    let own = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut paths = Vec::new();
    for dir in [common::vectors_dir().join("games"), own] {
        let mut found: Vec<_> = fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        found.sort();
        paths.extend(found);
    }
    for p in paths {
        let text = fs::read_to_string(&p).unwrap();
        let lines = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| parse_json(l).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
            .collect();
        out.push((p.file_name().unwrap().to_string_lossy().into_owned(), lines));
    }
    assert!(out.len() >= 23, "only {} transcripts", out.len());
    out
}

#[test]
fn every_transcript_agrees_with_the_tracker_the_rules_and_the_deals() {
    let mut rng = Rng::new(7);
    let mut scratch = Vec::new();
    let mut acts = 0;
    let mut after_reshuffle = 0;
    let mut narrowed = 0;
    for (name, lines) in transcripts() {
        let starts = get_array(&lines[1], "game_start").expect("line 2: game_start");
        let mut trackers: Vec<Tracker> = starts.iter().map(Tracker::from_game_start).collect();
        for line in &lines[2..] {
            let Some(act) = get(line, "act") else {
                continue;
            };
            let seat = get_int(line, "seat").unwrap() as usize;
            let step = get_int(line, "step").unwrap();
            let t = &mut trackers[seat];
            t.act(act);
            let at = format!("{name} step {step} (seat {seat})");
            assert_eq!(t.discard, t.obs.discard, "{at}: the discard pile");
            let tp = template(t)
                .unwrap_or_else(|e| panic!("{at}: {e:?}"))
                .with_beliefs(&t.beliefs);
            narrowed += tp.slots.iter().filter(|&&(_, m)| m != ALL).count();
            let want: Vec<Option<u8>> = get_array(act, "legal")
                .unwrap()
                .iter()
                .map(action_from_legal)
                .collect();
            let mine: Vec<Option<u8>> = tp.state.legal().iter().map(|&a| Some(a)).collect();
            assert_eq!(mine, want, "{at}: the legal actions");
            acts += 1;
            if t.reshuffled.is_some() {
                after_reshuffle += 1;
            }
            let deck = deck_counts(t.cfg.edition);
            for _ in 0..20 {
                let s = deal(&tp, &mut rng, &mut scratch);
                let mut count = [0i32; CARD_KINDS];
                for i in 0..t.cfg.players {
                    let hand = s.hands[i].sorted();
                    assert_eq!(
                        hand.len(),
                        t.obs.hand_sizes[i],
                        "{at}: hand size of seat {i}"
                    );
                    if i == seat {
                        assert_eq!(hand, t.obs.hand, "{at}: the seat's own hand");
                    }
                    hand.iter().for_each(|&c| count[c as usize] += 1);
                    t.obs.face_up[i]
                        .iter()
                        .for_each(|&c| count[c as usize] += 1);
                }
                assert_eq!(s.draw.len(), t.obs.draw_size, "{at}: draw size");
                let mut in_draw = [0i32; CARD_KINDS];
                s.draw.iter().for_each(|&c| in_draw[c as usize] += 1);
                if let Some(k) = t.reshuffled {
                    for c in 0..CARD_KINDS {
                        assert!(
                            in_draw[c] <= k[c] as i32,
                            "{at}: card {c} was not reshuffled"
                        );
                    }
                }
                s.discard.iter().for_each(|&c| count[c as usize] += 1);
                for c in 0..CARD_KINDS {
                    assert_eq!(count[c] + in_draw[c], deck[c] as i32, "{at}: card {c}");
                }
                assert_eq!(
                    s.legal(),
                    tp.state.legal(),
                    "{at}: the deal changed the legal actions"
                );
            }
        }
    }
    assert!(acts > 500, "{acts} acts");
    assert!(after_reshuffle > 0, "no act after a reshuffle");
    // the deals above read the other seats' plays (infer.rs), and still never dealt
    // a card that cannot be there
    assert!(
        narrowed > 100,
        "only {narrowed} slots narrowed by inference"
    );
}
