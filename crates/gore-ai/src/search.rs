//! Negamax alpha-beta with principal-variation search, iterative deepening,
//! aspiration windows, a transposition table, killer and history ordering,
//! and a capture quiescence search.
//!
//! Goré's turn order is irregular: after `accept` or `decline` the same
//! player moves again. A child's score is therefore negated only when the
//! player to move changes.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use gore_core::{Action, Player, Position};

use crate::eval::{evaluate, terminal, Oracle, Weights};
use crate::tt::{encode, Bound, Table};

/// Internal scores are the reported ones (1/100 seed) times this, plus a
/// tie-break smaller than half of it: see [`age`].
pub(crate) const SCALE: i32 = 1024;
pub(crate) const INF: i32 = 30_000 * SCALE;
const MAX_PLY: usize = 128;
const QMAX: u32 = 8;
/// Shallowest remaining depth at which the transposition table is used.
const TT_MIN_DEPTH: i32 = 2;

/// A child's score seen from one ply higher: moved one unit towards zero.
///
/// So among lines of equal value, a positive score (a win, or an
/// advantage) reached sooner scores higher, and a negative one reached
/// later: the engine finishes a won game instead of shuffling, and
/// prolongs a lost one. A score stored in the table is relative to its own
/// node, so it stays right wherever the position is met again. The
/// tie-break never exceeds the search's depth in plies (at most
/// [`MAX_PLY`] < `SCALE / 2`), so [`external`] recovers the value.
#[inline]
fn age(v: i32) -> i32 {
    v - v.signum()
}

/// The lowest child score that, aged, is above `alpha` is above this one.
#[inline]
fn lo_before_age(alpha: i32) -> i32 {
    if alpha <= -INF {
        alpha
    } else if alpha >= 0 {
        alpha + 1
    } else {
        alpha - 1
    }
}

/// The child score that, aged, reaches `beta` at least reaches this one.
#[inline]
fn hi_before_age(beta: i32) -> i32 {
    if beta >= INF {
        beta
    } else if beta > 0 {
        beta + 1
    } else {
        beta - 1
    }
}

/// A reported score (1/100 seed) at the internal scale.
#[inline]
pub(crate) fn internal(v: i32) -> i32 {
    v * SCALE
}

/// An internal score as reported: the tie-break rounded away.
#[inline]
pub(crate) fn external(v: i32) -> i32 {
    (v + v.signum() * (SCALE / 2)) / SCALE
}

/// Filter size for the repetition pre-check (a power of two).
const REP_FILTER: usize = 1 << 14;

/// An action with its ordering key and the position it leads to.
#[derive(Clone, Copy)]
struct Move {
    key: i32,
    action: Action,
    child: Position,
    hash: u64,
}

/// Ordering keys of capturing sowings start here.
const CAPTURE: i32 = 1 << 24;

pub(crate) struct Searcher<'a> {
    pub tt: &'a mut Table,
    pub weights: Weights,
    /// Asked at the leaves before the static evaluation.
    pub oracle: Option<&'a dyn Oracle>,
    /// The side that accepts every offer made to it (honourable play).
    pub honourable: Option<Player>,
    /// Hashes of the game's positions, then of the search path.
    pub path: Vec<u64>,
    rep_filter: Vec<u8>,
    /// Added to `accept` at the root (internal units; 0 for none): the
    /// engine's glory (see `Options::glory`). Root scores then include it,
    /// so the root is not stored in the table.
    pub accept_bonus: i32,
    /// The best action of the root's last completed search.
    pub root_best: Option<Action>,
    /// Plies left before the ply cap ends the game, counted from the root.
    pub cap_left: Option<u32>,
    pub nodes: u64,
    pub node_limit: Option<u64>,
    pub deadline: Option<Instant>,
    pub stop: &'a AtomicBool,
    pub aborted: bool,
    /// The node count at which the stop flag and the clock are looked at
    /// next ([`CHECK_EVERY`] apart).
    next_check: u64,
    killers: [[u16; 2]; MAX_PLY],
    history: Box<[[i32; 0x203]; 2]>,
    lists: Vec<Vec<Move>>,
}

/// Nodes between two looks at the stop flag and the clock.
pub const CHECK_EVERY: u64 = 1024;

impl<'a> Searcher<'a> {
    pub fn new(tt: &'a mut Table, stop: &'a AtomicBool, history_hashes: &[u64]) -> Self {
        let mut s = Searcher {
            tt,
            weights: Weights::default(),
            oracle: None,
            honourable: None,
            accept_bonus: 0,
            root_best: None,
            path: Vec::with_capacity(history_hashes.len() + MAX_PLY),
            rep_filter: vec![0; REP_FILTER],
            cap_left: None,
            nodes: 0,
            node_limit: None,
            deadline: None,
            stop,
            aborted: false,
            next_check: 0,
            killers: [[0xffff; 2]; MAX_PLY],
            history: Box::new([[0; 0x203]; 2]),
            lists: (0..MAX_PLY + 1).map(|_| Vec::with_capacity(32)).collect(),
        };
        for &h in history_hashes {
            s.push(h);
        }
        s
    }

    #[inline]
    fn push(&mut self, h: u64) {
        self.path.push(h);
        let slot = &mut self.rep_filter[h as usize & (REP_FILTER - 1)];
        *slot = slot.saturating_add(1);
    }

    #[inline]
    fn pop(&mut self) {
        if let Some(h) = self.path.pop() {
            let slot = &mut self.rep_filter[h as usize & (REP_FILTER - 1)];
            *slot = slot.saturating_sub(1);
        }
    }

    /// Whether the position with hash `h`, just pushed, is its third
    /// occurrence: then repetition ends the game there.
    #[inline]
    fn third_occurrence(&self, h: u64) -> bool {
        if self.rep_filter[h as usize & (REP_FILTER - 1)] < 3 {
            return false;
        }
        self.path.iter().filter(|&&x| x == h).count() >= 3
    }

    #[inline]
    fn check_limits(&mut self) {
        // A count reached, not a multiple met: the nodes counted outside
        // the main search (quiescence, child scores) cannot skip a look.
        if self.nodes >= self.next_check {
            self.next_check = self.nodes + CHECK_EVERY;
            if self.stop.load(Ordering::Relaxed) {
                self.aborted = true;
            }
            if let Some(d) = self.deadline {
                if Instant::now() >= d {
                    self.aborted = true;
                }
            }
        }
        if let Some(n) = self.node_limit {
            if self.nodes >= n {
                self.aborted = true;
            }
        }
    }

    /// The score of `child` (reached from `parent` by one action), from the
    /// point of view of the player to move at `parent`.
    #[inline]
    fn child_score(
        &mut self,
        parent: &Position,
        m: &Move,
        depth: i32,
        ply: usize,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        let (child, h) = (&m.child, m.hash);
        self.push(h);
        let same = child.to_move() == parent.to_move();
        let v = if child.is_ended()
            || self.third_occurrence(h)
            || self.cap_left.is_some_and(|c| ply as u32 + 1 >= c)
        {
            // The game ends here: the sweep decides.
            let t = internal(if child.is_ended() {
                terminal(child)
            } else {
                terminal(&child.swept())
            });
            self.nodes += 1;
            age(if same { t } else { -t })
        } else {
            let (lo, hi) = (lo_before_age(alpha), hi_before_age(beta));
            age(if same {
                self.negamax(child, h, depth, ply + 1, lo, hi)
            } else {
                -self.negamax(child, h, depth, ply + 1, -hi, -lo)
            })
        };
        self.pop();
        v
    }

    /// Fills `list` with the legal actions of `pos` (the honourable side
    /// only accepts), each with its child position and an ordering key;
    /// best first. The key says whether the action captures (bit 24).
    fn order(&self, pos: &Position, ply: usize, tt_move: u16, list: &mut Vec<Move>) {
        list.clear();
        let me = pos.to_move();
        if pos.pending_offer().is_some() && self.honourable == Some(me) {
            let mut c = *pos;
            c.play_unchecked(Action::Accept);
            list.push(Move {
                key: 0,
                action: Action::Accept,
                child: c,
                hash: c.hash(),
            });
            return;
        }
        let killers = if ply < MAX_PLY {
            self.killers[ply]
        } else {
            [0xffff; 2]
        };
        let history = &self.history[me.index()];
        for &a in pos.legal_actions().iter() {
            let code = encode(a);
            let mut c = *pos;
            c.play_unchecked(a);
            let mut key = match a {
                Action::Sow(_) => {
                    let gain = c.captured(me) as i32 - pos.captured(me) as i32;
                    if gain > 0 {
                        CAPTURE + gain * 4096
                    } else {
                        1 << 20
                    }
                }
                _ => 0,
            };
            if code == tt_move {
                key += 1 << 28;
            } else if code == killers[0] || code == killers[1] {
                key += 1 << 22;
            }
            key += history[code as usize].min((1 << 19) - 1);
            let hash = c.hash();
            list.push(Move {
                key,
                action: a,
                child: c,
                hash,
            });
        }
        list.sort_unstable_by_key(|m| std::cmp::Reverse(m.key));
    }

    pub fn negamax(
        &mut self,
        pos: &Position,
        hash: u64,
        depth: i32,
        ply: usize,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
        self.nodes += 1;
        self.check_limits();
        if self.aborted {
            return 0;
        }
        if depth <= 0 || ply >= MAX_PLY {
            return self.quiesce(pos, alpha, beta, 0);
        }
        let alpha0 = alpha;
        let mut tt_move = 0xffff;
        // Nodes next to the horizon are most of the tree; their table
        // lookups would be cache misses costing more than they save. The
        // root always stores: its best action is read back from the table.
        let use_tt = depth >= TT_MIN_DEPTH || ply == 0;
        let key = tt_key(hash, self.cap_left, ply);
        if let Some(hit) = if use_tt { self.tt.probe(key) } else { None } {
            if let Some(a) = hit.action {
                tt_move = encode(a);
            }
            if hit.depth >= depth && ply > 0 {
                match hit.bound {
                    Bound::Exact => return hit.score,
                    Bound::Lower if hit.score >= beta => return hit.score,
                    Bound::Upper if hit.score <= alpha => return hit.score,
                    _ => {}
                }
            }
        }
        let mut list = std::mem::take(&mut self.lists[ply]);
        self.order(pos, ply, tt_move, &mut list);
        let mut best = -INF;
        let mut best_action = None;
        // An answer costs no depth: the offer and its answer change
        // nothing on the board, and charging both put every trade two
        // plies nearer the horizon than a sowing (docs/STRENGTH.md,
        // "Trades"). The offer itself is charged, so lines of offers and
        // declines still run out of depth.
        let child_depth = if pos.pending_offer().is_some() {
            depth
        } else {
            depth - 1
        };
        for (i, m) in list.iter().enumerate() {
            let a = m.action;
            let bonus = if ply == 0 && a == Action::Accept {
                self.accept_bonus
            } else {
                0
            };
            let v = if i == 0 {
                self.scored(pos, m, child_depth, ply, alpha, beta, bonus)
            } else {
                // Late, quiet actions are searched shallower first (LMR);
                // any that beats alpha is searched again in full.
                let quiet = m.key < CAPTURE && encode(a) != tt_move;
                let r = if depth >= 3 && i >= 3 && quiet {
                    1 + (i >= 8) as i32
                } else {
                    0
                };
                let mut v = self.scored(pos, m, child_depth - r, ply, alpha, alpha + 1, bonus);
                if r > 0 && v > alpha && !self.aborted {
                    v = self.scored(pos, m, child_depth, ply, alpha, alpha + 1, bonus);
                }
                if v > alpha && v < beta && !self.aborted {
                    v = self.scored(pos, m, child_depth, ply, alpha, beta, bonus);
                }
                v
            };
            if self.aborted {
                break;
            }
            if v > best {
                best = v;
                best_action = Some(a);
                if v > alpha {
                    alpha = v;
                    if alpha >= beta {
                        if m.key < CAPTURE {
                            let code = encode(a);
                            if ply < MAX_PLY && self.killers[ply][0] != code {
                                self.killers[ply][1] = self.killers[ply][0];
                                self.killers[ply][0] = code;
                            }
                            let h = &mut self.history[pos.to_move().index()][code as usize];
                            *h += depth * depth;
                        }
                        break;
                    }
                }
            }
        }
        self.lists[ply] = list;
        if self.aborted {
            return 0;
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha0 {
            Bound::Exact
        } else {
            Bound::Upper
        };
        if ply == 0 {
            self.root_best = best_action;
        }
        if use_tt && !(ply == 0 && self.accept_bonus != 0) {
            self.tt.store(key, depth, best, bound, best_action);
        }
        best
    }

    /// [`Searcher::child_score`] with `bonus` added to the child's score.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn scored(
        &mut self,
        parent: &Position,
        m: &Move,
        depth: i32,
        ply: usize,
        alpha: i32,
        beta: i32,
        bonus: i32,
    ) -> i32 {
        if bonus == 0 {
            return self.child_score(parent, m, depth, ply, alpha, beta);
        }
        self.child_score(parent, m, depth, ply, alpha - bonus, beta - bonus) + bonus
    }

    /// Captures only, until the position is quiet.
    fn quiesce(&mut self, pos: &Position, mut alpha: i32, beta: i32, qply: u32) -> i32 {
        self.nodes += 1;
        let stand = internal(match self.oracle.and_then(|o| o.score(pos)) {
            Some(known) => known,
            None => evaluate(pos, &self.weights),
        });
        if stand >= beta || qply >= QMAX || pos.pending_offer().is_some() {
            return stand;
        }
        if stand > alpha {
            alpha = stand;
        }
        let me = pos.to_move();
        let mut best = stand;
        for h in pos.sowable_holes().iter() {
            let mut child = *pos;
            child.play_unchecked(Action::Sow(h));
            if child.captured(me) == pos.captured(me) && !child.is_ended() {
                continue;
            }
            let v = if child.is_ended() {
                -internal(terminal(&child))
            } else {
                -self.quiesce(&child, -beta, -alpha, qply + 1)
            };
            if v > best {
                best = v;
                if v > alpha {
                    alpha = v;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        best
    }
}

/// The table key of a position `ply` plies below the root. Under a ply cap
/// a position's value depends on how many actions are left, so that number
/// is part of the key.
#[inline]
pub(crate) fn tt_key(hash: u64, cap_left: Option<u32>, ply: usize) -> u64 {
    match cap_left {
        None => hash,
        Some(c) => {
            let left = (c as u64).wrapping_sub(ply as u64);
            hash ^ left
                .wrapping_add(1)
                .wrapping_mul(0x9e37_79b9_7f4a_7c15)
                .rotate_left(29)
        }
    }
}

/// Follows the table's best actions from `pos`: the principal variation.
pub(crate) fn pv_from_table(
    tt: &Table,
    pos: &Position,
    max: usize,
    cap_left: Option<u32>,
) -> Vec<Action> {
    let mut pv = Vec::new();
    let mut p = *pos;
    let mut seen = Vec::new();
    while pv.len() < max {
        let h = p.hash();
        if seen.contains(&h) {
            break;
        }
        seen.push(h);
        let key = tt_key(h, cap_left, pv.len());
        let Some(a) = tt.probe(key).and_then(|hit| hit.action) else {
            break;
        };
        match p.play(a) {
            Ok(next) => {
                pv.push(a);
                p = next;
            }
            Err(_) => break,
        }
        if p.is_ended() {
            break;
        }
    }
    pv
}

/// Converts a time budget into a deadline.
pub(crate) fn deadline(time: Option<Duration>, start: Instant) -> Option<Instant> {
    time.map(|t| start + t)
}
