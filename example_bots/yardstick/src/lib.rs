//! The yardstick bot for the ONO 99 arena: an information-set Monte Carlo tree
//! search (ISMCTS) player.
//!
//! - [`protocol`]: wire protocol v1 (a copy of the Rust kit's `src/protocol.rs`).
//! - [`game`]: the rules (SPEC §2), a full-information simulator for the playouts.
//! - [`tracker`]: what a seat knows: the public record of the round, read from
//!   the events and the observation of every act.
//! - [`determinize`]: deals the hidden cards consistently with all of it.
//! - [`infer`]: what the other seats' plays say about their hands.
//! - [`search`]: single-observer ISMCTS with per-seat rewards (Cowling, Powley and
//!   Whitehouse 2012), playouts with a cheap heuristic policy.
//! - [`mo_search`]: the multiple-observer variant (MO-ISMCTS), a tree per seat.
//! - [`policy`]: that heuristic (the Rust kit's), used in the playouts.

pub mod determinize;
pub mod game;
pub mod infer;
pub mod mo_search;
pub mod policy;
pub mod protocol;
pub mod rng;
pub mod search;
pub mod tracker;
