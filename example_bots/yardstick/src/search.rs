//! Single-observer information-set Monte Carlo tree search (SO-ISMCTS; Cowling,
//! Powley and Whitehouse, "Information Set Monte Carlo Tree Search", IEEE TCIAIG
//! 2012), with a reward per seat (each node is judged by the seat that chose it).
//!
//! Every iteration deals a fresh determinization (determinize.rs), walks down the
//! one tree over the actions legal in that deal (UCB1 with availability counts:
//! a child's exploration term counts the iterations in which it could be chosen),
//! adds one node, plays the game out with the playout policy (policy.rs) and
//! backs up the result: for each seat, 1 for first place down to 0 for last among
//! the seats in the game at the root.
//!
//! mo_search.rs searches with MO-ISMCTS instead, from the same parameters: a tree
//! per seat, each keyed by what that seat observes.

use std::time::Instant;

use crate::determinize::{deal, Template};
use crate::game::{Action, Format, State, MAX_SEATS};
use crate::policy;
use crate::rng::Rng;

#[derive(Debug, Clone)]
pub struct Params {
    /// Stop after this many iterations (playouts).
    pub max_iterations: u64,
    /// Stop at this instant, whatever the count.
    pub deadline: Option<Instant>,
    /// The UCB exploration constant.
    pub exploration: f64,
    /// The playouts' share of random moves.
    pub epsilon: f64,
    pub seed: u64,
    /// The deepest node the tree grows (1: only the root's actions, flat Monte Carlo).
    pub max_depth: usize,
    /// Whether the other seats' choices are nodes of the tree (searched); if not,
    /// they play the playout policy there too.
    pub opponent_nodes: bool,
    /// The heuristic of the playouts.
    pub policy: policy::Policy,
    /// In the tokens and points formats, end each playout with the round and reward
    /// its result (round_rewards) instead of playing the game out.
    pub round_reward: bool,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            max_iterations: 1000,
            deadline: None,
            exploration: 0.7,
            epsilon: 0.1,
            seed: 1,
            max_depth: 64,
            opponent_nodes: true,
            policy: policy::Policy::Kit,
            round_reward: true,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Outcome {
    /// The action chosen: the root's most visited.
    pub action: Action,
    pub iterations: u64,
    /// Per root action: visits and mean reward.
    pub stats: Vec<(Action, u32, f64)>,
}

struct Node {
    action: Action,
    mover: u8,
    visits: u32,
    avail: u32,
    reward: f64,
    children: Vec<u32>,
}

pub(crate) const MAX_NODES: usize = 4_000_000;

/// The end of a playout: the game's end, or with `round_reward` (tokens and points),
/// the end of the root's round.
#[inline]
pub(crate) fn done(s: &State, round: Option<u32>) -> bool {
    s.over || round.is_some_and(|r| s.round != r)
}

/// Round rewards. Tokens: 0 for a seat that lost a token or left the game since the
/// root, 1 for the others in the game at the root. Points: by the points the round
/// added, 1 for the fewest … 0 for the most (ties share), among the seats in the game
/// at the root.
fn round_rewards(s: &State, root: &State) -> [f64; MAX_SEATS] {
    let mut r = [0.0; MAX_SEATS];
    let n = s.cfg.players;
    if s.cfg.format == Format::Points {
        let seats: Vec<usize> = (0..n).filter(|&i| root.in_game[i]).collect();
        let added = |i: usize| s.scores[i] - root.scores[i];
        let span = (seats.len().max(2) - 1) as f64;
        for &i in &seats {
            let worse = seats.iter().filter(|&&o| added(o) > added(i)).count() as f64;
            let tied = seats
                .iter()
                .filter(|&&o| o != i && added(o) == added(i))
                .count() as f64;
            r[i] = (worse + 0.5 * tied) / span;
        }
        return r;
    }
    for (seat, slot) in r.iter_mut().enumerate().take(n) {
        if root.in_game[seat] && s.in_game[seat] && s.tokens[seat] >= root.tokens[seat] {
            *slot = 1.0;
        }
    }
    r
}

/// Place-based rewards: 1 for first, 0 for last of the `alive` seats at the root.
fn rewards(s: &State, alive: usize) -> [f64; MAX_SEATS] {
    let mut r = [0.0; MAX_SEATS];
    let span = (alive.max(2) - 1) as f64;
    for (seat, slot) in r.iter_mut().enumerate().take(s.cfg.players) {
        let place = s.places[seat] as f64;
        if place >= 1.0 {
            *slot = ((alive as f64 - place) / span).clamp(0.0, 1.0);
        }
    }
    r
}

/// The answer without a search, when the root has at most one legal action.
pub(crate) fn forced(tp: &Template) -> Option<Outcome> {
    let legal = tp.state.legal();
    (legal.len() <= 1).then(|| Outcome {
        action: legal.first().copied().unwrap_or(0),
        iterations: 0,
        stats: vec![],
    })
}

pub fn search(tp: &Template, p: &Params) -> Outcome {
    if let Some(out) = forced(tp) {
        return out;
    }
    let alive = tp.state.alive;
    let round = playout_round(tp, p);
    let mut rng = Rng::new(p.seed);
    let mut nodes: Vec<Node> = Vec::with_capacity(1024);
    nodes.push(Node {
        action: 0,
        mover: 0,
        visits: 0,
        avail: 0,
        reward: 0.0,
        children: Vec::new(),
    });
    let mut scratch = Vec::with_capacity(112);
    let mut path: Vec<u32> = Vec::with_capacity(64);
    let mut iterations = 0u64;
    while iterations < p.max_iterations && !past_deadline(p) {
        iterations += 1;
        let mut s = deal(tp, &mut rng, &mut scratch);
        path.clear();
        path.push(0);
        let mut node = 0usize;
        // Selection and expansion.
        let me = tp.state.current;
        while !done(&s, round) {
            if !p.opponent_nodes && s.current != me {
                let a = policy::playout_with(p.policy, &s, &mut rng, p.epsilon);
                s.apply(a, &mut rng);
                continue;
            }
            let legal = s.legal();
            let mover = s.current as u8;
            // untried legal actions
            let mut untried = [0u8; 12];
            let mut nu = 0;
            for &a in legal {
                if !nodes[node]
                    .children
                    .iter()
                    .any(|&c| nodes[c as usize].action == a)
                {
                    untried[nu] = a;
                    nu += 1;
                }
            }
            if path.len() > p.max_depth {
                break; // deep enough: play out from here
            }
            if nu > 0 && nodes.len() < MAX_NODES {
                let a = untried[rng.below(nu)];
                let id = nodes.len() as u32;
                nodes.push(Node {
                    action: a,
                    mover,
                    visits: 0,
                    avail: 0,
                    reward: 0.0,
                    children: Vec::new(),
                });
                nodes[node].children.push(id);
                // the siblings that could have been chosen were available
                let kids = nodes[node].children.clone();
                for c in kids {
                    if legal.contains(&nodes[c as usize].action) {
                        nodes[c as usize].avail += 1;
                    }
                }
                s.apply(a, &mut rng);
                path.push(id);
                break;
            }
            if nu > 0 {
                break; // out of nodes: play out from here
            }
            // UCB1 over the available children
            let mut best = u32::MAX;
            let mut best_v = f64::NEG_INFINITY;
            let kids = std::mem::take(&mut nodes[node].children);
            for &c in &kids {
                let ch = &mut nodes[c as usize];
                if !legal.contains(&ch.action) {
                    continue;
                }
                ch.avail += 1;
                let v = ucb(ch.reward, ch.visits, ch.avail, p.exploration);
                if v > best_v {
                    best_v = v;
                    best = c;
                }
            }
            nodes[node].children = kids;
            let a = nodes[best as usize].action;
            s.apply(a, &mut rng);
            node = best as usize;
            path.push(best);
        }
        // Playout.
        while !done(&s, round) {
            let a = policy::playout_with(p.policy, &s, &mut rng, p.epsilon);
            s.apply(a, &mut rng);
        }
        // Backpropagation.
        let r = playout_rewards(&s, &tp.state, alive);
        for &id in &path {
            let n = &mut nodes[id as usize];
            n.visits += 1;
            if id != 0 {
                n.reward += r[n.mover as usize];
            }
        }
    }
    let stats: Vec<(Action, u32, f64)> = nodes[0]
        .children
        .iter()
        .map(|&c| {
            let n = &nodes[c as usize];
            (n.action, n.visits, n.reward / n.visits.max(1) as f64)
        })
        .collect();
    final_choice(tp, stats, iterations)
}

/// The UCB1 value of a child, with availability counts: its mean reward plus the
/// exploration term over the playouts in which it could have been chosen.
#[inline]
pub(crate) fn ucb(reward: f64, visits: u32, avail: u32, exploration: f64) -> f64 {
    reward / visits as f64 + exploration * ((avail as f64).ln() / visits as f64).sqrt()
}

/// Whether the search's deadline has passed: checked before every playout.
pub(crate) fn past_deadline(p: &Params) -> bool {
    p.deadline.is_some_and(|d| Instant::now() >= d)
}

/// The round a playout ends with (tokens and points with `round_reward`), if any.
pub(crate) fn playout_round(tp: &Template, p: &Params) -> Option<u32> {
    (p.round_reward && tp.state.cfg.format != Format::Single).then_some(tp.state.round)
}

/// The rewards of a finished playout: by places at the game's end, else the round's.
pub(crate) fn playout_rewards(s: &State, root: &State, alive: usize) -> [f64; MAX_SEATS] {
    if s.over {
        rewards(s, alive)
    } else {
        round_rewards(s, root)
    }
}

/// The root action most visited (ties: the better mean), with the stats sorted by
/// action; the heuristic's if the root has no statistics.
pub(crate) fn final_choice(
    tp: &Template,
    mut stats: Vec<(Action, u32, f64)>,
    iterations: u64,
) -> Outcome {
    stats.sort_by_key(|x| x.0);
    let action = stats
        .iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(a.2.partial_cmp(&b.2).unwrap()))
        .map(|x| x.0)
        .unwrap_or_else(|| policy::best(&tp.state));
    Outcome {
        action,
        iterations,
        stats,
    }
}
