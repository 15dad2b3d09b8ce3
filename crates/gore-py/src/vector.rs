//! The batch environment `gore.vector.GoreBatch` (docs/PYTHON.md,
//! "GoreBatch"): n games stepped together in Rust, their state exposed as
//! numpy arrays that the batch owns and overwrites in place, so a step
//! costs no copy and no Python object per game.
//!
//! Also the engine of `Game.rollouts` and the canonical observation
//! (`Game.canonical_observation`), which the batch shares.
//!
//! Every rule is gore-core's ([`Position::play_unchecked`] on actions its
//! [`Position::legal_actions`] listed); what is kept here is the game's
//! bookkeeping: the ply, the ply cap and threefold repetition. Repetition
//! is counted incrementally ([`History`]): gore-core's [`Game`] scans its
//! whole history at every action, the main cost of a long game.

use gore_core::{Action, Game, Player, Position, Rules};
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::{
    action_of_number, rules_arg, ActionError, GoreError, IllegalAction, PyPosition, PyRules,
    NUM_ACTIONS,
};

/// Length of the canonical observation (docs/PYTHON.md, "GoreBatch").
pub(crate) const CANON_SIZE: usize = 28;

/// A game's positions since its start, for threefold repetition: a hash
/// multiset of positions.
///
/// gore-core's [`Game`] counts by scanning its whole history at every
/// action; here each action costs one probe of an open-addressing table
/// of the distinct positions, each slot holding the position itself (its
/// varying part: [`Slot`]) and its count, so that a probe reads one cache
/// line and nothing else, and equality is checked on whole positions: the
/// count is exact. Slots are marked with the game's number (`game`), so
/// that starting a game again writes nothing: at n = 4096 a batch's
/// tables do not stay in cache, and zeroing a table at each new game cost
/// more than the probes.
///
/// The table is the game's region of a batch ([`Regions`]), passed in by
/// the caller, until the game outgrows it; then (or without a region) its
/// own `spill`.
#[derive(Clone, Default)]
struct History {
    /// The table once the region is outgrown (empty before: the region is
    /// the table).
    spill: Vec<Slot>,
    /// The current game's number: slots with another are empty.
    game: u16,
    /// Distinct positions of the current game in the table.
    used: u32,
}

/// A position in a [`History`] table, with its count.
#[derive(Clone, Copy, Default)]
struct Slot {
    /// The seeds of the eight holes, a byte each.
    holes: u64,
    /// The rest of the position ([`rest_of`]).
    rest: u32,
    /// The game the slot belongs to ([`History::game`]).
    game: u16,
    /// Occurrences of the position (at most 255).
    count: u8,
}

/// What a position holds besides its holes and its rule options (the
/// same throughout a game): bits 0-7 and 8-15 the captured piles of A and
/// B, 16-23 the holes B controls, 24-31 the pending offer's holes or,
/// with none, 0 when A is to move and 0xff when B is (never an offer: one
/// has at most 3 holes). An offer's holes say who is to move: the player
/// who does not control them.
#[inline]
fn rest_of(p: &Position) -> u32 {
    let extra = match p.pending_offer() {
        Some(s) => s.0,
        None if p.to_move() == Player::A => 0,
        None => 0xff,
    };
    u32::from(p.captured(Player::A))
        | u32::from(p.captured(Player::B)) << 8
        | u32::from(p.controlled(Player::B).0) << 16
        | u32::from(extra) << 24
}

/// A position's holes and rest ([`Slot`]) and its hash.
#[inline]
fn key_of(p: &Position) -> (u64, u32, u64) {
    let holes = u64::from_le_bytes(gore_core::Hole::ALL.map(|h| p.seeds(h)));
    let rest = rest_of(p);
    (holes, rest, hash_of(holes, rest))
}

/// The hash of a slot's position.
#[inline]
fn hash_of(holes: u64, rest: u32) -> u64 {
    // Two multiplicative rounds (FxHash's constant, then a Murmur3 one).
    let h = (holes.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ u64::from(rest))
        .wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    h ^ h >> 29
}

/// Slots of a game's region in a batch ([`Regions`]): 768 positions at
/// three quarters full, more than a random game of the standard rules
/// has in 3 cases out of 4 (median 320).
const REGION_SLOTS: usize = 1024;

/// The most games whose regions a batch allocates (256 MB of them); a
/// larger batch keeps each game's table on its own, as `Game.rollouts`
/// does.
const REGION_GAMES: usize = 16384;

/// The first repetition tables of a batch's games, [`REGION_SLOTS`] slots
/// each, side by side in one allocation that the kernel is asked to back
/// with huge pages (where it can: Linux's transparent huge pages).
///
/// At n = 4096 the tables take some 64 MB, and each step probes one slot
/// of each game at random: with 4 KB pages nearly every probe also missed
/// the processor's address translation cache, and a prefetch waited on
/// the page walk (`perf`: most of the step's time on the prefetch).
struct Regions(Vec<Slot>);

impl Regions {
    /// Regions for `n` games (none above [`REGION_GAMES`]).
    fn new(n: usize) -> Regions {
        if n > REGION_GAMES {
            return Regions(Vec::new());
        }
        let len = n * REGION_SLOTS;
        let mut v = Vec::with_capacity(len);
        // Before the slots are first written: the kernel chooses the page
        // size when it first maps the memory.
        advise_huge_pages(v.spare_capacity_mut());
        v.resize(len, Slot::default());
        Regions(v)
    }

    /// Game `i`'s region (empty without regions).
    #[inline]
    fn get(&mut self, i: usize) -> &mut [Slot] {
        self.0
            .get_mut(i * REGION_SLOTS..(i + 1) * REGION_SLOTS)
            .unwrap_or_default()
    }
}

/// Asks the kernel to back the 2 MB pages that `mem` covers with huge
/// pages (a hint: nothing else changes; elsewhere than on Linux, nothing).
fn advise_huge_pages<T>(mem: &mut [T]) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = mem.as_mut_ptr() as usize;
        let end = start + std::mem::size_of_val(mem);
        let (from, to) = (start.next_multiple_of(HUGE), end / HUGE * HUGE);
        if from < to {
            // SAFETY: the range lies within `mem`, memory this process
            // owns, and MADV_HUGEPAGE changes how it is mapped, never what
            // it holds. A failure (no transparent huge pages) is harmless.
            unsafe {
                libc::madvise(from as *mut libc::c_void, to - from, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = mem;
}

impl History {
    /// The table in use: `spill` if the game outgrew `region`, else the
    /// region.
    #[inline]
    fn table<'a>(spill: &'a mut [Slot], region: &'a mut [Slot]) -> &'a mut [Slot] {
        if spill.is_empty() {
            region
        } else {
            spill
        }
    }

    /// Starts again from `start`, in `region` if there is one.
    fn reset(&mut self, start: Position, region: &mut [Slot]) {
        if self.game == u16::MAX {
            // The numbers start again: no slot may keep an old one.
            region.fill(Slot::default());
            self.spill.clear();
            self.game = 0;
        }
        self.game += 1;
        if !region.is_empty() {
            self.spill = Vec::new();
        } else if self.spill.len() > 2048 {
            // A very long game's table would keep the batch's memory
            // large: back to the size a typical random game of some 400
            // actions needs.
            self.spill = vec![Slot::default(); 1024];
        }
        self.used = 0;
        self.push(start, region);
    }

    /// Doubles the table (a first one of 64 slots without a region) into
    /// `spill`, keeping it at most three quarters full.
    #[cold]
    fn grow(&mut self, region: &mut [Slot]) {
        let old = std::mem::take(&mut self.spill);
        let from: &[Slot] = if old.is_empty() { region } else { &old };
        let cap = (from.len() * 2).max(64);
        let mut table = vec![Slot::default(); cap];
        for s in from.iter().filter(|s| s.game == self.game) {
            let mut i = hash_of(s.holes, s.rest) as usize & (cap - 1);
            while table[i].game == self.game {
                i = (i + 1) & (cap - 1);
            }
            table[i] = *s;
        }
        self.spill = table;
    }

    /// Appends `p`; returns how many times it has now occurred (1 the
    /// first time), as [`Game::repetitions`] counts.
    fn push(&mut self, p: Position, region: &mut [Slot]) -> usize {
        let k = self.prepare(&p, region);
        self.push_prepared(k, region)
    }

    /// The first half of [`History::push`]: makes room, and returns the
    /// position's key after asking the processor for the table slot it
    /// will probe. A batch prepares a few games before it finishes them,
    /// so their cache misses overlap instead of following one another.
    #[inline]
    fn prepare(&mut self, p: &Position, region: &mut [Slot]) -> (u64, u32, u64) {
        let len = Self::table(&mut self.spill, region).len();
        if 4 * (self.used as usize + 1) > 3 * len {
            self.grow(region);
        }
        let k = key_of(p);
        let table = Self::table(&mut self.spill, region);
        let slot = k.2 as usize & (table.len() - 1);
        prefetch(table[slot..].as_ptr());
        k
    }

    /// The second half of [`History::push`], with what `prepare` gave.
    #[inline]
    fn push_prepared(&mut self, (holes, rest, h): (u64, u32, u64), region: &mut [Slot]) -> usize {
        let game = self.game;
        let table = Self::table(&mut self.spill, region);
        let mask = table.len() - 1;
        let mut i = h as usize & mask;
        loop {
            let s = &mut table[i];
            if s.game != game {
                *s = Slot {
                    holes,
                    rest,
                    game,
                    count: 1,
                };
                self.used += 1;
                return 1;
            }
            if s.holes == holes && s.rest == rest {
                s.count = s.count.saturating_add(1);
                return s.count as usize;
            }
            i = (i + 1) & mask;
        }
    }
}

/// Asks the processor to bring `x`'s cache line in (a hint: no effect on
/// what the program computes).
#[inline(always)]
fn prefetch<T>(x: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults, whatever the address, and reads
    // nothing the program sees.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(x.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// The numbers of the legal actions of `p` as bits (none once ended).
///
/// The same set as [`Position::legal_actions`] (the tests compare them on
/// random games), without building its list: sowings from
/// [`Position::sowable_holes`], a pass when there is none, and the offers
/// from a table by the mover's holes and the largest offer he may make.
#[inline]
fn legal_bits(p: &Position) -> u128 {
    if p.is_ended() {
        return 0;
    }
    if p.pending_offer().is_some() {
        return 1 << crate::ACCEPT | 1 << crate::DECLINE;
    }
    let sow = p.sowable_holes().0 as u128;
    let mut bits = if sow == 0 { 1 << crate::PASS } else { sow };
    let v = p.variant();
    if !v.no_trades {
        let me = p.to_move();
        let own = p.controlled(me);
        // RULES.md: at most 3 holes, one kept (unless cede-all), 6 of the
        // receiver's captured seeds per hole.
        let keep = usize::from(!v.cede_all);
        let afford = p.captured(me.opponent()) as usize / 6;
        let k = own.len().saturating_sub(keep).min(afford).min(3);
        bits |= OFFER_BITS[own.0 as usize][k];
    }
    bits
}

/// `OFFER_BITS[own][k]`: the numbers of the offers of 1 to k holes of the
/// hole set `own`.
static OFFER_BITS: [[u128; 4]; 256] = {
    let masks = crate::OFFERS;
    let mut out = [[0u128; 4]; 256];
    let mut own = 0;
    while own < 256 {
        let mut k = 1;
        while k < 4 {
            let mut j = 0;
            while j < 92 {
                let m = masks[j] as usize;
                if m & !own == 0 && m.count_ones() as usize <= k {
                    out[own][k] |= 1 << (crate::OFFER_BASE + j);
                }
                j += 1;
            }
            k += 1;
        }
        own += 1;
    }
    out
};

/// A uniformly random set bit of `bits` (not empty).
#[inline]
fn pick(bits: u128, rng: &mut ChaCha8Rng) -> usize {
    select(bits, rng.gen_range(0..bits.count_ones()))
}

/// The number of the `k`-th set bit of `bits` (from 0, lowest first; `k`
/// below the count of set bits): halves, quarters and eighths of the
/// word by their counts, then a table, instead of clearing `k` bits one
/// by one (an offer's number is often past the fortieth).
#[inline]
fn select(bits: u128, k: u32) -> usize {
    let lo = bits as u64;
    let c = lo.count_ones();
    let (mut x, mut k, mut base) = if k < c {
        (lo, k, 0)
    } else {
        ((bits >> 64) as u64, k - c, 64)
    };
    for w in [32, 16, 8] {
        let c = (x & ((1 << w) - 1)).count_ones();
        if k >= c {
            k -= c;
            x >>= w;
            base += w;
        }
    }
    base + SELECT[(x & 0xff) as usize][k as usize & 7] as usize
}

/// `SELECT[b][k]`: the number of the `k`-th set bit of the byte `b`.
static SELECT: [[u8; 8]; 256] = {
    let mut out = [[0u8; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let (mut j, mut k) = (0, 0);
        while j < 8 {
            if b >> j & 1 != 0 {
                out[b][k] = j as u8;
                k += 1;
            }
            j += 1;
        }
        b += 1;
    }
    out
};

/// The actions in numbering order, for a table lookup per step.
static ACTIONS: [Action; NUM_ACTIONS] = {
    let mut out = [Action::Pass; NUM_ACTIONS];
    let mut i = 0;
    while i < 8 {
        out[i] = Action::Sow(gore_core::Hole::ALL[i]);
        i += 1;
    }
    let masks = crate::OFFERS;
    let mut k = 0;
    while k < 92 {
        out[crate::OFFER_BASE + k] = Action::Offer(gore_core::HoleSet(masks[k]));
        k += 1;
    }
    out[crate::ACCEPT] = Action::Accept;
    out[crate::DECLINE] = Action::Decline;
    out
};

/// One game of a batch (or of a rollout): its position and bookkeeping.
#[derive(Clone)]
struct Lane {
    /// The position (swept once the game is over).
    pos: Position,
    /// Actions played since the start.
    ply: u32,
    /// Occurrences of `pos` so far (1 or 2 while the game goes on).
    reps: u8,
    /// The legal action numbers as bits; 0 once over.
    legal: u128,
    /// Whether the game is over.
    over: bool,
    history: History,
}

impl Lane {
    /// A game from `start` (repetition counted from there, in `region`
    /// if not empty).
    fn new(start: Position, region: &mut [Slot]) -> Lane {
        let mut lane = Lane {
            pos: start,
            ply: 0,
            reps: 1,
            legal: 0,
            over: false,
            history: History::default(),
        };
        lane.reset(start, region);
        lane
    }

    /// Starts the game again from `start` (its table in `region` if not
    /// empty).
    fn reset(&mut self, start: Position, region: &mut [Slot]) {
        self.pos = start;
        self.ply = 0;
        self.reps = 1;
        self.history.reset(start, region);
        self.over = start.is_ended();
        self.legal = if self.over { 0 } else { legal_bits(&start) };
        if self.over {
            self.pos = start.swept();
        }
    }

    /// The game `g` as a lane: its history counts for repetition, its
    /// actions for the ply cap.
    fn of_game(g: &Game) -> Lane {
        let hist = g.history();
        let mut lane = Lane::new(hist[0], &mut []);
        for &p in &hist[1..] {
            lane.reps = lane.history.push(p, &mut []) as u8;
        }
        lane.pos = *g.position();
        lane.ply = g.actions().len() as u32;
        lane.over = g.is_over();
        lane.legal = if lane.over { 0 } else { legal_bits(&lane.pos) };
        lane
    }

    /// Plays the legal action number `a`; returns the final seeds (A, B)
    /// if it ended the game. Ends as [`Game::play`] does: on the board,
    /// then by repetition, then by the ply cap. (A lane without a
    /// region: the batch plays in two halves.)
    #[inline]
    fn play(&mut self, a: usize, ply_cap: Option<u32>) -> Option<[u8; 2]> {
        let h = self.advance(a, &mut []);
        self.settle(h, ply_cap, &mut [])
    }

    /// The first half of [`Lane::play`]: plays the action; returns the
    /// position's key for the repetition count ([`History::prepare`]),
    /// or None if the board ended the game.
    #[inline]
    fn advance(&mut self, a: usize, region: &mut [Slot]) -> Option<(u64, u32, u64)> {
        self.pos.play_unchecked(ACTIONS[a]);
        self.ply += 1;
        (!self.pos.is_ended()).then(|| self.history.prepare(&self.pos, region))
    }

    /// The second half of [`Lane::play`], with what `advance` returned.
    #[inline]
    fn settle(
        &mut self,
        key: Option<(u64, u32, u64)>,
        ply_cap: Option<u32>,
        region: &mut [Slot],
    ) -> Option<[u8; 2]> {
        let ended = match key {
            None => true,
            Some(k) => {
                let n = self.history.push_prepared(k, region);
                self.reps = n.min(255) as u8;
                n >= 3 || ply_cap.is_some_and(|c| self.ply >= c)
            }
        };
        if ended {
            self.over = true;
            self.legal = 0;
            self.pos = self.pos.swept();
            Some([self.pos.captured(Player::A), self.pos.captured(Player::B)])
        } else {
            self.legal = legal_bits(&self.pos);
            None
        }
    }
}

/// The canonical observation of `p` from its player to move
/// (docs/PYTHON.md, "GoreBatch"): the holes from the mover's first hole
/// (a1 for A, b1 for B), then the ply and the repetition count.
pub(crate) fn canonical(p: &Position, ply: u32, reps: u8, out: &mut [f32]) {
    let me = p.to_move();
    // Turning the loop by four holes swaps the rows: B sees the board as
    // A does. Nothing in the rules names a row (only controllers), so the
    // two views of equal boards play alike.
    let turn = if me == Player::A { 0 } else { 4 };
    for (j, x) in out[..8].iter_mut().enumerate() {
        *x = p.seeds(gore_core::Hole::ALL[(j + turn) & 7]) as f32;
    }
    // Hole sets as bytes turned by `turn`, then eight floats from a table.
    let mine = p.controlled(me).0.rotate_right(turn as u32);
    let offer = p
        .pending_offer()
        .map_or(0, |s| s.0)
        .rotate_right(turn as u32);
    out[8..16].copy_from_slice(&FLOATS[mine as usize]);
    out[16..24].copy_from_slice(&FLOATS[offer as usize]);
    out[24] = p.captured(me) as f32;
    out[25] = p.captured(me.opponent()) as f32;
    out[26] = ply as f32;
    out[27] = reps as f32;
}

/// `FLOATS[b]`: the eight bits of `b` as 0.0 or 1.0, lowest first.
static FLOATS: [[f32; 8]; 256] = {
    let mut out = [[0f32; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let mut j = 0;
        while j < 8 {
            if b >> j & 1 != 0 {
                out[b][j] = 1.0;
            }
            j += 1;
        }
        b += 1;
    }
    out
};

/// The canonical observation of a game (its ply and repetitions counted).
pub(crate) fn game_canonical(g: &Game) -> [f32; CANON_SIZE] {
    let mut o = [0f32; CANON_SIZE];
    let reps = if g.is_over() { 1 } else { g.repetitions() };
    canonical(
        g.position(),
        g.actions().len() as u32,
        reps.min(255) as u8,
        &mut o,
    );
    o
}

/// What [`rollouts`] found: final seeds over k random playouts.
pub(crate) struct RolloutTally {
    /// How many games ended with A holding each number of seeds (B holds
    /// the rest).
    pub(crate) histogram: Vec<u64>,
    /// Sum of the final seeds of A and of B.
    pub(crate) sums: [u64; 2],
    /// Wins of A, draws, wins of B.
    pub(crate) wins: [u64; 3],
}

/// What `Game.rollouts` returns: the final seeds of k random playouts.
#[pyclass(module = "gore", name = "Rollouts", frozen, get_all)]
pub(crate) struct PyRollouts {
    /// Number of playouts.
    pub(crate) games: u64,
    /// Mean final seeds of A and of B.
    pub(crate) mean: (f64, f64),
    /// `histogram[s]`: playouts in which A finished with s seeds (B with
    /// the game's seeds minus s).
    pub(crate) histogram: Vec<u64>,
    /// Playouts won by A, drawn, won by B.
    pub(crate) wins: (u64, u64, u64),
}

#[pymethods]
impl PyRollouts {
    fn __repr__(&self) -> String {
        format!(
            "Rollouts(games={}, mean=({:.3}, {:.3}), wins={:?})",
            self.games, self.mean.0, self.mean.1, self.wins
        )
    }
}

impl PyRollouts {
    /// The Python view of a tally of `games` playouts.
    pub(crate) fn of(t: RolloutTally, games: u64) -> PyRollouts {
        let d = games.max(1) as f64;
        PyRollouts {
            games,
            mean: (t.sums[0] as f64 / d, t.sums[1] as f64 / d),
            histogram: t.histogram,
            wins: (t.wins[0], t.wins[1], t.wins[2]),
        }
    }
}

/// `k` uniformly random playouts from the game `g` (its history and ply
/// cap in force), seeded by `seed`.
pub(crate) fn rollouts(g: &Game, k: u64, seed: u64) -> RolloutTally {
    let total = g.rules().variant.total_seeds() as usize;
    let cap = g.rules().ply_cap;
    let mut tally = RolloutTally {
        histogram: vec![0; total + 1],
        sums: [0; 2],
        wins: [0; 3],
    };
    let base = Lane::of_game(g);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut lane = base.clone();
    for _ in 0..k {
        lane.clone_from(&base);
        let seeds = if lane.over {
            [lane.pos.captured(Player::A), lane.pos.captured(Player::B)]
        } else {
            loop {
                let a = pick(lane.legal, &mut rng);
                if let Some(s) = lane.play(a, cap) {
                    break s;
                }
            }
        };
        tally.histogram[seeds[0] as usize] += 1;
        tally.sums[0] += seeds[0] as u64;
        tally.sums[1] += seeds[1] as u64;
        tally.wins[match seeds[0].cmp(&seeds[1]) {
            std::cmp::Ordering::Greater => 0,
            std::cmp::Ordering::Equal => 1,
            std::cmp::Ordering::Less => 2,
        }] += 1;
    }
    tally
}

/// How a finished game is rewarded.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reward {
    /// Own final seeds minus the opponent's, over the seeds in the game.
    Score,
    /// 1, 0 or -1.
    Win,
}

/// n games of one rule set stepped together (docs/PYTHON.md, "GoreBatch").
///
/// The arrays (`observation`, `legal_action_mask`, `current_player`,
/// `rewards`, `terminated`, `truncated`, `ply`) belong to the batch and are
/// overwritten in place by `step` and `reset`: reading them costs no
/// copy; copy them to keep them.
#[pyclass(module = "gore.vector", name = "GoreBatch")]
pub(crate) struct PyBatch {
    rules: Rules,
    start: Position,
    auto_reset: bool,
    reward: Reward,
    max_steps: Option<u32>,
    lanes: Vec<Lane>,
    /// The games' repetition tables ([`Regions`]).
    regions: Regions,
    rng: ChaCha8Rng,
    observation: Py<PyArray2<f32>>,
    mask: Py<PyArray2<bool>>,
    player: Py<PyArray1<i8>>,
    rewards: Py<PyArray2<f32>>,
    terminated: Py<PyArray1<bool>>,
    truncated: Py<PyArray1<bool>>,
    ply: Py<PyArray1<u32>>,
    actions: Py<PyArray1<i64>>,
    /// Each game's legal action bits, a copy of its lane's kept side by
    /// side: `random_actions` reads 16 bytes a game, not the game's
    /// lane (at n = 4096 the lanes do not stay in cache).
    legal: Vec<u128>,
    /// Scratch of `step`: each game's repetition key between its two
    /// halves ([`Lane::advance`], [`Lane::settle`]).
    hashes: Vec<Option<(u64, u32, u64)>>,
}

/// Mutable views of a batch's arrays, for one step.
struct Out<'a> {
    obs: &'a mut [f32],
    mask: &'a mut [bool],
    player: &'a mut [i8],
    ply: &'a mut [u32],
    legal: &'a mut [u128],
}

impl Out<'_> {
    /// Writes game `i`'s observation, mask, player, ply and legal bits.
    #[inline]
    fn write(&mut self, i: usize, lane: &Lane) {
        canonical(
            &lane.pos,
            lane.ply,
            lane.reps,
            &mut self.obs[i * CANON_SIZE..(i + 1) * CANON_SIZE],
        );
        let m = &mut self.mask[i * NUM_ACTIONS..(i + 1) * NUM_ACTIONS];
        // Eight booleans at a time, from a table.
        let bytes = lane.legal.to_le_bytes();
        for (chunk, &b) in m.chunks_mut(8).zip(&bytes) {
            let l = chunk.len();
            chunk.copy_from_slice(&BOOLS[b as usize][..l]);
        }
        self.player[i] = lane.pos.to_move().index() as i8;
        self.ply[i] = lane.ply;
        self.legal[i] = lane.legal;
    }
}

/// `BOOLS[b]`: the eight bits of `b` as booleans, lowest first.
static BOOLS: [[bool; 8]; 256] = {
    let mut out = [[false; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let mut j = 0;
        while j < 8 {
            out[b][j] = b >> j & 1 != 0;
            j += 1;
        }
        b += 1;
    }
    out
};

/// An error of the batch's own arrays (only if Python code made one
/// read-only or borrowed it from Rust elsewhere).
fn array_error(name: &str, e: impl std::fmt::Display) -> PyErr {
    GoreError::new_err(format!("GoreBatch.{name}: cannot write the array: {e}"))
}

/// Runs `f` on writable slices of the batch's arrays.
macro_rules! with_arrays {
    ($self:ident, $py:ident, |$out:ident, $rew:ident, $term:ident, $trunc:ident| $body:block) => {{
        let mut obs = $self
            .observation
            .bind($py)
            .try_readwrite()
            .map_err(|e| array_error("observation", e))?;
        let mut mask = $self
            .mask
            .bind($py)
            .try_readwrite()
            .map_err(|e| array_error("legal_action_mask", e))?;
        let mut player = $self
            .player
            .bind($py)
            .try_readwrite()
            .map_err(|e| array_error("current_player", e))?;
        let mut ply = $self
            .ply
            .bind($py)
            .try_readwrite()
            .map_err(|e| array_error("ply", e))?;
        let mut rew = $self
            .rewards
            .bind($py)
            .try_readwrite()
            .map_err(|e| array_error("rewards", e))?;
        let mut term = $self
            .terminated
            .bind($py)
            .try_readwrite()
            .map_err(|e| array_error("terminated", e))?;
        let mut trunc = $self
            .truncated
            .bind($py)
            .try_readwrite()
            .map_err(|e| array_error("truncated", e))?;
        let mut $out = Out {
            obs: obs
                .as_slice_mut()
                .map_err(|e| array_error("observation", e))?,
            mask: mask
                .as_slice_mut()
                .map_err(|e| array_error("legal_action_mask", e))?,
            player: player
                .as_slice_mut()
                .map_err(|e| array_error("current_player", e))?,
            ply: ply.as_slice_mut().map_err(|e| array_error("ply", e))?,
            legal: &mut $self.legal,
        };
        let $rew = rew.as_slice_mut().map_err(|e| array_error("rewards", e))?;
        let $term = term
            .as_slice_mut()
            .map_err(|e| array_error("terminated", e))?;
        let $trunc = trunc
            .as_slice_mut()
            .map_err(|e| array_error("truncated", e))?;
        $body
    }};
}

/// Reads a one-dimensional numpy array or sequence of `T` (`noun`
/// names them in the error).
fn read_vec<'py, T>(obj: &Bound<'py, PyAny>, what: &str, noun: &str) -> PyResult<Vec<T>>
where
    T: numpy::Element + Copy + FromPyObject<'py>,
{
    if let Ok(a) = obj.extract::<PyReadonlyArray1<'py, T>>() {
        return Ok(a.as_array().iter().copied().collect());
    }
    if obj.is_instance_of::<pyo3::types::PyString>() {
        return Err(PyTypeError::new_err(format!(
            "{what}: expected a sequence of {noun}, not a string"
        )));
    }
    obj.extract::<Vec<T>>().map_err(|_| {
        PyTypeError::new_err(format!(
            "{what}: expected a one-dimensional array or sequence of {noun}"
        ))
    })
}

#[pymethods]
impl PyBatch {
    /// `n` games of `rules` (a gore.Rules or its text) at their start.
    /// `seed` seeds `random_actions`; `auto_reset` starts a game again in
    /// the step that ends it; `reward` is `"score"` (final seed difference
    /// over the seeds in the game) or `"win"` (1, 0, -1); `max_steps`
    /// truncates a game after that many actions.
    #[new]
    #[pyo3(signature = (n, rules = None, seed = 0, auto_reset = true, reward = "score", max_steps = None))]
    fn new(
        py: Python<'_>,
        n: i64,
        rules: Option<&Bound<'_, PyAny>>,
        seed: u64,
        auto_reset: bool,
        reward: &str,
        max_steps: Option<i64>,
    ) -> PyResult<Self> {
        let rules = match rules {
            Some(r) => rules_arg(r)?,
            None => Rules::STANDARD,
        };
        // A bound on memory (some 1.5 KB a game with its arrays, 16 KB more
        // for its repetition table's region up to 16,384 games), so that a
        // typo raises instead of exhausting it.
        if !(1..=1 << 20).contains(&n) {
            return Err(GoreError::new_err(format!(
                "n: expected 1 to 1048576 games, not {n}"
            )));
        }
        let reward = match reward {
            "score" => Reward::Score,
            "win" => Reward::Win,
            _ => {
                return Err(GoreError::new_err(format!(
                    "reward: expected 'score' or 'win', not {reward:?}"
                )))
            }
        };
        let max_steps = match max_steps {
            None => None,
            Some(m) if (1..=u32::MAX as i64).contains(&m) => Some(m as u32),
            Some(m) => {
                return Err(GoreError::new_err(format!(
                    "max_steps: expected at least 1, not {m}"
                )))
            }
        };
        let n = n as usize;
        let start = Position::new(rules.variant);
        let mut regions = Regions::new(n);
        let lanes = (0..n).map(|i| Lane::new(start, regions.get(i))).collect();
        let mut batch = PyBatch {
            rules,
            start,
            auto_reset,
            reward,
            max_steps,
            lanes,
            regions,
            rng: ChaCha8Rng::seed_from_u64(seed),
            observation: PyArray2::zeros(py, [n, CANON_SIZE], false).unbind(),
            mask: PyArray2::zeros(py, [n, NUM_ACTIONS], false).unbind(),
            player: PyArray1::zeros(py, n, false).unbind(),
            rewards: PyArray2::zeros(py, [n, 2], false).unbind(),
            terminated: PyArray1::zeros(py, n, false).unbind(),
            truncated: PyArray1::zeros(py, n, false).unbind(),
            ply: PyArray1::zeros(py, n, false).unbind(),
            actions: PyArray1::zeros(py, n, false).unbind(),
            legal: vec![0; n],
            hashes: Vec::new(),
        };
        batch.reset(py, None)?;
        Ok(batch)
    }

    /// Number of games.
    #[getter]
    fn num_envs(&self) -> usize {
        self.lanes.len()
    }
    fn __len__(&self) -> usize {
        self.lanes.len()
    }
    /// The rule set.
    #[getter]
    fn rules(&self) -> PyRules {
        PyRules(self.rules)
    }
    /// Whether a game starts again in the step that ends it.
    #[getter]
    fn auto_reset(&self) -> bool {
        self.auto_reset
    }
    /// n × 28 float32: each game's canonical observation, from its player
    /// to move (docs/PYTHON.md).
    #[getter]
    fn observation(&self, py: Python<'_>) -> Py<PyArray2<f32>> {
        self.observation.clone_ref(py)
    }
    /// n × 103 bool: the legal action numbers (all False once over).
    #[getter]
    fn legal_action_mask(&self, py: Python<'_>) -> Py<PyArray2<bool>> {
        self.mask.clone_ref(py)
    }
    /// n int8: the player to move, 0 for A, 1 for B.
    #[getter]
    fn current_player(&self, py: Python<'_>) -> Py<PyArray1<i8>> {
        self.player.clone_ref(py)
    }
    /// n × 2 float32: the rewards of A and B in the last step (0 unless the
    /// game ended in it).
    #[getter]
    fn rewards(&self, py: Python<'_>) -> Py<PyArray2<f32>> {
        self.rewards.clone_ref(py)
    }
    /// n bool: the game ended by the rules (in the last step, with
    /// auto_reset).
    #[getter]
    fn terminated(&self, py: Python<'_>) -> Py<PyArray1<bool>> {
        self.terminated.clone_ref(py)
    }
    /// n bool: the game reached `max_steps` (in the last step, with
    /// auto_reset).
    #[getter]
    fn truncated(&self, py: Python<'_>) -> Py<PyArray1<bool>> {
        self.truncated.clone_ref(py)
    }
    /// n uint32: actions played in each game since its start.
    #[getter]
    fn ply(&self, py: Python<'_>) -> Py<PyArray1<u32>> {
        self.ply.clone_ref(py)
    }

    /// Game `i`'s current position (swept once over).
    fn position(&self, i: i64) -> PyResult<PyPosition> {
        let lane = usize::try_from(i)
            .ok()
            .and_then(|i| self.lanes.get(i))
            .ok_or_else(|| {
                GoreError::new_err(format!(
                    "i: expected a game 0 to {}, not {i}",
                    self.lanes.len() - 1
                ))
            })?;
        Ok(PyPosition(lane.pos))
    }

    /// A uniformly random legal action number for every game (0 for a game
    /// over), from the batch's seeded generator: an int64 array that the
    /// next call overwrites.
    fn random_actions(&mut self, py: Python<'_>) -> PyResult<Py<PyArray1<i64>>> {
        {
            let arr = self.actions.bind(py);
            let mut w = arr
                .try_readwrite()
                .map_err(|e| array_error("random_actions", e))?;
            let out = w
                .as_slice_mut()
                .map_err(|e| array_error("random_actions", e))?;
            for (x, &legal) in out.iter_mut().zip(&self.legal) {
                *x = if legal == 0 {
                    0
                } else {
                    pick(legal, &mut self.rng) as i64
                };
            }
        }
        Ok(self.actions.clone_ref(py))
    }

    /// Plays one action number per game (`actions`: n integers). An
    /// illegal action raises IllegalAction naming the game and the action,
    /// and changes no game. A game over (without auto_reset) ignores its
    /// action.
    fn step(&mut self, py: Python<'_>, actions: &Bound<'_, PyAny>) -> PyResult<()> {
        let acts: Vec<i64> = match actions.extract::<PyReadonlyArray1<'_, i64>>() {
            Ok(a) => a.as_array().iter().copied().collect(),
            Err(_) => read_vec::<i64>(actions, "actions", "integers")?,
        };
        let n = self.lanes.len();
        if acts.len() != n {
            return Err(ActionError::new_err(format!(
                "actions: expected {n} action numbers, got {}",
                acts.len()
            )));
        }
        // Check every action before playing any: an error changes nothing.
        // The dense legal bits, not the lanes (0 exactly when a game is
        // over): one pass less over the games' state.
        for (i, (&a, &legal)) in acts.iter().zip(&self.legal).enumerate() {
            if legal == 0 {
                continue;
            }
            let Some(action) = action_of_number(a) else {
                return Err(ActionError::new_err(format!(
                    "game {i}: action number {a}: expected 0 to 102"
                )));
            };
            if legal >> a & 1 == 0 {
                let why = self.lanes[i]
                    .pos
                    .check(action)
                    .err()
                    .map_or("illegal".to_string(), |e| e.to_string());
                return Err(IllegalAction::new_err(format!(
                    "game {i}: action {a} ({action}): {why}"
                )));
            }
        }
        let cap = self.rules.ply_cap;
        let total = self.rules.variant.total_seeds() as f32;
        let (reward, auto_reset, max_steps, start) =
            (self.reward, self.auto_reset, self.max_steps, self.start);
        with_arrays!(self, py, |out, rew, term, trunc| {
            // By chunks, pipelined: play the next chunk's actions (each
            // asking for the repetition table slot it will probe) before
            // finishing this one, so that cache misses overlap.
            const CHUNK: usize = 16;
            let n = self.lanes.len();
            let hashes = &mut self.hashes;
            hashes.resize(n, None);
            let lanes = &mut self.lanes;
            let regions = &mut self.regions;
            let advance = |lanes: &mut [Lane],
                           regions: &mut Regions,
                           hashes: &mut [Option<(u64, u32, u64)>],
                           from: usize| {
                for i in from..(from + CHUNK).min(lanes.len()) {
                    if !lanes[i].over {
                        hashes[i] = lanes[i].advance(acts[i] as usize, regions.get(i));
                    }
                }
            };
            advance(lanes, regions, hashes, 0);
            for base in (0..n).step_by(CHUNK) {
                advance(lanes, regions, hashes, base + CHUNK);
                for i in base..(base + CHUNK).min(n) {
                    let lane = &mut lanes[i];
                    if lane.over {
                        // Only without auto_reset: the game stays over.
                        rew[2 * i] = 0.0;
                        rew[2 * i + 1] = 0.0;
                        continue;
                    }
                    let (r, ended, cut) = match lane.settle(hashes[i], cap, regions.get(i)) {
                        Some(s) => {
                            let d = s[0] as f32 - s[1] as f32;
                            let r = match reward {
                                Reward::Score => d / total,
                                // Not `signum`: it gives 1 for a draw's +0.0.
                                Reward::Win => {
                                    (s[0] > s[1]) as i8 as f32 - (s[0] < s[1]) as i8 as f32
                                }
                            };
                            (r, true, false)
                        }
                        None if max_steps.is_some_and(|m| lane.ply >= m) => {
                            lane.over = true;
                            lane.legal = 0;
                            (0.0, false, true)
                        }
                        None => (0.0, false, false),
                    };
                    rew[2 * i] = r;
                    rew[2 * i + 1] = -r;
                    term[i] = ended;
                    trunc[i] = cut;
                    if (ended || cut) && auto_reset {
                        lane.reset(start, regions.get(i));
                    }
                    out.write(i, lane);
                }
            }
        });
        Ok(())
    }

    /// Starts games again: those where `mask` (n booleans) is true, or all.
    /// Their rewards, terminated and truncated become 0 and False.
    #[pyo3(signature = (mask = None))]
    fn reset(&mut self, py: Python<'_>, mask: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let n = self.lanes.len();
        let which: Option<Vec<bool>> = match mask {
            None => None,
            Some(m) => {
                let v = read_vec::<bool>(m, "mask", "booleans")?;
                if v.len() != n {
                    return Err(GoreError::new_err(format!(
                        "mask: expected {n} booleans, got {}",
                        v.len()
                    )));
                }
                Some(v)
            }
        };
        let start = self.start;
        with_arrays!(self, py, |out, rew, term, trunc| {
            for (i, lane) in self.lanes.iter_mut().enumerate() {
                if which.as_ref().is_some_and(|w| !w[i]) {
                    continue;
                }
                lane.reset(start, self.regions.get(i));
                rew[2 * i] = 0.0;
                rew[2 * i + 1] = 0.0;
                term[i] = false;
                trunc[i] = false;
                out.write(i, lane);
            }
        });
        Ok(())
    }

    fn __repr__(&self) -> String {
        format!(
            "GoreBatch(n={}, rules='{}', auto_reset={})",
            self.lanes.len(),
            self.rules,
            if self.auto_reset { "True" } else { "False" }
        )
    }
}

/// Adds the batch environment to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyBatch>()?;
    m.add_class::<PyRollouts>()?;
    m.add("CANONICAL_SIZE", CANON_SIZE)?;
    Ok(())
}
