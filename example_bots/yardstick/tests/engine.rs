//! The simulator against the referee's own engine (arena.rules.Game): whole games
//! recorded by tests/fixtures/generate.py with every hand and the draw pile. At
//! every decision the simulator, given the referee's shuffles (every deal and
//! reshuffle), must be in the same state (every hand, the pile sizes, the total,
//! the direction, who is in the game and the round, places, tokens, scores, round,
//! starter, plays, the seat to move, what it owes, the tens rule) and offer the same
//! legal actions in the same order; and at the end the same places.

use std::fs;
use std::path::PathBuf;

use yardstick::game::{Config, Edition, Format, Shuffler, State};
use yardstick::protocol::{decode_body, get, get_array, get_int, get_str, Value};

fn ints(v: &Value) -> Vec<i64> {
    v.as_array()
        .map(|a| {
            a.iter()
                .map(|x| x.as_i64().or(x.as_bool().map(i64::from)).unwrap())
                .collect()
        })
        .unwrap_or_default()
}

fn config(v: &Value) -> Config {
    Config {
        players: get_int(v, "players").unwrap() as usize,
        edition: if get_str(v, "edition") == Some("1980") {
            Edition::E1980
        } else {
            Edition::E2022
        },
        format: match get_str(v, "format").unwrap() {
            "tokens" => Format::Tokens,
            "points" => Format::Points,
            _ => Format::Single,
        },
        tokens: get_int(v, "tokens").unwrap() as i32,
        target: get_int(v, "target").unwrap() as i32,
        ending_lowest: get_str(v, "ending") == Some("lowest"),
        ono_on_tens: get(v, "ono_on_tens").unwrap().as_bool().unwrap(),
        play_cap: get_int(v, "play_cap").unwrap() as u32,
    }
}

/// Replays the referee's recorded shuffles (each deal and reshuffle), in order.
struct Replay {
    piles: Vec<Vec<u8>>,
    next: usize,
}

impl Shuffler for Replay {
    fn shuffle_cards(&mut self, cards: &mut Vec<u8>) {
        let pile = self
            .piles
            .get(self.next)
            .expect("a recorded shuffle")
            .clone();
        self.next += 1;
        let (mut a, mut b) = (cards.clone(), pile.clone());
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(
            a, b,
            "shuffle {}: another pile than the referee's",
            self.next
        );
        *cards = pile;
    }
}

/// The differences between the simulator's state and the record (the piles by
/// their sizes: the hands show every card drawn).
fn differences(s: &State, v: &Value, cfg: Config) -> Vec<String> {
    let mut d = Vec::new();
    let hands = get_array(v, "hands").unwrap();
    for (i, h) in hands.iter().enumerate() {
        let want: Vec<u8> = ints(h).into_iter().map(|c| c as u8).collect();
        if s.hands[i].sorted() != want {
            d.push(format!("hand {i}: {:?} != {want:?}", s.hands[i].sorted()));
        }
    }
    let mut check = |name: &str, mine: i64| {
        let want = get(v, name)
            .and_then(|x| x.as_i64().or(x.as_bool().map(i64::from)))
            .unwrap();
        if mine != want {
            d.push(format!("{name}: {mine} != {want}"));
        }
    };
    check("total", s.total as i64);
    check("direction", s.direction as i64);
    check("round", s.round as i64);
    check("starter", s.starter as i64);
    check("plays", s.plays as i64);
    check("draw_size", s.draw.len() as i64);
    check("discard_size", s.discard.len() as i64);
    check("over", s.over as i64);
    if !s.over {
        check("current", s.current as i64);
        check("owes", s.owes as i64);
        check("tens_used", s.tens_used as i64);
    }
    let n = cfg.players;
    let lists: [(&str, Vec<i64>); 3] = [
        (
            "in_game",
            s.in_game[..n].iter().map(|&b| b as i64).collect(),
        ),
        (
            "in_round",
            s.in_round[..n].iter().map(|&b| b as i64).collect(),
        ),
        ("places", s.places[..n].iter().map(|&p| p as i64).collect()),
    ];
    for (name, mine) in lists {
        let want = ints(get(v, name).unwrap());
        if mine != want {
            d.push(format!("{name}: {mine:?} != {want:?}"));
        }
    }
    if cfg.format == Format::Tokens {
        let want = ints(get(v, "tokens").unwrap());
        if s.tokens[..n].iter().map(|&x| x as i64).collect::<Vec<_>>() != want {
            d.push(format!("tokens: {:?} != {want:?}", &s.tokens[..n]));
        }
    }
    if cfg.format == Format::Points {
        let want = ints(get(v, "scores").unwrap());
        if s.scores[..n].iter().map(|&x| x as i64).collect::<Vec<_>>() != want {
            d.push(format!("scores: {:?} != {want:?}", &s.scores[..n]));
        }
    }
    let legal: Vec<i64> = s.legal().iter().map(|&a| a as i64).collect();
    let want = ints(get(v, "legal").unwrap());
    if legal != want {
        d.push(format!("legal: {legal:?} != {want:?}"));
    }
    d
}

#[test]
fn the_simulator_plays_exactly_as_the_referee() {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/engine_games.msgpack");
    let games = decode_body(&fs::read(&path).unwrap()).expect("msgpack");
    let games = get_array(&games, "games").unwrap();
    assert!(games.len() >= 30);
    let mut compared = 0;
    for (g, game) in games.iter().enumerate() {
        let cfg = config(get(game, "config").unwrap());
        let piles: Vec<Vec<u8>> = get_array(game, "shuffles")
            .unwrap()
            .iter()
            .map(|p| ints(p).into_iter().map(|c| c as u8).collect())
            .collect();
        let n_piles = piles.len();
        let mut replay = Replay { piles, next: 0 };
        let mut s = State::new_game(cfg, &mut replay);
        for (k, step) in get_array(game, "steps").unwrap().iter().enumerate() {
            let d = differences(&s, get(step, "state").unwrap(), cfg);
            assert!(d.is_empty(), "game {g} ({cfg:?}) before step {k}: {d:?}");
            compared += 1;
            s.apply(get_int(step, "action").unwrap() as u8, &mut replay);
        }
        let d = differences(&s, get(game, "final").unwrap(), cfg);
        assert!(d.is_empty(), "game {g} ({cfg:?}) at the end: {d:?}");
        assert_eq!(replay.next, n_piles, "game {g}: shuffles");
    }
    assert!(compared > 2500, "only {compared} steps compared");
}
