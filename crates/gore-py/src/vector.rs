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
use pyo3::types::{PyBytes, PyDict, PyTuple};
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
    /// Where the game started.
    start: Position,
    /// The action numbers played since `start` (kept by the batch, for
    /// `GoreBatch.game`; a rollout's playouts do not add to them).
    moves: Vec<u8>,
    /// The position (swept once the game is over).
    pos: Position,
    /// Actions played since the start.
    ply: u32,
    /// Occurrences of `pos` so far (1 or 2 while the game goes on; 1 once
    /// it is over, as [`game_canonical`] counts).
    reps: u8,
    /// The legal action numbers as bits; 0 once over.
    legal: u128,
    /// Whether the game is over.
    over: bool,
    history: History,
}

/// How a game of a batch ended in a step (`GoreBatch.step`'s
/// `end_reason`, docs/PYTHON.md): 0 it did not.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
pub(crate) enum End {
    /// After a sowing, every hole held at most 2 seeds.
    Board = 1,
    /// After an accepted offer, the offerer controlled no hole.
    NoHole = 2,
    /// The position occurred for the third time.
    Repetition = 3,
    /// The rules' ply cap was reached.
    PlyCap = 4,
    /// The batch's `max_steps` was reached: a truncation, not an end by
    /// the rules.
    MaxSteps = 5,
}

/// The names of [`End`]'s codes, from 0 (`END_REASONS` in Python).
pub(crate) const END_NAMES: [&str; 6] =
    ["", "board", "no-hole", "repetition", "ply-cap", "max-steps"];

impl Lane {
    /// A game from `start` (repetition counted from there, in `region`
    /// if not empty).
    fn new(start: Position, region: &mut [Slot]) -> Lane {
        let mut lane = Lane {
            start,
            moves: Vec::new(),
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
        self.start = start;
        self.moves.clear();
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
        let mut lane = Lane::new(*g.start(), &mut []);
        lane.load(g, &mut []);
        lane
    }

    /// Makes this lane the game `g` (its table in `region` if not empty):
    /// the table's numbering goes on from the lane's, so that no slot of
    /// an earlier game counts.
    fn load(&mut self, g: &Game, region: &mut [Slot]) {
        let hist = g.history();
        self.reset(hist[0], region);
        for &p in &hist[1..] {
            self.reps = self.history.push(p, region).min(255) as u8;
        }
        self.moves
            .extend(g.actions().iter().map(|&a| crate::action_number(a) as u8));
        self.pos = *g.position();
        self.ply = g.actions().len() as u32;
        self.over = g.is_over();
        self.legal = if self.over { 0 } else { legal_bits(&self.pos) };
        if self.over {
            self.reps = 1;
        }
    }

    /// The lane as a gore-core game (its actions replayed from its start).
    fn game(&self, ply_cap: Option<u32>) -> Game {
        let mut g = Game::from_position(self.start, ply_cap);
        for &m in &self.moves {
            // The lane played these actions as legal ones, and a game of
            // the same start and ply cap ends where the lane ended.
            let played = g.play(ACTIONS[m as usize]);
            debug_assert!(played.is_ok());
        }
        g
    }

    /// Plays the legal action number `a`; returns the final seeds (A, B)
    /// if it ended the game. Ends as [`Game::play`] does: on the board,
    /// then by repetition, then by the ply cap. (A lane without a
    /// region: the batch plays in two halves.)
    #[inline]
    fn play(&mut self, a: usize, ply_cap: Option<u32>) -> Option<[u8; 2]> {
        let h = self.advance(a, &mut []);
        self.settle(h, ply_cap, &mut []).map(|(s, _)| s)
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

    /// The second half of [`Lane::play`], with what `advance` returned:
    /// the final seeds and why the game ended, if it did.
    #[inline]
    fn settle(
        &mut self,
        key: Option<(u64, u32, u64)>,
        ply_cap: Option<u32>,
        region: &mut [Slot],
    ) -> Option<([u8; 2], End)> {
        let end = match key {
            None if self.pos.player_without_hole().is_some() => Some(End::NoHole),
            None => Some(End::Board),
            Some(k) => {
                let n = self.history.push_prepared(k, region);
                self.reps = n.min(255) as u8;
                if n >= 3 {
                    Some(End::Repetition)
                } else if ply_cap.is_some_and(|c| self.ply >= c) {
                    Some(End::PlyCap)
                } else {
                    None
                }
            }
        };
        if let Some(end) = end {
            self.over = true;
            self.legal = 0;
            self.reps = 1;
            self.pos = self.pos.swept();
            Some((
                [self.pos.captured(Player::A), self.pos.captured(Player::B)],
                end,
            ))
        } else {
            self.legal = legal_bits(&self.pos);
            None
        }
    }
}

/// The canonical observation of `p` from its player to move
/// (docs/PYTHON.md, "GoreBatch"): the holes from the mover's first hole
/// (a1 for A, b1 for B), then the ply and the repetition count.
#[inline]
pub(crate) fn canonical(p: &Position, ply: u32, reps: u8, out: &mut [f32]) {
    canonical_from(p, p.to_move(), ply, reps, out);
}

/// The canonical observation's layout from `me`'s side, whether or not
/// `me` is to move (the PettingZoo and OpenSpiel observations of the
/// player who waits): the holes from `me`'s first hole, `me`'s holes and
/// captured seeds first. For the player to move it is [`canonical`].
#[inline]
pub(crate) fn canonical_from(p: &Position, me: Player, ply: u32, reps: u8, out: &mut [f32]) {
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
pub(crate) fn game_canonical(g: &Game, me: Option<Player>) -> [f32; CANON_SIZE] {
    let mut o = [0f32; CANON_SIZE];
    let reps = if g.is_over() { 1 } else { g.repetitions() };
    canonical_from(
        g.position(),
        me.unwrap_or_else(|| g.position().to_move()),
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

impl Reward {
    /// The name `GoreBatch(reward=…)` takes.
    fn name(self) -> &'static str {
        match self {
            Reward::Score => "score",
            Reward::Win => "win",
        }
    }
}

/// What stepping a game needs to know of its batch.
#[derive(Clone, Copy)]
struct Params {
    /// Where a game starts again.
    start: Position,
    /// The rules' ply cap.
    cap: Option<u32>,
    /// Seeds in the game (the "score" reward's denominator).
    total: f32,
    reward: Reward,
    auto_reset: bool,
    max_steps: Option<u32>,
}

/// The fewest games a thread of `GoreBatch(threads=…)` steps: starting a
/// thread costs some 20 µs, the step of 256 random games about as much.
const MIN_PART: usize = 256;

/// The most threads `GoreBatch(threads=…)` takes.
const MAX_THREADS: usize = 256;

/// The batch's state, kept on the Rust side: `step` and `reset` write it
/// (without the GIL), and each array property copies its part into a new
/// read-only numpy array, once per step (docs/PYTHON.md, "GoreBatch").
#[derive(Clone)]
struct Buffers {
    obs: Vec<f32>,
    mask: Vec<bool>,
    player: Vec<i8>,
    rewards: Vec<f32>,
    term: Vec<bool>,
    trunc: Vec<bool>,
    ply: Vec<u32>,
    /// Each game's legal action bits, a copy of its lane's kept side by
    /// side: `random_actions` reads 16 bytes a game, not the game's
    /// lane (at n = 4096 the lanes do not stay in cache).
    legal: Vec<u128>,
    /// How each game ended in the last step ([`End`]; 0: it did not).
    end: Vec<u8>,
    /// The observation each game ended on in the last step (rows of
    /// games that did not end are stale).
    final_obs: Vec<f32>,
    /// Scratch of `step`: each game's repetition key between its two
    /// halves ([`Lane::advance`], [`Lane::settle`]).
    hashes: Vec<Option<(u64, u32, u64)>>,
}

impl Buffers {
    fn new(n: usize) -> Buffers {
        Buffers {
            obs: vec![0.0; n * CANON_SIZE],
            mask: vec![false; n * NUM_ACTIONS],
            player: vec![0; n],
            rewards: vec![0.0; 2 * n],
            term: vec![false; n],
            trunc: vec![false; n],
            ply: vec![0; n],
            legal: vec![0; n],
            end: vec![0; n],
            final_obs: vec![0.0; n * CANON_SIZE],
            hashes: vec![None; n],
        }
    }
}

/// Game `j`'s region among `regions` (empty without regions).
#[inline]
fn region(regions: &mut [Slot], j: usize) -> &mut [Slot] {
    regions
        .get_mut(j * REGION_SLOTS..(j + 1) * REGION_SLOTS)
        .unwrap_or_default()
}

/// Mutable views of the buffers of a range of games.
struct Outs<'a> {
    obs: &'a mut [f32],
    mask: &'a mut [bool],
    player: &'a mut [i8],
    rewards: &'a mut [f32],
    term: &'a mut [bool],
    trunc: &'a mut [bool],
    ply: &'a mut [u32],
    legal: &'a mut [u128],
    end: &'a mut [u8],
    final_obs: &'a mut [f32],
    hashes: &'a mut [Option<(u64, u32, u64)>],
}

/// Splits a slice of `width` values a game after `k` games.
fn cut<T>(s: &mut [T], k: usize, width: usize) -> (&mut [T], &mut [T]) {
    s.split_at_mut(k * width)
}

impl<'a> Outs<'a> {
    fn of(b: &'a mut Buffers) -> Outs<'a> {
        Outs {
            obs: &mut b.obs,
            mask: &mut b.mask,
            player: &mut b.player,
            rewards: &mut b.rewards,
            term: &mut b.term,
            trunc: &mut b.trunc,
            ply: &mut b.ply,
            legal: &mut b.legal,
            end: &mut b.end,
            final_obs: &mut b.final_obs,
            hashes: &mut b.hashes,
        }
    }

    /// The first `k` games' views and the rest's.
    fn split_at(self, k: usize) -> (Outs<'a>, Outs<'a>) {
        let (obs, obs2) = cut(self.obs, k, CANON_SIZE);
        let (mask, mask2) = cut(self.mask, k, NUM_ACTIONS);
        let (player, player2) = cut(self.player, k, 1);
        let (rewards, rewards2) = cut(self.rewards, k, 2);
        let (term, term2) = cut(self.term, k, 1);
        let (trunc, trunc2) = cut(self.trunc, k, 1);
        let (ply, ply2) = cut(self.ply, k, 1);
        let (legal, legal2) = cut(self.legal, k, 1);
        let (end, end2) = cut(self.end, k, 1);
        let (final_obs, final_obs2) = cut(self.final_obs, k, CANON_SIZE);
        let (hashes, hashes2) = cut(self.hashes, k, 1);
        (
            Outs {
                obs,
                mask,
                player,
                rewards,
                term,
                trunc,
                ply,
                legal,
                end,
                final_obs,
                hashes,
            },
            Outs {
                obs: obs2,
                mask: mask2,
                player: player2,
                rewards: rewards2,
                term: term2,
                trunc: trunc2,
                ply: ply2,
                legal: legal2,
                end: end2,
                final_obs: final_obs2,
                hashes: hashes2,
            },
        )
    }

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

    /// Clears game `i`'s rewards, end flags and reason.
    fn clear(&mut self, i: usize) {
        self.rewards[2 * i] = 0.0;
        self.rewards[2 * i + 1] = 0.0;
        self.term[i] = false;
        self.trunc[i] = false;
        self.end[i] = 0;
    }
}

/// A range of a batch's games: their lanes, repetition regions (empty
/// without regions) and buffers.
struct Part<'a> {
    /// The number of the first game.
    base: usize,
    lanes: &'a mut [Lane],
    regions: &'a mut [Slot],
    out: Outs<'a>,
}

impl<'a> Part<'a> {
    /// The first `k` games and the rest.
    fn split_at(self, k: usize) -> (Part<'a>, Part<'a>) {
        let (lanes, lanes2) = self.lanes.split_at_mut(k);
        let (regions, regions2) = if self.regions.is_empty() {
            (&mut [][..], &mut [][..])
        } else {
            self.regions.split_at_mut(k * REGION_SLOTS)
        };
        let (out, out2) = self.out.split_at(k);
        (
            Part {
                base: self.base,
                lanes,
                regions,
                out,
            },
            Part {
                base: self.base + k,
                lanes: lanes2,
                regions: regions2,
                out: out2,
            },
        )
    }

    /// Runs `f` on the part, or on up to `threads` slices of it in as many
    /// threads (each of at least [`MIN_PART`] games), this one included.
    fn run(self, threads: usize, f: impl Fn(Part<'_>) + Sync) {
        let n = self.lanes.len();
        let k = threads.min(n / MIN_PART).max(1);
        if k == 1 {
            return f(self);
        }
        let size = n.div_ceil(k);
        let f = &f;
        std::thread::scope(|s| {
            let mut rest = self;
            while rest.lanes.len() > size {
                let (head, tail) = rest.split_at(size);
                s.spawn(move || f(head));
                rest = tail;
            }
            f(rest);
        });
    }

    /// Plays `acts` (legal numbers; ignored for games over), one a game
    /// of the batch.
    fn step(self, acts: &[i64], p: Params) {
        // By chunks, pipelined: play the next chunk's actions (each
        // asking for the repetition table slot it will probe) before
        // finishing this one, so that cache misses overlap.
        const CHUNK: usize = 16;
        let Part {
            base,
            lanes,
            regions,
            mut out,
        } = self;
        let n = lanes.len();
        let acts = &acts[base..base + n];
        let advance = |lanes: &mut [Lane],
                       regions: &mut [Slot],
                       hashes: &mut [Option<(u64, u32, u64)>],
                       from: usize| {
            for i in from..(from + CHUNK).min(lanes.len()) {
                let lane = &mut lanes[i];
                if !lane.over {
                    let a = acts[i] as usize;
                    lane.moves.push(a as u8);
                    hashes[i] = lane.advance(a, region(regions, i));
                }
            }
        };
        advance(lanes, regions, out.hashes, 0);
        for base in (0..n).step_by(CHUNK) {
            advance(lanes, regions, out.hashes, base + CHUNK);
            let end = (base + CHUNK).min(n);
            for (i, lane) in lanes.iter_mut().enumerate().take(end).skip(base) {
                if lane.over {
                    // Only without auto_reset: the game stays over (its
                    // terminated and truncated stay as they were).
                    out.rewards[2 * i] = 0.0;
                    out.rewards[2 * i + 1] = 0.0;
                    out.end[i] = 0;
                    continue;
                }
                let (r, end) = match lane.settle(out.hashes[i], p.cap, region(regions, i)) {
                    Some((s, end)) => {
                        let r = match p.reward {
                            Reward::Score => (s[0] as f32 - s[1] as f32) / p.total,
                            // Not `signum`: it gives 1 for a draw's +0.0.
                            Reward::Win => (s[0] > s[1]) as i8 as f32 - (s[0] < s[1]) as i8 as f32,
                        };
                        (r, Some(end))
                    }
                    None if p.max_steps.is_some_and(|m| lane.ply >= m) => {
                        lane.over = true;
                        lane.legal = 0;
                        (0.0, Some(End::MaxSteps))
                    }
                    None => (0.0, None),
                };
                out.rewards[2 * i] = r;
                out.rewards[2 * i + 1] = -r;
                out.term[i] = end.is_some_and(|e| e != End::MaxSteps);
                out.trunc[i] = end == Some(End::MaxSteps);
                out.end[i] = end.map_or(0, |e| e as u8);
                if end.is_some() {
                    // The observation the game ended on, before a reset.
                    canonical(
                        &lane.pos,
                        lane.ply,
                        lane.reps,
                        &mut out.final_obs[i * CANON_SIZE..(i + 1) * CANON_SIZE],
                    );
                    if p.auto_reset {
                        lane.reset(p.start, region(regions, i));
                    }
                }
                out.write(i, lane);
            }
        }
    }
}

/// An n-game buffer as a new read-only numpy array of `width` columns
/// (one dimension if `width` is 0).
fn frozen<'py, T: numpy::Element + Copy>(
    py: Python<'py>,
    data: &[T],
    width: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let a = PyArray1::from_slice(py, data).into_any();
    let a = match data.len().checked_div(width) {
        None => a,
        Some(rows) => a.call_method1("reshape", (rows, width))?,
    };
    a.call_method1("setflags", (false,))?;
    Ok(a)
}

/// The batch's arrays as last given out: made on the first read after a
/// change, then the same object until the next change.
#[derive(Default)]
struct Views {
    obs: Option<Py<PyAny>>,
    mask: Option<Py<PyAny>>,
    player: Option<Py<PyAny>>,
    rewards: Option<Py<PyAny>>,
    term: Option<Py<PyAny>>,
    trunc: Option<Py<PyAny>>,
    ply: Option<Py<PyAny>>,
}

/// n games of one rule set stepped together (docs/PYTHON.md, "GoreBatch").
///
/// The arrays (`observation`, `legal_action_mask`, `current_player`,
/// `rewards`, `terminated`, `truncated`, `ply`) are new read-only numpy
/// arrays after each `step` or change: an array kept from one step is
/// never overwritten by the next.
#[pyclass(module = "gore.vector", name = "GoreBatch")]
pub(crate) struct PyBatch {
    rules: Rules,
    start: Position,
    auto_reset: bool,
    reward: Reward,
    max_steps: Option<u32>,
    threads: usize,
    lanes: Vec<Lane>,
    /// The games' repetition tables ([`Regions`]).
    regions: Regions,
    rng: ChaCha8Rng,
    buf: Buffers,
    views: Views,
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

/// A game of a batch set aside by `copy_games`: its lane, its repetition
/// region, its last rewards, flags and final observation.
struct Copied {
    lane: Lane,
    slots: Vec<Slot>,
    rewards: [f32; 2],
    flags: (bool, bool, u8),
    final_obs: Vec<f32>,
}

/// Returns the cached view `$field`, made by `$make` if there is none.
macro_rules! view {
    ($self:ident, $py:ident, $field:ident, $make:expr) => {{
        if let Some(a) = &$self.views.$field {
            return Ok(a.clone_ref($py));
        }
        let a: Py<PyAny> = $make?.unbind();
        $self.views.$field = Some(a.clone_ref($py));
        Ok(a)
    }};
}

impl PyBatch {
    /// The parameters of a step.
    fn params(&self) -> Params {
        Params {
            start: self.start,
            cap: self.rules.ply_cap,
            total: self.rules.variant.total_seeds() as f32,
            reward: self.reward,
            auto_reset: self.auto_reset,
            max_steps: self.max_steps,
        }
    }

    /// All the games as one part.
    fn part(&mut self) -> Part<'_> {
        Part {
            base: 0,
            lanes: &mut self.lanes,
            regions: &mut self.regions.0,
            out: Outs::of(&mut self.buf),
        }
    }

    /// The game number `i` checked against the batch (`what` names it).
    fn index(&self, i: i64, what: &str) -> PyResult<usize> {
        usize::try_from(i)
            .ok()
            .filter(|&i| i < self.lanes.len())
            .ok_or_else(|| {
                GoreError::new_err(format!(
                    "{what}: expected a game 0 to {}, not {i}",
                    self.lanes.len() - 1
                ))
            })
    }

    /// Makes game `i` the game `g` (rules checked by the caller).
    fn load(&mut self, i: usize, g: &Game) {
        self.lanes[i].load(g, self.regions.get(i));
        let mut out = Outs::of(&mut self.buf);
        out.clear(i);
        out.term[i] = g.is_over();
        out.write(i, &self.lanes[i]);
        self.views = Views::default();
    }

    /// A copy of the batch (its arrays made again on first read).
    fn duplicate(&self) -> PyBatch {
        let mut regions = Regions::new(self.lanes.len());
        regions.0.copy_from_slice(&self.regions.0);
        PyBatch {
            rules: self.rules,
            start: self.start,
            auto_reset: self.auto_reset,
            reward: self.reward,
            max_steps: self.max_steps,
            threads: self.threads,
            lanes: self.lanes.clone(),
            regions,
            rng: self.rng.clone(),
            buf: self.buf.clone(),
            views: Views::default(),
        }
    }

    /// Game `i` as `copy_games` copies it.
    fn copied(&mut self, i: usize) -> Copied {
        let b = &self.buf;
        Copied {
            lane: self.lanes[i].clone(),
            slots: self.regions.get(i).to_vec(),
            rewards: [b.rewards[2 * i], b.rewards[2 * i + 1]],
            flags: (b.term[i], b.trunc[i], b.end[i]),
            final_obs: b.final_obs[i * CANON_SIZE..(i + 1) * CANON_SIZE].to_vec(),
        }
    }

    /// Makes game `d` what `c` copied.
    fn paste(&mut self, d: usize, c: &Copied) {
        self.regions.get(d).copy_from_slice(&c.slots);
        self.lanes[d].clone_from(&c.lane);
        let b = &mut self.buf;
        b.rewards[2 * d..2 * d + 2].copy_from_slice(&c.rewards);
        (b.term[d], b.trunc[d], b.end[d]) = c.flags;
        b.final_obs[d * CANON_SIZE..(d + 1) * CANON_SIZE].copy_from_slice(&c.final_obs);
        Outs::of(b).write(d, &self.lanes[d]);
    }

    /// Game `i`'s lane as a gore.Game.
    fn game_of(&self, i: usize) -> crate::PyGame {
        crate::PyGame(self.lanes[i].game(self.rules.ply_cap))
    }
}

#[pymethods]
impl PyBatch {
    /// `n` games of `rules` (a gore.Rules or its text) at their start.
    /// `seed` seeds `random_actions`; `auto_reset` starts a game again in
    /// the step that ends it; `reward` is `"score"` (final seed difference
    /// over the seeds in the game) or `"win"` (1, 0, -1); `max_steps`
    /// truncates a game after that many actions; `threads` steps the games
    /// in up to that many threads (slices of at least 256 games).
    #[new]
    #[pyo3(signature = (n, rules = None, seed = 0, auto_reset = true, reward = "score", max_steps = None, threads = 1))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        n: i64,
        rules: Option<&Bound<'_, PyAny>>,
        seed: u64,
        auto_reset: bool,
        reward: &str,
        max_steps: Option<i64>,
        threads: i64,
    ) -> PyResult<Self> {
        // Its arrays are numpy's: without numpy, an ImportError (numpy's
        // C-API would panic).
        crate::numpy_module(py, "GoreBatch")?;
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
        if !(1..=MAX_THREADS as i64).contains(&threads) {
            return Err(GoreError::new_err(format!(
                "threads: expected 1 to {MAX_THREADS}, not {threads}"
            )));
        }
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
            threads: threads as usize,
            lanes,
            regions,
            rng: ChaCha8Rng::seed_from_u64(seed),
            buf: Buffers::new(n),
            views: Views::default(),
        };
        batch.reset_games(None);
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
    /// `"score"` or `"win"`.
    #[getter]
    fn reward(&self) -> &'static str {
        self.reward.name()
    }
    /// The actions after which a game is truncated, if any.
    #[getter]
    fn max_steps(&self) -> Option<u32> {
        self.max_steps
    }
    /// The most threads a step uses.
    #[getter]
    fn threads(&self) -> usize {
        self.threads
    }
    /// n × 28 float32: each game's canonical observation, from its player
    /// to move (docs/PYTHON.md).
    #[getter]
    fn observation(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        view!(self, py, obs, frozen(py, &self.buf.obs, CANON_SIZE))
    }
    /// n × 103 bool: the legal action numbers (all False once over).
    #[getter]
    fn legal_action_mask(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        view!(self, py, mask, frozen(py, &self.buf.mask, NUM_ACTIONS))
    }
    /// n int8: the player to move, 0 for A, 1 for B.
    #[getter]
    fn current_player(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        view!(self, py, player, frozen(py, &self.buf.player, 0))
    }
    /// n × 2 float32: the rewards of A and B in the last step (0 unless the
    /// game ended in it).
    #[getter]
    fn rewards(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        view!(self, py, rewards, frozen(py, &self.buf.rewards, 2))
    }
    /// n bool: the game ended by the rules (in the last step, with
    /// auto_reset).
    #[getter]
    fn terminated(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        view!(self, py, term, frozen(py, &self.buf.term, 0))
    }
    /// n bool: the game reached `max_steps` (in the last step, with
    /// auto_reset).
    #[getter]
    fn truncated(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        view!(self, py, trunc, frozen(py, &self.buf.trunc, 0))
    }
    /// n uint32: actions played in each game since its start.
    #[getter]
    fn ply(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        view!(self, py, ply, frozen(py, &self.buf.ply, 0))
    }

    /// Game `i`'s current position (swept once over).
    fn position(&self, i: i64) -> PyResult<PyPosition> {
        let i = self.index(i, "i")?;
        Ok(PyPosition(self.lanes[i].pos))
    }

    /// Game `i` as a gore.Game: its start and every action since, so
    /// its history, repetitions and outcome are the game's own (a game
    /// truncated by `max_steps` is not over for gore.Game).
    fn game(&self, i: i64) -> PyResult<crate::PyGame> {
        let i = self.index(i, "i")?;
        Ok(self.game_of(i))
    }

    /// Makes game `i` a copy of `game` (a gore.Game of the batch's rules,
    /// from any start, its history counted for repetition). Its rewards
    /// become 0, truncated False, terminated whether it is over; a game
    /// over is refused with auto_reset. When it ends, an auto-reset
    /// starts it again from the rules' start.
    fn set_game(&mut self, i: i64, game: PyRef<'_, crate::PyGame>) -> PyResult<()> {
        let i = self.index(i, "i")?;
        let g = &game.0;
        if g.rules() != self.rules {
            return Err(GoreError::new_err(format!(
                "game: its rules are {}, the batch's {}",
                g.rules(),
                self.rules
            )));
        }
        if g.is_over() && self.auto_reset {
            return Err(GoreError::new_err(
                "game: over, and the batch starts games again (auto_reset): set a game that goes on",
            ));
        }
        self.load(i, g);
        Ok(())
    }

    /// Copies games: game `dst[k]` becomes a copy of game `src[k]` as it
    /// was before the call (its position, history and counts; its rewards
    /// and end flags). `src` and `dst`: integers, or sequences or arrays
    /// of integers of one length.
    fn copy_games(&mut self, src: &Bound<'_, PyAny>, dst: &Bound<'_, PyAny>) -> PyResult<()> {
        let list = |o: &Bound<'_, PyAny>, what: &str| -> PyResult<Vec<i64>> {
            match o.extract::<i64>() {
                Ok(x) => Ok(vec![x]),
                Err(_) => read_vec::<i64>(o, what, "integers"),
            }
        };
        let (src, dst) = (list(src, "src")?, list(dst, "dst")?);
        if src.len() != dst.len() {
            return Err(GoreError::new_err(format!(
                "src and dst: expected one length, not {} and {}",
                src.len(),
                dst.len()
            )));
        }
        let src = src
            .iter()
            .map(|&i| self.index(i, "src"))
            .collect::<PyResult<Vec<_>>>()?;
        let dst = dst
            .iter()
            .map(|&i| self.index(i, "dst"))
            .collect::<PyResult<Vec<_>>>()?;
        // Each source as it was before the call: copied aside first if a
        // game is both copied and copied to, else read in place.
        let aside = src.iter().any(|i| dst.contains(i));
        let copies: Vec<Copied> = if aside {
            src.iter().map(|&i| self.copied(i)).collect()
        } else {
            Vec::new()
        };
        for (k, (&s, &d)) in src.iter().zip(&dst).enumerate() {
            if s == d {
                continue;
            }
            if aside {
                self.paste(d, &copies[k]);
            } else {
                if !self.regions.0.is_empty() {
                    let from = s * REGION_SLOTS..(s + 1) * REGION_SLOTS;
                    self.regions.0.copy_within(from, d * REGION_SLOTS);
                }
                let lane = self.lanes[s].clone();
                self.lanes[d] = lane;
                let b = &mut self.buf;
                b.rewards.copy_within(2 * s..2 * s + 2, 2 * d);
                b.term[d] = b.term[s];
                b.trunc[d] = b.trunc[s];
                b.end[d] = b.end[s];
                let a = s * CANON_SIZE;
                b.final_obs.copy_within(a..a + CANON_SIZE, d * CANON_SIZE);
                Outs::of(b).write(d, &self.lanes[d]);
            }
        }
        self.views = Views::default();
        Ok(())
    }

    /// A uniformly random legal action number for every game (0 for a game
    /// over), from the batch's seeded generator: a new int64 array.
    fn random_actions<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        let rng = &mut self.rng;
        let acts: Vec<i64> = self
            .buf
            .legal
            .iter()
            .map(|&legal| {
                if legal == 0 {
                    0
                } else {
                    pick(legal, rng) as i64
                }
            })
            .collect();
        PyArray1::from_vec(py, acts)
    }

    /// Plays one action number per game (`actions`: n integers), without
    /// the GIL. An illegal action raises IllegalAction naming the game
    /// and the action, and changes no game. A game over (without
    /// auto_reset) ignores its action.
    ///
    /// Returns the step's info (Gymnasium's `final_obs` convention):
    /// `"final_obs"`, n × 28 float32, the observation each game ended on
    /// in this step (zeros for the others); `"_final_obs"`, n bool,
    /// whether it ended (terminated or truncated) in this step;
    /// `"end_reason"`, n int8, how (an index into `END_REASONS`, 0 for
    /// none).
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
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
        for (i, (&a, &legal)) in acts.iter().zip(&self.buf.legal).enumerate() {
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
        let (params, threads) = (self.params(), self.threads);
        self.views = Views::default();
        let part = self.part();
        py.allow_threads(|| part.run(threads, |p| p.step(&acts, params)));
        self.info(py)
    }

    /// Starts games again: those where `mask` (n booleans) is true, or all.
    /// Their rewards, terminated and truncated become 0 and False.
    #[pyo3(signature = (mask = None))]
    fn reset(&mut self, mask: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
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
        self.reset_games(which.as_deref());
        Ok(())
    }

    fn __copy__(&self) -> PyBatch {
        self.duplicate()
    }
    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> PyBatch {
        self.duplicate()
    }
    /// Pickles as the constructor's arguments and a state: the generator's
    /// position, every game (gore.Game, pickled as its record), the games
    /// truncated and kept over, and the last step's rewards and flags.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>, Bound<'py, PyTuple>)> {
        let py = slf.py();
        let b = slf.borrow();
        let args = (
            b.lanes.len(),
            b.rules.to_string(),
            0u64,
            b.auto_reset,
            b.reward.name(),
            b.max_steps,
            b.threads,
        )
            .into_pyobject(py)?;
        let games = (0..b.lanes.len()).map(|i| b.game_of(i)).collect::<Vec<_>>();
        // Over in the batch but not for gore.Game: truncated by max_steps.
        let cut: Vec<bool> = b
            .lanes
            .iter()
            .zip(&games)
            .map(|(l, g)| l.over && !g.0.is_over())
            .collect();
        let state = (
            PyBytes::new(py, &b.rng.get_seed()),
            b.rng.get_stream(),
            b.rng.get_word_pos(),
            games,
            cut,
            b.buf.rewards.clone(),
            b.buf.term.clone(),
            b.buf.trunc.clone(),
        )
            .into_pyobject(py)?;
        Ok((py.get_type::<PyBatch>().into_any(), args, state))
    }
    /// Restores what `__reduce__` saved.
    #[allow(clippy::type_complexity)]
    fn __setstate__(
        &mut self,
        state: (
            Vec<u8>,
            u64,
            u128,
            Vec<PyRef<'_, crate::PyGame>>,
            Vec<bool>,
            Vec<f32>,
            Vec<bool>,
            Vec<bool>,
        ),
    ) -> PyResult<()> {
        let (seed, stream, word, games, cut, rewards, term, trunc) = state;
        let n = self.lanes.len();
        let bad = |what: &str| GoreError::new_err(format!("GoreBatch state: bad {what}"));
        let seed: [u8; 32] = seed.try_into().map_err(|_| bad("seed"))?;
        if games.len() != n || cut.len() != n || rewards.len() != 2 * n {
            return Err(bad("length"));
        }
        if term.len() != n || trunc.len() != n {
            return Err(bad("length"));
        }
        for g in &games {
            if g.0.rules() != self.rules {
                return Err(bad("game"));
            }
        }
        let mut rng = ChaCha8Rng::from_seed(seed);
        rng.set_stream(stream);
        rng.set_word_pos(word);
        self.rng = rng;
        for (i, g) in games.iter().enumerate() {
            self.load(i, &g.0);
            if cut[i] {
                let lane = &mut self.lanes[i];
                lane.over = true;
                lane.legal = 0;
                Outs::of(&mut self.buf).write(i, &self.lanes[i]);
            }
        }
        self.buf.rewards = rewards;
        self.buf.term = term;
        self.buf.trunc = trunc;
        self.views = Views::default();
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

impl PyBatch {
    /// Starts the games where `which` is true again (all without it).
    fn reset_games(&mut self, which: Option<&[bool]>) {
        let start = self.start;
        let mut out = Outs::of(&mut self.buf);
        for (i, lane) in self.lanes.iter_mut().enumerate() {
            if which.is_some_and(|w| !w[i]) {
                continue;
            }
            lane.reset(start, self.regions.get(i));
            out.clear(i);
            out.write(i, lane);
        }
        self.views = Views::default();
    }

    /// The last step's info (`step`'s docs).
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let n = self.lanes.len();
        let final_obs = PyArray2::<f32>::zeros(py, [n, CANON_SIZE], false);
        {
            let mut w = final_obs.try_readwrite().map_err(|e| {
                GoreError::new_err(format!("GoreBatch: cannot write final_obs: {e}"))
            })?;
            let rows = w.as_slice_mut().map_err(|e| {
                GoreError::new_err(format!("GoreBatch: cannot write final_obs: {e}"))
            })?;
            for (i, &e) in self.buf.end.iter().enumerate() {
                if e != 0 {
                    let r = i * CANON_SIZE..(i + 1) * CANON_SIZE;
                    rows[r.clone()].copy_from_slice(&self.buf.final_obs[r]);
                }
            }
        }
        let ended = PyArray1::from_iter(py, self.buf.end.iter().map(|&e| e != 0));
        let reason = PyArray1::from_iter(py, self.buf.end.iter().map(|&e| e as i8));
        let d = PyDict::new(py);
        d.set_item("final_obs", final_obs)?;
        d.set_item("_final_obs", ended)?;
        d.set_item("end_reason", reason)?;
        Ok(d)
    }
}

/// Adds the batch environment to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyBatch>()?;
    m.add_class::<PyRollouts>()?;
    m.add("CANONICAL_SIZE", CANON_SIZE)?;
    m.add("END_REASONS", PyTuple::new(m.py(), END_NAMES)?)?;
    Ok(())
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
