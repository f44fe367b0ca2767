//! Helpers shared by the test files: where the golden vectors are, a small JSON
//! reader (JSON text -> rmpv::Value, so that the kit needs no JSON crate), value
//! comparison, and a reader that hands out bytes in pieces.

#![allow(dead_code)] // each test file uses a part of this

use std::fs;
use std::io::{self, Read};
use std::path::PathBuf;

use yardstick::protocol::{get, get_array, get_str, Value};

/// protocol/vectors/ of the repository (SPEC §12).
pub fn vectors_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../protocol/vectors")
}

pub fn bin(name: &str) -> Vec<u8> {
    let path = vectors_dir().join(format!("{name}.bin"));
    fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

pub fn json(name: &str) -> Value {
    let path = vectors_dir().join(format!("{name}.json"));
    let text =
        fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    parse_json(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

pub fn has_json(name: &str) -> bool {
    vectors_dir().join(format!("{name}.json")).exists()
}

/// `index.json` (SPEC §12): the canonical, accept and reject sets and the session.
pub fn index() -> Value {
    json("index")
}

/// The names in one set of index.json ("canonical", "accept" or "reject").
pub fn index_names(set: &str) -> Vec<String> {
    get_array(&index(), set)
        .unwrap_or_else(|| panic!("index.json has no {set:?}"))
        .iter()
        .map(|entry| get_str(entry, "name").expect("a name").to_owned())
        .collect()
}

/// Whether the vector `name` of index.json was sent by the bot.
pub fn from_bot(name: &str) -> bool {
    let index = index();
    ["canonical", "accept", "reject"]
        .iter()
        .flat_map(|set| get_array(&index, set).unwrap().iter())
        .find(|entry| get_str(entry, "name") == Some(name))
        .and_then(|entry| get_str(entry, "from"))
        == Some("bot")
}

/// The referee frames of the golden session (index.json "session"), in order.
pub fn session_referee_frames() -> Vec<String> {
    get_array(&index(), "session")
        .unwrap()
        .iter()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .filter(|name| !from_bot(name))
        .collect()
}

/// Every vector name (files NAME.bin), sorted.
pub fn all_names() -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(vectors_dir())
        .expect("protocol/vectors")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|f| f.strip_suffix(".bin").map(str::to_owned))
        .collect();
    names.sort();
    names
}

// ---------------------------------------------------------------------------
// Comparing values

/// Deep equality; maps compare without regard to key order (SPEC §3.4), ints
/// by value whatever their msgpack format, floats by value.
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::F32(x), Value::F64(y)) | (Value::F64(y), Value::F32(x)) => f64::from(*x) == *y,
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len()
                && x.iter().all(|(k, v)| match k.as_str() {
                    Some(key) => get(b, key).is_some_and(|w| same(v, w)),
                    None => false,
                })
        }
        _ => a == b,
    }
}

// ---------------------------------------------------------------------------
// A small JSON reader

/// Parse JSON text into a Value: objects -> maps (key order kept), integers ->
/// ints, numbers with a fraction or exponent -> F64, null -> Nil.
pub fn parse_json(text: &str) -> Result<Value, String> {
    let mut p = Json {
        s: text.as_bytes(),
        i: 0,
    };
    let v = p.value()?;
    p.ws();
    if p.i != p.s.len() {
        return Err(format!("JSON: trailing text at byte {}", p.i));
    }
    Ok(v)
}

struct Json<'a> {
    s: &'a [u8],
    i: usize,
}

impl Json<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && b" \t\r\n".contains(&self.s[self.i]) {
            self.i += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn expect(&mut self, c: u8) -> Result<(), String> {
        self.ws();
        if self.peek() == Some(c) {
            self.i += 1;
            Ok(())
        } else {
            Err(format!("JSON: expected {:?} at byte {}", c as char, self.i))
        }
    }

    fn literal(&mut self, word: &str, v: Value) -> Result<Value, String> {
        if self.s[self.i..].starts_with(word.as_bytes()) {
            self.i += word.len();
            Ok(v)
        } else {
            Err(format!("JSON: bad literal at byte {}", self.i))
        }
    }

    fn value(&mut self) -> Result<Value, String> {
        self.ws();
        match self.peek() {
            Some(b'{') => {
                self.i += 1;
                let mut entries = Vec::new();
                self.ws();
                if self.peek() == Some(b'}') {
                    self.i += 1;
                    return Ok(Value::Map(entries));
                }
                loop {
                    self.ws();
                    let key = self.string()?;
                    self.expect(b':')?;
                    entries.push((Value::from(key), self.value()?));
                    self.ws();
                    match self.peek() {
                        Some(b',') => self.i += 1,
                        Some(b'}') => {
                            self.i += 1;
                            return Ok(Value::Map(entries));
                        }
                        _ => return Err(format!("JSON: bad object at byte {}", self.i)),
                    }
                }
            }
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.peek() == Some(b']') {
                    self.i += 1;
                    return Ok(Value::Array(items));
                }
                loop {
                    items.push(self.value()?);
                    self.ws();
                    match self.peek() {
                        Some(b',') => self.i += 1,
                        Some(b']') => {
                            self.i += 1;
                            return Ok(Value::Array(items));
                        }
                        _ => return Err(format!("JSON: bad array at byte {}", self.i)),
                    }
                }
            }
            Some(b'"') => Ok(Value::from(self.string()?)),
            Some(b't') => self.literal("true", Value::Boolean(true)),
            Some(b'f') => self.literal("false", Value::Boolean(false)),
            Some(b'n') => self.literal("null", Value::Nil),
            Some(_) => self.number(),
            None => Err("JSON: unexpected end".into()),
        }
    }

    fn number(&mut self) -> Result<Value, String> {
        let start = self.i;
        while self.i < self.s.len() && b"+-0123456789.eE".contains(&self.s[self.i]) {
            self.i += 1;
        }
        let text = std::str::from_utf8(&self.s[start..self.i]).unwrap();
        let bad = || format!("JSON: bad number {text:?} at byte {start}");
        if text.contains(['.', 'e', 'E']) {
            text.parse::<f64>().map(Value::F64).map_err(|_| bad())
        } else if text.starts_with('-') {
            text.parse::<i64>().map(Value::from).map_err(|_| bad())
        } else {
            text.parse::<u64>().map(Value::from).map_err(|_| bad())
        }
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let digits = self
            .s
            .get(self.i..self.i + 4)
            .ok_or("JSON: short \\u escape")?;
        self.i += 4;
        u32::from_str_radix(std::str::from_utf8(digits).unwrap(), 16).map_err(|e| e.to_string())
    }

    fn string(&mut self) -> Result<String, String> {
        if self.peek() != Some(b'"') {
            return Err(format!("JSON: expected a string at byte {}", self.i));
        }
        self.i += 1;
        let mut out: Vec<u8> = Vec::new();
        loop {
            let c = self.peek().ok_or("JSON: unterminated string")?;
            self.i += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let e = self.peek().ok_or("JSON: unterminated string")?;
                    self.i += 1;
                    let ch = match e {
                        b'n' => '\n',
                        b't' => '\t',
                        b'r' => '\r',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'u' => {
                            let mut cp = self.hex4()?;
                            if (0xD800..0xDC00).contains(&cp)
                                && self.s[self.i..].starts_with(b"\\u")
                            {
                                self.i += 2;
                                let lo = self.hex4()?;
                                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                            }
                            char::from_u32(cp).ok_or("JSON: bad \\u escape")?
                        }
                        other => other as char, // \" \\ \/
                    };
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
                _ => out.push(c),
            }
        }
        String::from_utf8(out).map_err(|e| e.to_string())
    }
}

// ---------------------------------------------------------------------------
// Bytes in pieces

/// A reader over `data` that returns at most `chunk` bytes per read, and exactly
/// `first` bytes on the first read if `first` is nonzero: a pipe delivering a
/// stream in arbitrary pieces (SPEC §3.6).
pub struct Pieces<'a> {
    pub data: &'a [u8],
    pub chunk: usize,
    pub first: usize,
}

impl Read for Pieces<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let limit = if self.first != 0 {
            std::mem::take(&mut self.first)
        } else {
            self.chunk
        };
        let n = self.data.len().min(limit).min(buf.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}
