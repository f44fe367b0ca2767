//! The search: it answers with a legal action, keeps to its deadline, gives the
//! same answer for the same seed (so fixed-seed games at a fixed level replay
//! exactly), and plays better with more playouts.

use std::time::{Duration, Instant};

use yardstick::determinize::from_state;
use yardstick::game::{Config, Edition, Format, State};
use yardstick::mo_search;
use yardstick::policy;
use yardstick::rng::Rng;
use yardstick::search::{search, Outcome, Params};

fn configs() -> Vec<Config> {
    let mut v = Vec::new();
    for players in [2, 3, 4, 6] {
        for edition in [Edition::E2022, Edition::E1980] {
            for format in [Format::Single, Format::Tokens, Format::Points] {
                v.push(Config {
                    players,
                    edition,
                    format,
                    ono_on_tens: edition == Edition::E1980 && players % 2 == 0,
                    ending_lowest: players == 3,
                    ..Config::default()
                });
            }
        }
    }
    v
}

/// A game where `searchers` seats search (`iterations` playouts) and the others
/// play the heuristic. Returns the places.
fn play_game(cfg: Config, seed: u64, searchers: &[usize], iterations: u64) -> Vec<u8> {
    play_game_with(cfg, seed, searchers, iterations, false)
}

/// The same, searching with MO-ISMCTS if `multi_observer`.
fn play_game_with(
    cfg: Config,
    seed: u64,
    searchers: &[usize],
    iterations: u64,
    multi_observer: bool,
) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut s = State::new_game(cfg, &mut rng);
    let mut decision = 0;
    while !s.over {
        let seat = s.current;
        let a = if searchers.contains(&seat) && s.legal().len() > 1 {
            decision += 1;
            let tp = from_state(&s, seat, None);
            let p = Params {
                max_iterations: iterations,
                seed: seed * 1000 + decision,
                ..Params::default()
            };
            let out = if multi_observer {
                mo_search::search(&tp, &p)
            } else {
                search(&tp, &p)
            };
            assert!(s.legal().contains(&out.action), "an illegal action");
            out.action
        } else {
            policy::best(&s)
        };
        s.apply(a, &mut rng);
    }
    s.places[..cfg.players].to_vec()
}

#[test]
fn the_search_answers_a_legal_action_in_every_edition_format_and_table() {
    for (i, cfg) in configs().into_iter().enumerate() {
        let cfg = Config {
            play_cap: 300,
            ..cfg
        };
        play_game(cfg, i as u64 + 1, &[0, 1], 30);
    }
}

#[test]
fn fixed_seed_games_are_reproducible() {
    let cfg = Config {
        players: 3,
        ..Config::default()
    };
    let a = play_game(cfg, 42, &[0, 1, 2], 60);
    let b = play_game(cfg, 42, &[0, 1, 2], 60);
    assert_eq!(a, b);
    // and the search itself, visit for visit
    searches_alike(false);
}

/// A 4-player search of 500 playouts from a fixed deal, made twice: the same action,
/// playouts and statistics, visit for visit. The deal and the first search's outcome.
fn searches_alike(multi_observer: bool) -> (State, Outcome) {
    let mut rng = Rng::new(5);
    let s = State::new_game(
        Config {
            players: 4,
            ..Config::default()
        },
        &mut rng,
    );
    let tp = from_state(&s, s.current, None);
    let p = Params {
        max_iterations: 500,
        seed: 9,
        ..Params::default()
    };
    let run = if multi_observer {
        mo_search::search
    } else {
        search
    };
    let (x, y) = (run(&tp, &p), run(&tp, &p));
    assert_eq!((x.action, x.iterations), (y.action, y.iterations));
    assert_eq!(format!("{:?}", x.stats), format!("{:?}", y.stats));
    (s, x)
}

#[test]
fn the_multi_observer_search_answers_legally_and_reproducibly() {
    // MO-ISMCTS (a tree per seat): a legal action in every edition, format and table
    // (asserted at every decision), and the same game again from the same seeds.
    for (i, cfg) in configs().into_iter().enumerate() {
        let cfg = Config {
            play_cap: 300,
            ..cfg
        };
        let seed = 500 + i as u64;
        let a = play_game_with(cfg, seed, &[0, 1], 40, true);
        let b = play_game_with(cfg, seed, &[0, 1], 40, true);
        assert_eq!(a, b, "{cfg:?}");
    }
    // and the search itself, visit for visit, with every seat's tree
    let (s, x) = searches_alike(true);
    assert!(s.legal().contains(&x.action));
    assert_eq!(x.iterations, 500);
    assert_eq!(x.stats.iter().map(|t| t.1 as u64).sum::<u64>(), 500);
}

#[test]
fn the_search_checks_its_deadline_before_every_playout() {
    // Without a wall-clock bound (a loaded machine may hold the thread for any time):
    // a deadline already passed starts no playout, yet a legal action is answered; a
    // deadline far off leaves the playout count alone. So the search never begins a
    // playout after its deadline, and overruns it by one playout at most (microseconds:
    // a playout ends with its round).
    for (i, cfg) in configs().into_iter().enumerate() {
        let mut rng = Rng::new(100 + i as u64);
        let mut s = State::new_game(cfg, &mut rng);
        for _ in 0..5 {
            if s.over {
                break;
            }
            let a = policy::best(&s);
            s.apply(a, &mut rng);
        }
        if s.over || s.legal().len() < 2 {
            continue;
        }
        let tp = from_state(&s, s.current, None);
        let passed = Params {
            max_iterations: u64::MAX,
            deadline: Some(Instant::now()),
            ..Params::default()
        };
        let out = search(&tp, &passed);
        assert_eq!(out.iterations, 0, "{cfg:?}");
        assert!(s.legal().contains(&out.action), "{cfg:?}");
        let far = Params {
            max_iterations: 50,
            deadline: Some(Instant::now() + Duration::from_secs(3600)),
            ..Params::default()
        };
        assert_eq!(search(&tp, &far).iterations, 50, "{cfg:?}");
    }
}

#[test]
fn more_playouts_play_better() {
    // 2 players, single, against the heuristic, the searcher in seat 0 and 1 in turn:
    // one playout is a random move; 300 play at least as well as the heuristic.
    let cfg = Config::default();
    let games = 60;
    let wins = |iterations: u64| {
        (0..games)
            .filter(|&g| {
                let seat = g % 2;
                play_game(cfg, 7000 + g as u64, &[seat], iterations)[seat] == 1
            })
            .count()
    };
    let (one, many) = (wins(1), wins(300));
    eprintln!("won {one} of {games} with 1 playout, {many} with 300");
    assert!(
        many >= one + 10,
        "{one} wins with 1 playout, {many} with 300"
    );
}
