//! The kit's protocol code against the golden vectors of protocol/vectors/ (SPEC §12),
//! plus the strict checks of SPEC §3 that the vectors do not cover.

mod common;

use common::{all_names, bin, from_bot, has_json, index_names, json, parse_json, same, Pieces};
use ono99::protocol::{
    action_message, decode_body, encode_body, frame, get, get_array, get_int, get_str, get_uint,
    hello_message, read_frame, read_message, Act, FrameError, GameInfo, Kind, Value,
    DEFAULT_MAX_FRAME, MAX_INCOMING,
};
use ono99::strategy::Strategy;

/// Read every frame of `stream` with the kit's reader; Err at the first error.
fn read_all(mut rd: impl std::io::Read, max_len: usize) -> Result<Vec<Value>, FrameError> {
    let mut out = Vec::new();
    while let Some(msg) = read_message(&mut rd, max_len)? {
        out.push(msg);
    }
    Ok(out)
}

/// The one message of a vector's .bin, read as the bot reads stdin.
fn decode_vector(name: &str) -> Value {
    let msgs = read_all(&bin(name)[..], MAX_INCOMING).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(msgs.len(), 1, "{name}: one frame in the .bin");
    msgs.into_iter().next().unwrap()
}

fn canonical_frames() -> Vec<(String, Vec<u8>)> {
    index_names("canonical")
        .into_iter()
        .map(|n| {
            let b = bin(&n);
            (n, b)
        })
        .collect()
}

// ---------------------------------------------------------------------------
// 1. decode(bin) == json, encode(json) == bin

#[test]
fn the_vectors_are_there() {
    let names = all_names();
    assert!(
        names.len() >= 40,
        "expected the golden vectors in {:?}",
        common::vectors_dir()
    );
    let listed: Vec<String> = ["canonical", "accept", "reject"]
        .iter()
        .flat_map(|s| index_names(s))
        .collect();
    for name in &names {
        assert!(listed.contains(name), "{name}.bin is not in index.json");
    }
}

#[test]
fn canonical_vectors_decode_to_their_json() {
    for name in index_names("canonical") {
        assert!(
            same(&decode_vector(&name), &json(&name)),
            "{name}: decode(bin) != json"
        );
    }
}

#[test]
fn accept_vectors_decode_to_their_json() {
    // not canonical (keys in another order, wider ints, str8 ...), extra keys, Unicode
    for name in index_names("accept") {
        assert!(
            same(&decode_vector(&name), &json(&name)),
            "{name}: decode(bin) != json"
        );
    }
}

#[test]
fn refused_bot_messages_are_still_well_formed_frames() {
    // bad_hello_* and bad_action_*: the referee refuses what they say, not their
    // framing, so a decoder reads them and gets their JSON (a float stays a float).
    let mut count = 0;
    for name in index_names("reject").iter().filter(|n| has_json(n)) {
        assert!(
            same(&decode_vector(name), &json(name)),
            "{name}: decode(bin) != json"
        );
        count += 1;
    }
    assert!(count >= 10, "only {count} reject vectors with a .json");
    let float = decode_vector("bad_action_choice_float");
    assert_eq!(get(&float, "choice"), Some(&Value::F64(1.0)));
    assert_eq!(get_int(&float, "choice"), None, "a float is not an int");
    let boolean = decode_vector("bad_action_choice_bool");
    assert_eq!(get_int(&boolean, "choice"), None, "a bool is not an int");
}

#[test]
fn the_bots_messages_encode_byte_for_byte() {
    let mut count = 0;
    for name in index_names("canonical").iter().filter(|n| from_bot(n)) {
        let msg = json(name);
        let encoded = match get_str(&msg, "type") {
            Some("hello") => hello_message(
                get_str(&msg, "name").unwrap(),
                get_str(&msg, "version").unwrap(),
            ),
            Some("action") => action_message(
                get_uint(&msg, "request_id").unwrap(),
                get_int(&msg, "choice").unwrap(),
            ),
            other => panic!("{name}: a bot message of type {other:?}"),
        };
        assert_eq!(
            frame(&encode_body(&encoded)),
            bin(name),
            "{name}: encoded bytes differ"
        );
        count += 1;
    }
    assert!(
        count >= 5,
        "only {count} bot messages among the canonical vectors"
    );
}

#[test]
fn every_canonical_json_encodes_to_its_bin() {
    // rmpv writes the shortest formats, so any message in SPEC key order is canonical.
    for (name, bytes) in canonical_frames() {
        assert_eq!(
            frame(&encode_body(&json(&name))),
            bytes,
            "{name}: encode(json) != bin"
        );
    }
}

// ---------------------------------------------------------------------------
// 2. referee messages through the kit's structs

#[test]
fn acts_and_game_starts_through_the_kit() {
    let mut strategy = Strategy::new();
    for name in index_names("canonical") {
        let msg = decode_vector(&name);
        let want = json(&name);
        match get_str(&want, "type") {
            Some("game_start") => {
                let g = GameInfo::from_message(msg);
                assert_eq!(g.seat, get_int(&want, "seat").unwrap(), "{name}: seat");
                assert_eq!(
                    g.players,
                    get_int(&want, "players").unwrap(),
                    "{name}: players"
                );
                assert_eq!(
                    g.edition,
                    get_str(&want, "edition").unwrap(),
                    "{name}: edition"
                );
                assert_eq!(
                    g.format,
                    get_str(&want, "format").unwrap(),
                    "{name}: format"
                );
                assert_eq!(
                    g.game_id,
                    get_str(&want, "game_id").unwrap(),
                    "{name}: game_id"
                );
            }
            Some("act") => {
                let obs = get(&want, "observation").unwrap();
                let act = Act::from_message(msg).unwrap_or_else(|e| panic!("{name}: {e}"));
                assert_eq!(
                    act.request_id,
                    get_uint(&want, "request_id").unwrap(),
                    "{name}: request_id"
                );
                assert_eq!(act.total, get_int(obs, "total").unwrap(), "{name}: total");
                assert_eq!(act.owes, get_int(obs, "owes").unwrap(), "{name}: owes");
                assert_eq!(
                    act.direction,
                    get_int(obs, "direction").unwrap(),
                    "{name}: direction"
                );
                let hand: Vec<&str> = get_array(obs, "hand")
                    .unwrap()
                    .iter()
                    .map(|c| c.as_str().unwrap())
                    .collect();
                assert_eq!(act.hand, hand, "{name}: hand");
                assert_eq!(
                    act.legal.len(),
                    get_array(&want, "legal").unwrap().len(),
                    "{name}: legal"
                );
                assert_eq!(
                    act.decision_ms,
                    get_int(get(&want, "clock").unwrap(), "decision_ms")
                );
                let choice = strategy.choose(&GameInfo::default(), &act);
                assert!(
                    choice < act.legal.len(),
                    "{name}: choice {choice} of {}",
                    act.legal.len()
                );
                println!(
                    "{name}: total {}, {} legal, the strategy picks {choice} ({:?})",
                    act.total,
                    act.legal.len(),
                    act.legal[choice]
                );
            }
            _ => {}
        }
    }
}

#[test]
fn the_strategy_on_the_golden_acts() {
    let mut strategy = Strategy::new();
    let choose = |strategy: &mut Strategy, act: &str, start: &str| {
        let game = GameInfo::from_message(decode_vector(start));
        strategy.choose(&game, &Act::from_message(decode_vector(act)).unwrap())
    };
    // 3, 7, R at 8: the highest number, as in the golden answer
    assert_eq!(
        choose(&mut strategy, "act_2022_single", "game_start_2022_single"),
        1
    );
    // owing two at 25 (3, R, P2): the total is low, so play the 3 and keep the escapes
    assert_eq!(
        choose(
            &mut strategy,
            "act_2022_single_owes_two",
            "game_start_2022_single"
        ),
        0
    );
    // bust with 8, 9 or 10: the 10, worth most points, as in the golden answer
    assert_eq!(
        choose(
            &mut strategy,
            "act_1980_points_bust",
            "game_start_1980_points"
        ),
        2
    );
    // four ONO 99: quad
    assert_eq!(
        choose(
            &mut strategy,
            "act_2022_tokens_quad",
            "game_start_2022_tokens"
        ),
        0
    );
}

#[test]
fn unknown_keys_and_kinds_are_ignored() {
    // SPEC §3.5: extra keys at every level change nothing; §10.2: a new action kind
    // is still an index.
    let mut msg = json("act_2022_single");
    fn add_key(v: &mut Value) {
        if let Value::Map(entries) = v {
            entries.insert(
                0,
                (
                    Value::from("zz_future"),
                    Value::Array(vec![Value::F64(0.5), Value::Binary(vec![1, 2])]),
                ),
            );
            for (_, child) in entries.iter_mut() {
                add_key(child);
            }
        } else if let Value::Array(items) = v {
            items.iter_mut().for_each(add_key);
        }
    }
    add_key(&mut msg);
    let msg = decode_body(&encode_body(&msg)).expect("bin and float under unknown keys are fine");
    let plain = Act::from_message(json("act_2022_single")).unwrap();
    let extra = Act::from_message(msg).unwrap();
    assert_eq!(
        (
            extra.request_id,
            extra.total,
            extra.owes,
            &extra.hand,
            &extra.legal
        ),
        (
            plain.request_id,
            plain.total,
            plain.owes,
            &plain.hand,
            &plain.legal
        )
    );

    let act = parse_json(r#"{"type": "act", "request_id": 9, "legal": [{"kind": "teleport"}, {"kind": "play", "card": "Z"}]}"#).unwrap();
    let act = Act::from_message(act).unwrap();
    assert_eq!(act.legal[0].kind, Kind::Other("teleport".into()));
    assert_eq!(
        (act.total, act.owes, act.direction),
        (0, 1, 1),
        "neutral values for a missing observation"
    );
    assert!(Strategy::new().choose(&GameInfo::default(), &act) < 2);

    let no_id = parse_json(r#"{"type": "act", "legal": [{"kind": "quad"}]}"#).unwrap();
    assert!(
        Act::from_message(no_id).is_err(),
        "an act without request_id cannot be answered"
    );
}

/// SPEC §5.3: request_id is a msgpack uint up to 2^64 - 1, copied unchanged. The kit
/// read it as an i64: an act with an id of 2^63 or more could not be answered.
#[test]
fn request_ids_up_to_the_largest_u64_are_answered_unchanged() {
    for rid in [1, i64::MAX as u64, i64::MAX as u64 + 1, u64::MAX] {
        let msg = Value::Map(vec![
            (Value::from("type"), Value::from("act")),
            (Value::from("request_id"), Value::from(rid)),
            (
                Value::from("legal"),
                Value::Array(vec![Value::Map(vec![(
                    Value::from("kind"),
                    Value::from("quad"),
                )])]),
            ),
        ]);
        let act = Act::from_message(decode_body(&encode_body(&msg)).unwrap())
            .unwrap_or_else(|e| panic!("request_id {rid}: {e}"));
        assert_eq!(act.request_id, rid);
        let answer = decode_body(&encode_body(&action_message(act.request_id, 0))).unwrap();
        assert_eq!(get_uint(&answer, "request_id"), Some(rid), "{answer}");
    }
}

// ---------------------------------------------------------------------------
// 3. frames that must be refused

#[test]
fn broken_frames_are_refused() {
    let names: Vec<String> = all_names()
        .into_iter()
        .filter(|n| n.starts_with("bad_frame_"))
        .collect();
    assert!(
        names.len() >= 10,
        "only {} bad_frame_* vectors",
        names.len()
    );
    for name in &names {
        // as the referee reads a bot (max_frame 4096), and as the bot reads the referee
        for max_len in [DEFAULT_MAX_FRAME, MAX_INCOMING] {
            let result = read_all(&bin(name)[..], max_len);
            assert!(
                result.is_err(),
                "{name}: not refused with a limit of {max_len}: {result:?}"
            );
            println!("{name} (limit {max_len}): {}", result.unwrap_err());
        }
    }
    let too_large = read_all(&bin("bad_frame_too_large")[..], DEFAULT_MAX_FRAME).unwrap_err();
    assert!(
        too_large.0.contains("exceeds"),
        "refused for the wrong reason: {too_large}"
    );
}

fn refused(body: &[u8]) -> String {
    match decode_body(body) {
        Ok(v) => panic!("{body:02x?} accepted as {v}"),
        Err(e) => e.0,
    }
}

#[test]
fn strict_checks_beyond_the_vectors() {
    // the unused byte 0xc1 inside a map (rmpv alone would read it as nil)
    assert!(refused(&[0x81, 0xa1, b'a', 0xc1]).contains("0xc1"));
    // ext anywhere, also nested
    assert!(refused(&[0x81, 0xa1, b'a', 0x91, 0xd4, 0x05, 0x00]).contains("ext"));
    assert!(refused(&[0x81, 0xa1, b'a', 0xc7, 0x01, 0xff, 0x00]).contains("ext"));
    // keys: int, nil, invalid UTF-8, twice in a nested map
    assert!(refused(&[0x81, 0x01, 0x01]).contains("keys must be str"));
    assert!(refused(&[0x81, 0xc0, 0x01]).contains("keys must be str"));
    assert!(refused(&[0x81, 0xa1, b'a', 0x81, 0xa1, 0xff, 0x01]).contains("UTF-8"));
    assert!(
        refused(&[0x81, 0xa1, b'a', 0x82, 0xa1, b'x', 0x01, 0xa1, b'x', 0x02]).contains("twice")
    );
    // invalid UTF-8 in a nested value: a lone continuation byte, a surrogate, an overlong form
    for bad in [&[0x80][..], &[0xed, 0xa0, 0x80], &[0xc0, 0xaf]] {
        let mut body = vec![0x81, 0xa1, b'a', 0x91, 0xa0 | bad.len() as u8];
        body.extend_from_slice(bad);
        assert!(refused(&body).contains("UTF-8"));
    }
    // not a map; trailing bytes; truncated inside a str, an int, a nested map
    assert!(refused(&[0x91, 0x01]).contains("must be a msgpack map"));
    assert!(refused(&[0xc0]).contains("must be a msgpack map"));
    assert!(refused(&[0x80, 0x00]).contains("left over"));
    for cut in [
        &[0x81, 0xa3, b'a', b'b'][..],
        &[0x81, 0xa1, b'a', 0xcd, 0x01],
        &[0x82, 0xa1, b'a', 0x01],
    ] {
        assert!(
            refused(cut).contains("ends before the frame does"),
            "{cut:02x?}"
        );
    }
    // lengths that lie: no huge allocation, just an error
    assert!(refused(&[0xdf, 0xff, 0xff, 0xff, 0xff]).contains("ends before"));
    assert!(refused(&[0x81, 0xa1, b'a', 0xdd, 0xff, 0xff, 0xff, 0xff]).contains("ends before"));
    assert!(refused(&[0x81, 0xa1, b'a', 0xdb, 0xff, 0xff, 0xff, 0xff]).contains("ends before"));
    // accepted: floats and bin (no v1 field has them; they are ignored under unknown keys),
    // negative ints, nil values, an empty map
    assert!(decode_body(&[
        0x83, 0xa1, b'f', 0xcb, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0xa1, b'b', 0xc4, 0x01, 0x07, 0xa1,
        b'n', 0xd0, 0x80
    ])
    .is_ok());
    assert!(decode_body(&[0x81, 0xa1, b'a', 0xc0]).is_ok());
    assert!(decode_body(&[0x80]).is_ok());
}

#[test]
fn nesting_is_limited_without_overflowing_the_stack() {
    let nested = |levels: usize| {
        let mut body = vec![0x81, 0xa1, b'a'];
        body.extend(std::iter::repeat_n(0x91, levels));
        body.push(0x01);
        body
    };
    assert!(decode_body(&nested(1000)).is_ok(), "1000 levels of arrays");
    assert!(refused(&nested(1100)).contains("nested deeper"));
    assert!(refused(&nested(100_000)).contains("nested deeper"));
}

#[test]
fn frame_length_limits() {
    // 0: refused
    assert!(read_frame(&mut &[0u8, 0, 0, 0][..], MAX_INCOMING)
        .unwrap_err()
        .0
        .contains("length 0"));
    // above the limit: refused from the prefix alone, no body needed
    let prefix = ((MAX_INCOMING + 1) as u32).to_be_bytes();
    assert!(read_frame(&mut &prefix[..], MAX_INCOMING)
        .unwrap_err()
        .0
        .contains("exceeds"));
    // exactly 16 MiB: accepted (a map holding one long str)
    let payload = MAX_INCOMING - 1 - 2 - 5;
    let mut body = vec![0x81, 0xa1, b's', 0xdb];
    body.extend_from_slice(&(payload as u32).to_be_bytes());
    body.resize(MAX_INCOMING, b'x');
    let msg = read_message(&mut &frame(&body)[..], MAX_INCOMING)
        .unwrap()
        .unwrap();
    assert_eq!(get_str(&msg, "s").map(str::len), Some(payload));
}

// ---------------------------------------------------------------------------
// 4. frames in pieces (SPEC §3.6)

#[test]
fn every_frame_split_at_every_byte() {
    let mut splits = 0;
    for (name, bytes) in canonical_frames() {
        let whole = decode_vector(&name);
        for k in 1..bytes.len() {
            let msgs = read_all(
                Pieces {
                    data: &bytes,
                    chunk: usize::MAX,
                    first: k,
                },
                MAX_INCOMING,
            )
            .unwrap_or_else(|e| panic!("{name} split at byte {k}: {e}"));
            assert_eq!(msgs, vec![whole.clone()], "{name} split at byte {k}");
            splits += 1;
        }
    }
    println!("{splits} splits");
}

#[test]
fn the_whole_session_in_chunks_of_every_size() {
    let frames = canonical_frames();
    let stream: Vec<u8> = frames.iter().flat_map(|(_, b)| b.iter().copied()).collect();
    let want: Vec<Value> = frames.iter().map(|(n, _)| decode_vector(n)).collect();
    for chunk in [1, 2, 3, 4, 5, 7, 13, 64, 1000, 1 << 20] {
        let got = read_all(
            Pieces {
                data: &stream,
                chunk,
                first: 0,
            },
            MAX_INCOMING,
        )
        .unwrap_or_else(|e| panic!("chunks of {chunk}: {e}"));
        assert_eq!(got, want, "chunks of {chunk}");
    }
}

#[test]
fn a_stream_cut_inside_a_frame_is_an_error_not_an_end() {
    for (name, bytes) in canonical_frames() {
        for k in 1..bytes.len() {
            let result = read_message(
                &mut Pieces {
                    data: &bytes[..k],
                    chunk: 3,
                    first: 0,
                },
                MAX_INCOMING,
            );
            assert!(result.is_err(), "{name} cut after {k} bytes: {result:?}");
        }
    }
    // nothing at all is a clean end
    assert_eq!(read_message(&mut &[][..], MAX_INCOMING), Ok(None));
}
