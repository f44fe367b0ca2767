//! Wire protocol v1 of the ONO 99 arena (`protocol/SPEC.md`).
//!
//! Framing (SPEC §3): a 4-byte big-endian length N, then N bytes holding exactly
//! one msgpack map. This module reads and writes frames, checks bodies the way
//! SPEC §3.2 asks, looks map keys up by name, encodes the bot's two messages and
//! turns `game_start` and `act` into plain structs ([`GameInfo`], [`Act`]) that
//! `strategy.rs` can use without touching msgpack.
//!
//! All msgpack work is done by the `rmpv` crate (values) and the `rmp` crate it is
//! built on (markers and container lengths). `decode_body` walks the containers
//! itself, with `rmp` reading each map or array header and `rmpv` each scalar, so
//! that it can refuse what a general-purpose decoder lets through: keys that are
//! not str, a key twice, invalid UTF-8 (rmpv keeps it), ext values and the unused
//! byte 0xc1 (rmpv reads it as nil).

use std::fmt;
use std::io::{self, Read, Write};

use rmp::Marker;
pub use rmpv::Value;

/// The protocol version this kit speaks (SPEC §10.1).
pub const PROTOCOL_VERSION: i64 = 1;

/// The largest frame body the referee ever sends (SPEC §3.3: a bot SHOULD accept
/// any N up to 16 MiB). Longer frames are refused before their body is read.
pub const MAX_INCOMING: usize = 16 * 1024 * 1024;

/// The referee's default limit for frames from a bot (`hello.limits.max_frame`,
/// SPEC §3.3, §8.1): 4 KiB. A hello or action comes nowhere near it.
pub const DEFAULT_MAX_FRAME: usize = 4096;

/// Deeper nesting is refused, as by the Python codec (SPEC §3.2); v1 needs 4 levels.
pub const MAX_DEPTH: usize = 1024;

/// A frame or body that breaks SPEC §3.1–§3.3. After one, the stream has lost its
/// framing: the bot logs the reason and exits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameError(pub String);

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for FrameError {}

fn error<T>(message: impl Into<String>) -> Result<T, FrameError> {
    Err(FrameError(message.into()))
}

// ---------------------------------------------------------------------------
// Frames

/// Read until `buf` is full or the stream ends; returns the number of bytes read.
fn read_exactly<R: Read + ?Sized>(rd: &mut R, buf: &mut [u8]) -> Result<usize, FrameError> {
    let mut got = 0;
    while got < buf.len() {
        match rd.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return error(format!("read error after {got} bytes: {e}")),
        }
    }
    Ok(got)
}

/// Read one frame and return its body (without the length prefix).
///
/// `Ok(None)`: the stream ended cleanly before a frame (the session is over).
/// `Err`: N = 0, N > `max_len` (decided from the prefix alone: the body is not
/// read), a read error, or the stream ending inside a frame. The pieces a pipe
/// delivers do not matter: this reads until it has the whole frame (SPEC §3.6).
pub fn read_frame<R: Read + ?Sized>(
    rd: &mut R,
    max_len: usize,
) -> Result<Option<Vec<u8>>, FrameError> {
    let mut prefix = [0u8; 4];
    let got = read_exactly(rd, &mut prefix)?;
    if got == 0 {
        return Ok(None);
    }
    if got < prefix.len() {
        return error(format!(
            "the stream ended after {got} of the 4 length-prefix bytes"
        ));
    }
    let n = u32::from_be_bytes(prefix) as usize;
    if n == 0 {
        return error("frame length 0 (a frame holds one non-empty msgpack map)");
    }
    if n > max_len {
        return error(format!(
            "frame length {n} exceeds the limit of {max_len} bytes"
        ));
    }
    let mut body = vec![0u8; n];
    let got = read_exactly(rd, &mut body)?;
    if got < n {
        return error(format!("the stream ended after {got} of {n} body bytes"));
    }
    Ok(Some(body))
}

/// [`read_frame`] and [`decode_body`]: the next message, or `Ok(None)` at the end
/// of the stream.
pub fn read_message<R: Read + ?Sized>(
    rd: &mut R,
    max_len: usize,
) -> Result<Option<Value>, FrameError> {
    match read_frame(rd, max_len)? {
        None => Ok(None),
        Some(body) => decode_body(&body).map(Some),
    }
}

/// A whole frame: the 4-byte big-endian length, then `body`.
pub fn frame(body: &[u8]) -> Vec<u8> {
    let len = u32::try_from(body.len()).expect("a frame body is at most 4 GiB");
    let mut out = Vec::with_capacity(4 + body.len());
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(body);
    out
}

/// Write `body` as one frame with a single `write_all`, then flush: a frame left
/// in a buffer counts as not sent (SPEC §3.6).
pub fn write_frame<W: Write + ?Sized>(out: &mut W, body: &[u8]) -> io::Result<()> {
    out.write_all(&frame(body))?;
    out.flush()
}

// ---------------------------------------------------------------------------
// Bodies

/// Decode one frame body: exactly one msgpack map, str keys, no key twice in a
/// map, valid UTF-8, no ext values, nothing left over (SPEC §3.2). Floats and bin
/// are valid msgpack and decode as such; no v1 field has those types.
pub fn decode_body(body: &[u8]) -> Result<Value, FrameError> {
    let Some(&first) = body.first() else {
        return error("empty frame body");
    };
    let marker = Marker::from_u8(first);
    if !matches!(
        marker,
        Marker::FixMap(_) | Marker::Map16 | Marker::Map32 | Marker::Reserved
    ) {
        return error(format!(
            "frame body must be a msgpack map, not {}",
            marker_name(marker)
        ));
    }
    let mut rest = body;
    let value = read_checked(&mut rest, MAX_DEPTH)?;
    if !rest.is_empty() {
        return error(format!(
            "{} byte(s) left over after the msgpack map",
            rest.len()
        ));
    }
    Ok(value)
}

/// What a marker byte starts, for error messages.
fn marker_name(marker: Marker) -> &'static str {
    match marker {
        Marker::FixMap(_) | Marker::Map16 | Marker::Map32 => "a map",
        Marker::FixArray(_) | Marker::Array16 | Marker::Array32 => "an array",
        Marker::FixStr(_) | Marker::Str8 | Marker::Str16 | Marker::Str32 => "a str",
        Marker::Bin8 | Marker::Bin16 | Marker::Bin32 => "a bin",
        Marker::Null => "nil",
        Marker::True | Marker::False => "a bool",
        Marker::F32 | Marker::F64 => "a float",
        Marker::Reserved => "the unused byte 0xc1",
        Marker::FixExt1
        | Marker::FixExt2
        | Marker::FixExt4
        | Marker::FixExt8
        | Marker::FixExt16
        | Marker::Ext8
        | Marker::Ext16
        | Marker::Ext32 => "an ext value",
        _ => "an int",
    }
}

fn msgpack_error(what: &str, err: impl fmt::Display + HasKind) -> FrameError {
    if err.is_eof() {
        FrameError(format!(
            "the msgpack data ends before the frame does (in {what})"
        ))
    } else {
        FrameError(format!("frame body is not valid msgpack ({what}): {err}"))
    }
}

/// Whether an error of rmp or rmpv means "the data ended too soon".
trait HasKind {
    fn is_eof(&self) -> bool;
}

impl HasKind for rmp::decode::ValueReadError<io::Error> {
    fn is_eof(&self) -> bool {
        match self {
            Self::InvalidMarkerRead(e) | Self::InvalidDataRead(e) => {
                e.kind() == io::ErrorKind::UnexpectedEof
            }
            Self::TypeMismatch(_) => false,
        }
    }
}

impl HasKind for rmpv::decode::Error {
    fn is_eof(&self) -> bool {
        self.kind() == io::ErrorKind::UnexpectedEof
    }
}

/// One value and everything inside it, checked as SPEC §3.2 asks. `rd` advances
/// past the value.
fn read_checked(rd: &mut &[u8], depth: usize) -> Result<Value, FrameError> {
    let Some(&first) = rd.first() else {
        return error("the msgpack data ends before the frame does");
    };
    if depth == 0 {
        return error(format!("values nested deeper than {MAX_DEPTH} levels"));
    }
    match Marker::from_u8(first) {
        Marker::Reserved => error("frame body is not valid msgpack (the unused byte 0xc1)"),
        Marker::FixExt1
        | Marker::FixExt2
        | Marker::FixExt4
        | Marker::FixExt8
        | Marker::FixExt16
        | Marker::Ext8
        | Marker::Ext16
        | Marker::Ext32 => error("msgpack ext values are not allowed in a message"),
        Marker::FixMap(_) | Marker::Map16 | Marker::Map32 => {
            let n = rmp::decode::read_map_len(rd).map_err(|e| msgpack_error("a map", e))? as usize;
            // Never trust a length for an allocation: each entry takes 2 bytes at least.
            let mut entries = Vec::with_capacity(n.min(rd.len() / 2));
            for _ in 0..n {
                let key = read_checked(rd, depth - 1)?;
                if key.as_str().is_none() {
                    return error("map keys must be str");
                }
                let value = read_checked(rd, depth - 1)?;
                entries.push((key, value));
            }
            check_unique_keys(&entries)?;
            Ok(Value::Map(entries))
        }
        Marker::FixArray(_) | Marker::Array16 | Marker::Array32 => {
            let n =
                rmp::decode::read_array_len(rd).map_err(|e| msgpack_error("an array", e))? as usize;
            let mut items = Vec::with_capacity(n.min(rd.len()));
            for _ in 0..n {
                items.push(read_checked(rd, depth - 1)?);
            }
            Ok(Value::Array(items))
        }
        marker => {
            // nil, bool, int, float, str, bin: rmpv reads the whole value.
            let value =
                rmpv::decode::read_value(rd).map_err(|e| msgpack_error(marker_name(marker), e))?;
            if let Value::String(s) = &value {
                if !s.is_str() {
                    return error("a str is not valid UTF-8");
                }
            }
            Ok(value)
        }
    }
}

fn check_unique_keys(entries: &[(Value, Value)]) -> Result<(), FrameError> {
    if entries.len() < 2 {
        return Ok(());
    }
    let mut keys: Vec<&str> = entries.iter().filter_map(|(k, _)| k.as_str()).collect();
    keys.sort_unstable();
    match keys.windows(2).find(|pair| pair[0] == pair[1]) {
        Some(pair) => {
            let shown: String = pair[0].chars().take(40).collect();
            error(format!("a map has the key {shown:?} twice"))
        }
        None => Ok(()),
    }
}

// ---------------------------------------------------------------------------
// Encoding: the bot's two messages (SPEC §6)

/// A msgpack body for `msg`. rmpv writes every int, str, array and map in its
/// shortest format, so a map built in SPEC field order gives the canonical bytes
/// of SPEC §3.4 (the referee accepts any valid encoding anyway).
pub fn encode_body(msg: &Value) -> Vec<u8> {
    let mut body = Vec::new();
    rmpv::encode::write_value(&mut body, msg).expect("writing to a Vec cannot fail");
    body
}

fn map(fields: Vec<(&str, Value)>) -> Value {
    Value::Map(
        fields
            .into_iter()
            .map(|(k, v)| (Value::from(k), v))
            .collect(),
    )
}

/// `{type: "hello", name, version, protocol: 1}` (SPEC §6.1).
pub fn hello_message(name: &str, version: &str) -> Value {
    map(vec![
        ("type", Value::from("hello")),
        ("name", Value::from(name)),
        ("version", Value::from(version)),
        ("protocol", Value::from(PROTOCOL_VERSION)),
    ])
}

/// `{type: "action", request_id, choice}` (SPEC §6.2).
pub fn action_message(request_id: u64, choice: i64) -> Value {
    map(vec![
        ("type", Value::from("action")),
        ("request_id", Value::from(request_id)),
        ("choice", Value::from(choice)),
    ])
}

/// Encode `msg` and write it as one frame, flushed.
pub fn write_message<W: Write + ?Sized>(out: &mut W, msg: &Value) -> io::Result<()> {
    write_frame(out, &encode_body(msg))
}

// ---------------------------------------------------------------------------
// Reading fields by name (never by position; unknown keys are ignored, SPEC §3.5)

/// The value of `key` in `map`, or `None` if `map` is not a map or lacks the key.
pub fn get<'a>(map: &'a Value, key: &str) -> Option<&'a Value> {
    map.as_map()?
        .iter()
        .find(|(k, _)| k.as_str() == Some(key))
        .map(|(_, v)| v)
}

/// An int field (any msgpack int format that fits i64; not a float, not a bool).
pub fn get_int(map: &Value, key: &str) -> Option<i64> {
    get(map, key)?.as_i64()
}

/// An int field >= 0 that fits u64 (`request_id` goes up to 2^64 - 1, SPEC §5.3).
pub fn get_uint(map: &Value, key: &str) -> Option<u64> {
    get(map, key)?.as_u64()
}

/// A str field.
pub fn get_str<'a>(map: &'a Value, key: &str) -> Option<&'a str> {
    get(map, key)?.as_str()
}

/// An array field.
pub fn get_array<'a>(map: &'a Value, key: &str) -> Option<&'a [Value]> {
    get(map, key)?.as_array().map(Vec::as_slice)
}

/// The message's `type`, or "" if it has none.
pub fn message_type(msg: &Value) -> &str {
    get_str(msg, "type").unwrap_or("")
}

// ---------------------------------------------------------------------------
// Game messages as plain structs

/// What `game_start` says (SPEC §5.2), kept for the game's acts.
#[derive(Debug, Clone)]
pub struct GameInfo {
    /// The bot's seat, `0 .. players-1`; -1 before the first `game_start`.
    pub seat: i64,
    /// The number of seats, 2..6 (0 if unknown).
    pub players: i64,
    /// `"2022"` or `"1980"` ("" if missing).
    pub edition: String,
    /// `"single"`, `"tokens"` or `"points"` ("" if missing).
    pub format: String,
    pub game_id: String,
    /// The whole `game_start` message (names, options, hand, clock ...), Nil before one.
    pub msg: Value,
}

impl Default for GameInfo {
    fn default() -> Self {
        GameInfo {
            seat: -1,
            players: 0,
            edition: String::new(),
            format: String::new(),
            game_id: String::new(),
            msg: Value::Nil,
        }
    }
}

impl GameInfo {
    /// Read a `game_start` message. Missing fields keep their defaults.
    pub fn from_message(msg: Value) -> GameInfo {
        GameInfo {
            seat: get_int(&msg, "seat").unwrap_or(-1),
            players: get_int(&msg, "players").unwrap_or(0),
            edition: get_str(&msg, "edition").unwrap_or("").to_owned(),
            format: get_str(&msg, "format").unwrap_or("").to_owned(),
            game_id: get_str(&msg, "game_id").unwrap_or("").to_owned(),
            msg,
        }
    }
}

/// The kind of a legal action (SPEC §7.2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// Play `card` (R4.1).
    Play,
    /// Discard four ONO 99 (2022, R6.3).
    Quad,
    /// The forced busting play of the points format (R9.3).
    Bust,
    /// A kind from a later protocol version: still choosable by index (SPEC §10.2).
    Other(String),
}

/// One entry of `act.legal`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Legal {
    pub kind: Kind,
    /// The card code for `play` and `bust` ("" for `quad`).
    pub card: String,
}

/// The parts of an `act` (SPEC §5.3, §7.3) a simple strategy needs. Anything else
/// (events, hand sizes, discard pile, scores, tokens ...) is in `msg`, e.g.
/// `get_array(act.observation(), "discard")`.
#[derive(Debug, Clone)]
pub struct Act {
    /// Copied into the answer by the bot loop: a msgpack uint, up to 2^64 - 1 (SPEC §5.3).
    pub request_id: u64,
    /// `observation.total` (1980: may be negative).
    pub total: i64,
    /// `observation.owes`: 1, or 2 after a Play 2 / Double Play.
    pub owes: i64,
    /// `observation.direction`: 1 or -1.
    pub direction: i64,
    /// The number of `true` in `observation.in_game`.
    pub players_in_game: usize,
    /// `observation.hand`, card codes in card order.
    pub hand: Vec<String>,
    /// The legal actions; never empty in a valid act.
    pub legal: Vec<Legal>,
    /// `clock.decision_ms`: the time for this answer, if given.
    pub decision_ms: Option<i64>,
    /// The whole `act` message.
    pub msg: Value,
}

impl Act {
    /// Read an `act` message. Fails (with the reason) only when the act cannot be
    /// answered: no int `request_id` or no array `legal`. Missing observation
    /// fields get neutral values (total 0, owes 1, direction 1).
    pub fn from_message(msg: Value) -> Result<Act, String> {
        let request_id = get_uint(&msg, "request_id").ok_or("an act without an int request_id")?;
        let legal = get_array(&msg, "legal")
            .ok_or("an act without a legal array")?
            .iter()
            .map(|entry| Legal {
                kind: match get_str(entry, "kind") {
                    Some("play") => Kind::Play,
                    Some("quad") => Kind::Quad,
                    Some("bust") => Kind::Bust,
                    other => Kind::Other(other.unwrap_or("").to_owned()),
                },
                card: get_str(entry, "card").unwrap_or("").to_owned(),
            })
            .collect();
        let obs = get(&msg, "observation").unwrap_or(&Value::Nil);
        let players_in_game = get_array(obs, "in_game").map_or(0, |seats| {
            seats.iter().filter(|b| b.as_bool() == Some(true)).count()
        });
        let hand = get_array(obs, "hand")
            .map(|cards| {
                cards
                    .iter()
                    .filter_map(|c| c.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        Ok(Act {
            request_id,
            total: get_int(obs, "total").unwrap_or(0),
            owes: get_int(obs, "owes").unwrap_or(1),
            direction: get_int(obs, "direction").unwrap_or(1),
            players_in_game,
            hand,
            legal,
            decision_ms: get(&msg, "clock").and_then(|c| get_int(c, "decision_ms")),
            msg,
        })
    }

    /// `act.observation` (SPEC §7.3), or Nil.
    pub fn observation(&self) -> &Value {
        get(&self.msg, "observation").unwrap_or(&Value::Nil)
    }
}
