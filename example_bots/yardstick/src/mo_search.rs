//! Multiple-observer ISMCTS (MO-ISMCTS; Cowling, Powley and Whitehouse 2012, the
//! section on MO-ISMCTS): one tree per seat, each over that seat's information
//! sets, descended in lockstep. It takes the one-tree search's `Params` (search.rs).
//!
//! Every iteration deals a fresh determinization (as SO-ISMCTS does). At each
//! decision the seat to move chooses in *its own* tree (UCB1 with availability
//! counts, as in search.rs); every tree then follows the projection of that action
//! onto its observer. In ONO 99 every action (a play, a quad, a bust) is public, so
//! the projection is the action itself, in every tree. When the seat to move has
//! untried actions in its tree, one is added (to every tree, each on its own path)
//! and the iteration plays out; the result is backed up along every tree's path,
//! each node credited with the reward of the seat whose action it is.
//!
//! What each tree conditions on. A seat's information set is its observation
//! history: the public actions of every seat, and its own cards: the hand it was
//! dealt and each card it has drawn since. The other hands and the draw pile it
//! never sees. So seat i's tree is keyed by
//!
//! - every public action (an edge labelled by the action, in every tree), and
//! - before each of seat i's own decisions, seat i's hand (an edge labelled by the
//!   hand, in seat i's tree only). Given the public history the hand and the cards
//!   drawn determine each other, so keying by the hand is keying by the draws.
//!
//! If the trees were keyed by the public actions alone, every tree would be the same
//! tree and MO-ISMCTS would be SO-ISMCTS (as in any game whose moves are all public
//! and whose hidden cards are all dealt at the start); what makes them differ here is
//! the private draws. The
//! consequences, compared with SO-ISMCTS (search.rs):
//!
//! - an opponent's choice is made from statistics gathered only over deals in which
//!   it held the hand it holds in this deal: it plays its own cards, not an average
//!   over every hand it might hold (SO's opponent nodes pool all deals and use the
//!   deal only to filter the legal actions). It still never sees the others' hidden
//!   cards or the draw pile: its node pools all deals of those.
//! - the searcher's own later decisions likewise depend on what it will have drawn.
//! - the legal actions at a node of a seat's own decision depend only on its hand
//!   and the public state, both fixed by the node, so availability counts equal the
//!   node's visits: plain UCB1, no strategy fusion in one's own moves.
//! - the price: an opponent's decision node is split by every hand it may hold (up
//!   to thousands), so each is visited rarely, and a freshly reached hand expands at
//!   random. With a few hundred playouts an opponent's replies in the tree are close
//!   to random moves followed by the playout policy.
//!
//! The root of the searcher's tree is its real information set (its real hand), so it
//! has no hand edge. The trees share one node arena and one edge map.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::determinize::{deal, Template};
use crate::game::{Action, Hand, MAX_SEATS};
use crate::policy;
use crate::rng::Rng;
use crate::search::{
    done, final_choice, forced, past_deadline, playout_rewards, playout_round, ucb, Outcome,
    Params, MAX_NODES,
};

/// A small multiplicative hasher for the edge map (its keys are already well spread
/// integers; std's SipHash would cost more than the rest of a tree step).
#[derive(Default, Clone, Copy)]
struct EdgeHasher(u64);

impl Hasher for EdgeHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    #[inline]
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

type Edges = HashMap<u64, u32, BuildHasherDefault<EdgeHasher>>;

struct Node {
    /// The seat whose action (or, for a hand edge, whose hand) leads here.
    mover: u8,
    visits: u32,
    avail: u32,
    reward: f64,
}

/// A hand edge's label: the sorted cards, 5 bits each (card + 1), above every action.
#[inline]
fn hand_label(h: &Hand) -> u32 {
    let mut c = h.cards;
    let n = h.len as usize;
    c[..n].sort_unstable();
    let mut code = 0u32;
    for &x in &c[..n] {
        code = code << 5 | (x as u32 + 1);
    }
    1 << 31 | code
}

#[inline]
fn key(parent: u32, label: u32) -> u64 {
    (parent as u64) << 32 | label as u64
}

struct Forest {
    nodes: Vec<Node>,
    edges: Edges,
}

impl Forest {
    fn new_node(&mut self, mover: usize) -> u32 {
        self.nodes.push(Node {
            mover: mover as u8,
            visits: 0,
            avail: 0,
            reward: 0.0,
        });
        (self.nodes.len() - 1) as u32
    }

    #[inline]
    fn child(&self, parent: u32, label: u32) -> Option<u32> {
        self.edges.get(&key(parent, label)).copied()
    }

    fn child_or_new(&mut self, parent: u32, label: u32, mover: usize) -> u32 {
        if let Some(c) = self.child(parent, label) {
            return c;
        }
        let c = self.new_node(mover);
        self.edges.insert(key(parent, label), c);
        c
    }
}

/// MO-ISMCTS from `tp` with the parameters of the one-tree search (search.rs).
pub fn search(tp: &Template, p: &Params) -> Outcome {
    if let Some(out) = forced(tp) {
        return out;
    }
    let root_legal: Vec<Action> = tp.state.legal().to_vec();
    let me = tp.state.current;
    let alive = tp.state.alive;
    let round = playout_round(tp, p);
    let mut rng = Rng::new(p.seed);
    // One tree per observer: every seat in the game, or only the searcher when the
    // other seats play the playout policy (`opponent_nodes` off).
    let observers: Vec<usize> = (0..tp.state.cfg.players)
        .filter(|&i| i == me || (p.opponent_nodes && tp.state.in_game[i]))
        .collect();
    let mut tree_of = [usize::MAX; MAX_SEATS];
    let mut f = Forest {
        nodes: Vec::with_capacity(4096),
        edges: Edges::with_capacity_and_hasher(4096, Default::default()),
    };
    let mut roots = Vec::with_capacity(observers.len());
    for (k, &seat) in observers.iter().enumerate() {
        tree_of[seat] = k;
        roots.push(f.new_node(seat));
    }
    let mine = roots[tree_of[me]];
    let mut cur = roots.clone();
    let mut paths: Vec<Vec<u32>> = vec![Vec::with_capacity(64); observers.len()];
    let mut scratch = Vec::with_capacity(112);
    let mut iterations = 0u64;
    while iterations < p.max_iterations && !past_deadline(p) {
        iterations += 1;
        let mut s = deal(tp, &mut rng, &mut scratch);
        for k in 0..observers.len() {
            cur[k] = roots[k];
            paths[k].clear();
            paths[k].push(roots[k]);
        }
        let mut steps = 0usize;
        // Selection and expansion, in every tree at once.
        while !done(&s, round) && f.nodes.len() + 2 * observers.len() < MAX_NODES {
            let j = s.current;
            let kj = tree_of[j];
            if kj == usize::MAX {
                // a seat without a tree: the playout policy; the trees follow
                let a = policy::playout_with(p.policy, &s, &mut rng, p.epsilon);
                follow(&mut f, &mut cur, &mut paths, a, j);
                s.apply(a, &mut rng);
                continue;
            }
            if steps >= p.max_depth {
                break; // deep enough: play out from here
            }
            if steps > 0 {
                // the mover's own cards, seen in its tree only
                let h = f.child_or_new(cur[kj], hand_label(&s.hands[j]), j);
                cur[kj] = h;
                paths[kj].push(h);
            }
            let node = cur[kj];
            let legal = s.legal();
            let mut untried = [0u8; 12];
            let mut nu = 0;
            for &a in legal {
                if f.child(node, a as u32).is_none() {
                    untried[nu] = a;
                    nu += 1;
                }
            }
            let a = if nu > 0 {
                let a = untried[rng.below(nu)];
                f.child_or_new(node, a as u32, j);
                // the actions that could have been chosen were available
                for &b in legal {
                    let c = f.child(node, b as u32).unwrap_or(u32::MAX);
                    if c != u32::MAX {
                        f.nodes[c as usize].avail += 1;
                    }
                }
                a
            } else {
                // UCB1 over the legal children, all present
                let mut best = legal[0];
                let mut best_v = f64::NEG_INFINITY;
                for &b in legal {
                    let c = f.child(node, b as u32).expect("every legal action tried");
                    let ch = &mut f.nodes[c as usize];
                    ch.avail += 1;
                    let v = ucb(ch.reward, ch.visits, ch.avail, p.exploration);
                    if v > best_v {
                        best_v = v;
                        best = b;
                    }
                }
                best
            };
            follow(&mut f, &mut cur, &mut paths, a, j);
            s.apply(a, &mut rng);
            steps += 1;
            if nu > 0 {
                break; // one new action node in the mover's tree: play out
            }
        }
        // Playout.
        while !done(&s, round) {
            let a = policy::playout_with(p.policy, &s, &mut rng, p.epsilon);
            s.apply(a, &mut rng);
        }
        // Backpropagation, in every tree.
        let r = playout_rewards(&s, &tp.state, alive);
        for path in &paths {
            for &id in path {
                let n = &mut f.nodes[id as usize];
                n.visits += 1;
                n.reward += r[n.mover as usize];
            }
        }
    }
    let stats: Vec<(Action, u32, f64)> = root_legal
        .iter()
        .filter_map(|&a| {
            f.child(mine, a as u32).map(|c| {
                let n = &f.nodes[c as usize];
                (a, n.visits, n.reward / n.visits.max(1) as f64)
            })
        })
        .collect();
    final_choice(tp, stats, iterations)
}

/// Every tree takes the edge of action `a` by seat `mover` (its projection: the
/// action itself, plays being public), adding the node where it is new.
fn follow(f: &mut Forest, cur: &mut [u32], paths: &mut [Vec<u32>], a: Action, mover: usize) {
    for (c, path) in cur.iter_mut().zip(paths.iter_mut()) {
        *c = f.child_or_new(*c, a as u32, mover);
        path.push(*c);
    }
}
