//! The heuristic of strategy.rs: the moves it should make, and a valid index always.

use ono99::protocol::{Act, GameInfo, Kind, Legal, Value};
use ono99::strategy::Strategy;

fn game(edition: &str) -> GameInfo {
    GameInfo {
        seat: 0,
        players: 3,
        edition: edition.into(),
        format: "single".into(),
        ..GameInfo::default()
    }
}

/// An act at `total`, owing `owes`, with `players` still in the game; legal actions
/// written "7", "R" (plays), "bust:9", "quad".
fn act(total: i64, owes: i64, players: usize, legal: &[&str]) -> Act {
    Act {
        request_id: 1,
        total,
        owes,
        direction: 1,
        players_in_game: players,
        hand: Vec::new(),
        legal: legal
            .iter()
            .map(|a| match a.split_once(':') {
                Some(("bust", card)) => Legal {
                    kind: Kind::Bust,
                    card: card.into(),
                },
                _ if *a == "quad" => Legal {
                    kind: Kind::Quad,
                    card: String::new(),
                },
                _ => Legal {
                    kind: Kind::Play,
                    card: (*a).into(),
                },
            })
            .collect(),
        decision_ms: Some(1000),
        msg: Value::Nil,
    }
}

/// The card (or "quad") the strategy picks.
fn pick(edition: &str, a: &Act) -> String {
    let i = Strategy::new().choose(&game(edition), a);
    assert!(i < a.legal.len());
    match &a.legal[i].kind {
        Kind::Quad => "quad".into(),
        Kind::Bust => format!("bust:{}", a.legal[i].card),
        _ => a.legal[i].card.clone(),
    }
}

#[test]
fn quad_and_ono_99_first() {
    assert_eq!(pick("2022", &act(10, 1, 3, &["5", "quad"])), "quad");
    assert_eq!(pick("1980", &act(40, 1, 3, &["7", "99", "-10"])), "99"); // ONO on tens
}

#[test]
fn the_highest_number_while_the_total_is_low() {
    assert_eq!(pick("2022", &act(8, 1, 3, &["3", "7", "R"])), "7");
    assert_eq!(
        pick("2022", &act(80, 1, 3, &["0", "2", "10", "P2", "-10"])),
        "10"
    );
    assert_eq!(pick("2022", &act(30, 2, 3, &["2", "8", "R", "P2"])), "8"); // owing two, but low
}

#[test]
fn owing_two_at_a_high_total_passes_it_on() {
    assert_eq!(pick("2022", &act(80, 2, 3, &["5", "R", "P2"])), "R"); // a Reverse answers with 3 left
    assert_eq!(pick("2022", &act(80, 2, 2, &["5", "R", "P2"])), "P2"); // not with 2 left (R6.4)
    assert_eq!(pick("1980", &act(80, 2, 3, &["4", "R", "H"])), "H");
    assert_eq!(pick("1980", &act(80, 2, 3, &["4", "DP"])), "4"); // DP never answers a DP (R7.5)
    assert_eq!(pick("2022", &act(80, 2, 3, &["2", "8", "0"])), "2"); // the lowest: room for the second card
}

#[test]
fn escape_cards_cheapest_first() {
    let mut legal = vec!["-10", "P2", "R", "H", "0"];
    for want in ["0", "H", "R", "P2", "-10"] {
        assert_eq!(pick("2022", &act(95, 1, 3, &legal)), want);
        legal.retain(|c| *c != want);
    }
    assert_eq!(pick("1980", &act(95, 1, 3, &["-10", "DP"])), "DP");
}

#[test]
fn bust_with_the_most_expensive_card() {
    assert_eq!(
        pick("1980", &act(95, 1, 4, &["bust:8", "bust:9", "bust:10"])),
        "bust:10"
    );
    assert_eq!(
        pick("2022", &act(95, 1, 4, &["bust:3", "bust:R", "bust:10"])),
        "bust:R"
    );
}

#[test]
fn a_bust_offered_next_to_plays_comes_last() {
    // R4.2 [ruling]: a points player may bust on purpose; it costs 25 points.
    assert_eq!(pick("2022", &act(90, 1, 3, &["2", "8", "bust:9"])), "8");
    assert_eq!(pick("1980", &act(90, 1, 3, &["-10", "bust:DP", "bust:9"])), "-10");
}

#[test]
fn unknown_cards_and_kinds_are_still_choices() {
    assert_eq!(pick("2022", &act(50, 1, 3, &["ZZ", "-10"])), "-10");
    let mut a = act(50, 1, 3, &["ZZ"]);
    a.legal.push(Legal {
        kind: Kind::Other("teleport".into()),
        card: String::new(),
    });
    assert_eq!(pick("2022", &a), "ZZ");
}

#[test]
fn always_a_valid_index_on_random_acts() {
    const CARDS: [&str; 20] = [
        "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "99", "R", "-10", "P2", "H", "DP",
        "", "X", "100",
    ];
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let mut strategy = Strategy::new();
    for _ in 0..5000 {
        let count = 1 + next(6) as usize;
        let legal: Vec<String> = (0..count)
            .map(|_| match next(10) {
                0 => "quad".to_string(),
                1 => format!("bust:{}", CARDS[next(20) as usize]),
                _ => CARDS[next(20) as usize].to_string(),
            })
            .collect();
        let legal: Vec<&str> = legal.iter().map(String::as_str).collect();
        let a = act(
            next(120) as i64 - 20,
            1 + next(2) as i64,
            2 + next(5) as usize,
            &legal,
        );
        let edition = if next(2) == 0 { "2022" } else { "1980" };
        let i = strategy.choose(&game(edition), &a);
        assert!(i < a.legal.len(), "{i} of {legal:?}");
    }
}
