//! The Rust starter kit for the ONO 99 arena, as a library: `protocol` (framing,
//! strict checks, field access, the bot's messages) and `strategy` (the choice).
//! The bot itself is `src/main.rs`; the tests in `tests/` use this library.

pub mod protocol;
pub mod strategy;
