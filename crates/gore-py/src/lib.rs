//! # gore-py — Goré for Python
//!
//! The `gore` Python module (built by maturin from `crates/gore-py`):
//! bindings over gore-core (rules, positions, actions, games, records),
//! gore-ai (the search) and gore-solver (the solved database). Nothing of
//! the rules is decided here: every rule is gore-core's. What this crate
//! adds is the fixed numbering of the 103 actions and the observation
//! array that the PettingZoo environment and the OpenSpiel game share
//! (docs/PYTHON.md), and Python's errors.
//!
//! The Python side (`python/gore/`) adds the PettingZoo environment, the
//! OpenSpiel game and the type stubs.

mod solve;

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use gore_ai::{Engine, Level, Limits, Options, SEED};
use gore_core::{Action, Game, Hole, HoleSet, Outcome, Player, Position, Record, Rules};
use gore_solver::disk::Database;
use pyo3::create_exception;
use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

mod tool;
mod vector;

create_exception!(
    gore,
    GoreError,
    PyValueError,
    "Base of every error of the gore module (a ValueError)."
);
create_exception!(
    gore,
    RulesError,
    GoreError,
    "A rule set that does not parse (`seeds=9`, an unknown option)."
);
create_exception!(
    gore,
    GpnError,
    GoreError,
    "A GPN position that does not parse (the message names the field) or breaks a rule."
);
create_exception!(
    gore,
    ActionError,
    GoreError,
    "An action token or action number that is not an action."
);
create_exception!(
    gore,
    IllegalAction,
    GoreError,
    "An action the rules forbid here; the message names the rule."
);
create_exception!(
    gore,
    RecordError,
    GoreError,
    "A game record that does not parse or does not replay."
);
create_exception!(
    gore,
    SearchError,
    GoreError,
    "Bad search arguments (a level out of range, a limit below 1)."
);
create_exception!(
    gore,
    ArgumentError,
    GoreError,
    "An argument out of its range or not one of its values (a player other than 'A' or 'B', a negative count); the message names the argument."
);
create_exception!(
    gore,
    SolvedDbError,
    GoreError,
    "A solved database that cannot be opened, or a position it cannot answer."
);

// ---------------------------------------------------------------------------
// The fixed action numbering (docs/PYTHON.md): 0-7 sow a1..b4, 8-99 the
// offers of 1, 2 then 3 holes in lexicographic board order, 100 accept,
// 101 decline, 102 pass.

/// Number of actions of the fixed numbering.
const NUM_ACTIONS: usize = 103;
/// First offer number.
const OFFER_BASE: usize = 8;
/// Numbers of the answers and of pass.
const ACCEPT: usize = 100;
const DECLINE: usize = 101;
const PASS: usize = 102;

/// The 92 offer masks in numbering order.
const OFFERS: [u8; 92] = offer_masks();
/// The offer number (from [`OFFER_BASE`]) of each mask of 1-3 holes; 255
/// for other masks.
const OFFER_INDEX: [u8; 256] = offer_index();

const fn offer_masks() -> [u8; 92] {
    let mut out = [0u8; 92];
    let mut k = 0;
    let mut i = 0;
    while i < 8 {
        out[k] = 1 << i;
        k += 1;
        i += 1;
    }
    let mut i = 0;
    while i < 8 {
        let mut j = i + 1;
        while j < 8 {
            out[k] = (1 << i) | (1 << j);
            k += 1;
            j += 1;
        }
        i += 1;
    }
    let mut i = 0;
    while i < 8 {
        let mut j = i + 1;
        while j < 8 {
            let mut l = j + 1;
            while l < 8 {
                out[k] = (1 << i) | (1 << j) | (1 << l);
                k += 1;
                l += 1;
            }
            j += 1;
        }
        i += 1;
    }
    out
}

const fn offer_index() -> [u8; 256] {
    let masks = offer_masks();
    let mut out = [255u8; 256];
    let mut k = 0;
    while k < 92 {
        out[masks[k] as usize] = k as u8;
        k += 1;
    }
    out
}

/// numpy, imported for `what`: an ImportError saying so if it is
/// missing (numpy's C-API would panic without it).
pub(crate) fn numpy_module<'py>(py: Python<'py>, what: &str) -> PyResult<Bound<'py, PyModule>> {
    py.import("numpy").map_err(|e| {
        pyo3::exceptions::PyImportError::new_err(format!(
            "{what} needs numpy (pip install \"gore-mancala[vector]\"): {e}"
        ))
    })
}

/// The number of an action.
pub(crate) fn action_number(a: Action) -> usize {
    match a {
        Action::Sow(h) => h.index(),
        Action::Offer(set) => OFFER_BASE + OFFER_INDEX[set.0 as usize] as usize,
        Action::Accept => ACCEPT,
        Action::Decline => DECLINE,
        Action::Pass => PASS,
    }
}

/// The action of a number, if it is one.
fn action_of_number(n: i64) -> Option<Action> {
    let n = usize::try_from(n).ok()?;
    Some(match n {
        0..=7 => Action::Sow(Hole::ALL[n]),
        8..=99 => Action::Offer(HoleSet(OFFERS[n - OFFER_BASE])),
        ACCEPT => Action::Accept,
        DECLINE => Action::Decline,
        PASS => Action::Pass,
        _ => return None,
    })
}

// ---------------------------------------------------------------------------
// The observation array (docs/PYTHON.md), from one player's side.

/// Length of the observation array.
const OBS_SIZE: usize = 28;

fn observation(p: &Position, me: Player) -> [f32; OBS_SIZE] {
    let mut o = [0f32; OBS_SIZE];
    for h in Hole::ALL {
        let i = h.index();
        o[i] = p.seeds(h) as f32;
        o[8 + i] = (p.controller(h) == me) as u8 as f32;
    }
    o[16] = p.captured(me) as f32;
    o[17] = p.captured(me.opponent()) as f32;
    o[18] = (p.to_move() == me) as u8 as f32;
    if let Some(offer) = p.pending_offer() {
        for h in offer.iter() {
            o[19 + h.index()] = 1.0;
        }
    }
    o[27] = (me == Player::A) as u8 as f32;
    o
}

fn obs_bytes<'py>(py: Python<'py>, o: &[f32; OBS_SIZE]) -> Bound<'py, PyBytes> {
    let mut buf = [0u8; OBS_SIZE * 4];
    for (i, x) in o.iter().enumerate() {
        buf[4 * i..4 * i + 4].copy_from_slice(&x.to_ne_bytes());
    }
    PyBytes::new(py, &buf)
}

fn mask_bytes<'py>(py: Python<'py>, actions: &[Action]) -> Bound<'py, PyBytes> {
    let mut m = [0u8; NUM_ACTIONS];
    for &a in actions {
        m[action_number(a)] = 1;
    }
    PyBytes::new(py, &m)
}

// ---------------------------------------------------------------------------
// Conversions from Python arguments.

fn player_of(s: &str, field: &str) -> PyResult<Player> {
    s.parse()
        .map_err(|_| ArgumentError::new_err(format!("{field}: expected 'A' or 'B', not {s:?}")))
}

/// The name of an object's type, for TypeError messages.
fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map_or_else(|_| "?".to_string(), |n| n.to_string())
}

/// An int argument as Python gave it: within the range of i64 or of u64
/// (`In`), or beyond both (`Out`, its text). Out-of-range values then
/// raise the argument's own gore error, naming it, rather than PyO3's
/// OverflowError; a value of another type stays PyO3's TypeError, which
/// names the argument.
enum Int {
    In(i128),
    Out(String),
}

impl<'py> FromPyObject<'py> for Int {
    fn extract_bound(ob: &Bound<'py, PyAny>) -> PyResult<Self> {
        match ob.extract::<i64>() {
            Ok(v) => Ok(Int::In(v.into())),
            Err(e) if e.is_instance_of::<PyOverflowError>(ob.py()) => match ob.extract::<u64>() {
                Ok(v) => Ok(Int::In(v.into())),
                Err(_) => Ok(Int::Out(ob.to_string())),
            },
            Err(e) => Err(e),
        }
    }
}

impl Int {
    /// The value if it lies in `lo..=hi` (and fits `T`), else the end of
    /// an error message: "expected `lo` to `hi`, not `value`".
    fn within<T: TryFrom<i128>>(&self, lo: i128, hi: i128) -> Result<T, String> {
        let bound = |x: i128| match x {
            x if x == u64::MAX as i128 => "2**64 - 1".to_string(),
            x if x == u32::MAX as i128 => "2**32 - 1".to_string(),
            x => x.to_string(),
        };
        let fail = |v: String| format!("expected {} to {}, not {v}", bound(lo), bound(hi));
        match self {
            Int::In(v) if (lo..=hi).contains(v) => T::try_from(*v).map_err(|_| fail(v.to_string())),
            Int::In(v) => Err(fail(v.to_string())),
            Int::Out(text) => Err(fail(text.clone())),
        }
    }
}

/// `x` in `lo..=hi`, or an ArgumentError naming `name`.
fn int_arg<T: TryFrom<i128>>(x: &Int, name: &str, lo: i128, hi: i128) -> PyResult<T> {
    x.within(lo, hi)
        .map_err(|e| ArgumentError::new_err(format!("{name}: {e}")))
}

/// The action of an action number, or an ActionError naming it.
fn action_of_int(index: &Int) -> PyResult<Action> {
    index
        .within::<i64>(0, NUM_ACTIONS as i128 - 1)
        .ok()
        .and_then(action_of_number)
        .ok_or_else(|| {
            let text = match index {
                Int::In(v) => v.to_string(),
                Int::Out(t) => t.clone(),
            };
            ActionError::new_err(format!("action number {text}: expected 0 to 102"))
        })
}

fn player_str(p: Player) -> &'static str {
    match p {
        Player::A => "A",
        Player::B => "B",
    }
}

/// Reads a rule set given as [`PyRules`] or as its text.
pub(crate) fn rules_arg(obj: &Bound<'_, PyAny>) -> PyResult<Rules> {
    if let Ok(r) = obj.downcast::<PyRules>() {
        return Ok(r.get().0);
    }
    let text: String = obj.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "rules: expected a gore.Rules or a string, not {}",
            type_name(obj)
        ))
    })?;
    text.parse()
        .map_err(|e| RulesError::new_err(format!("rules {text:?}: {e}")))
}

/// Reads an action given as [`PyAction`], a token or a number.
fn action_arg(obj: &Bound<'_, PyAny>) -> PyResult<Action> {
    if let Ok(a) = obj.downcast::<PyAction>() {
        return Ok(a.get().0);
    }
    if let Ok(s) = obj.extract::<String>() {
        return s
            .parse()
            .map_err(|e| ActionError::new_err(format!("action {s:?}: {e}")));
    }
    if let Ok(n) = obj.extract::<Int>() {
        return action_of_int(&n);
    }
    Err(PyTypeError::new_err(format!(
        "action: expected a gore.Action, a token such as 'b3' or a number 0-102, not {}",
        type_name(obj)
    )))
}

fn illegal(a: Action, e: gore_core::IllegalAction) -> PyErr {
    IllegalAction::new_err(format!("action {a}: {e}"))
}

// ---------------------------------------------------------------------------

/// A game's rule set: the variant (`seeds=N`, `skip-origin`, `no-trades`,
/// `cede-all`) and an optional `ply-cap=N`, written like `"standard"` or
/// `"seeds=4,no-trades,ply-cap=200"`.
#[pyclass(module = "gore", name = "Rules", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct PyRules(Rules);

#[pymethods]
impl PyRules {
    #[new]
    #[pyo3(signature = (text = "standard"))]
    fn new(text: &str) -> PyResult<Self> {
        text.parse()
            .map(PyRules)
            .map_err(|e| RulesError::new_err(format!("rules {text:?}: {e}")))
    }
    fn __str__(&self) -> String {
        self.0.to_string()
    }
    fn __repr__(&self) -> String {
        format!("Rules('{}')", self.0)
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        Ok((slf.get_type().into_any(), (slf.get().0.to_string(),)))
    }
    /// The ply cap, if any.
    #[getter]
    fn ply_cap(&self) -> Option<u32> {
        self.0.ply_cap
    }
    /// Seeds per hole at the start (6 unless `seeds=N`).
    #[getter]
    fn seeds_per_hole(&self) -> u8 {
        self.0.variant.seeds_per_hole()
    }
    /// Seeds in the game (48 in the standard game).
    #[getter]
    fn total_seeds(&self) -> u8 {
        self.0.variant.total_seeds()
    }
    /// The `skip-origin` option.
    #[getter]
    fn skip_origin(&self) -> bool {
        self.0.variant.skip_origin
    }
    /// The `no-trades` option.
    #[getter]
    fn no_trades(&self) -> bool {
        self.0.variant.no_trades
    }
    /// The `cede-all` option.
    #[getter]
    fn cede_all(&self) -> bool {
        self.0.variant.cede_all
    }
}

/// One action: a sowing (`"b3"`), an offer (`"offer:a1,a3"`), `"accept"`,
/// `"decline"` or `"pass"`. Also numbered 0-102 (`index`).
#[pyclass(module = "gore", name = "Action", frozen, eq, hash, ord)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct PyAction(Action);

#[pymethods]
impl PyAction {
    #[new]
    fn new(token: &str) -> PyResult<Self> {
        token
            .parse()
            .map(PyAction)
            .map_err(|e| ActionError::new_err(format!("action {token:?}: {e}")))
    }
    /// The action with this number (0-102).
    #[staticmethod]
    fn from_index(index: Int) -> PyResult<Self> {
        action_of_int(&index).map(PyAction)
    }
    /// The action's number, 0-102.
    #[getter]
    fn index(&self) -> usize {
        action_number(self.0)
    }
    /// `"sow"`, `"offer"`, `"accept"`, `"decline"` or `"pass"`.
    #[getter]
    fn kind(&self) -> &'static str {
        match self.0 {
            Action::Sow(_) => "sow",
            Action::Offer(_) => "offer",
            Action::Accept => "accept",
            Action::Decline => "decline",
            Action::Pass => "pass",
        }
    }
    /// The hole sown, or the holes offered, in board order; empty otherwise.
    #[getter]
    fn holes(&self) -> Vec<String> {
        match self.0 {
            Action::Sow(h) => vec![h.to_string()],
            Action::Offer(s) => s.iter().map(|h| h.to_string()).collect(),
            _ => Vec::new(),
        }
    }
    fn __str__(&self) -> String {
        self.0.to_string()
    }
    fn __repr__(&self) -> String {
        format!("Action('{}')", self.0)
    }
    fn __int__(&self) -> usize {
        action_number(self.0)
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        Ok((slf.get_type().into_any(), (slf.get().0.to_string(),)))
    }
}

/// A valid position: seeds, controllers, captured seeds, the player to
/// move and a pending offer, under a variant. Read and written in GPN.
/// Immutable: `play` returns a new position.
#[pyclass(module = "gore", name = "Position", frozen, eq)]
#[derive(Clone, Copy, PartialEq, Eq)]
struct PyPosition(Position);

#[pymethods]
impl PyPosition {
    /// The position of `gpn` under `rules` (their variant), or the start.
    #[new]
    #[pyo3(signature = (gpn = None, rules = None))]
    fn new(gpn: Option<&str>, rules: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let rules = match rules {
            Some(r) => rules_arg(r)?,
            None => Rules::STANDARD,
        };
        match gpn {
            None => Ok(PyPosition(Position::new(rules.variant))),
            Some(g) => Position::from_gpn(g.trim(), rules.variant)
                .map(PyPosition)
                .map_err(|e| GpnError::new_err(format!("{e}"))),
        }
    }
    /// The start position of `rules`.
    #[staticmethod]
    #[pyo3(signature = (rules = None))]
    fn start(rules: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        PyPosition::new(None, rules)
    }
    /// The position in GPN.
    #[getter]
    fn gpn(&self) -> String {
        self.0.to_string()
    }
    /// The variant (a Rules without ply cap).
    #[getter]
    fn rules(&self) -> PyRules {
        PyRules(Rules::new(self.0.variant()))
    }
    /// Seeds in a1, a2, a3, a4, b1, b2, b3, b4.
    #[getter]
    fn seeds(&self) -> Vec<u32> {
        // u32, not u8: PyO3 turns a Vec<u8> into bytes.
        Hole::ALL
            .iter()
            .map(|&h| u32::from(self.0.seeds(h)))
            .collect()
    }
    /// The controller ('A' or 'B') of a1 … b4.
    #[getter]
    fn controllers(&self) -> Vec<&'static str> {
        Hole::ALL
            .iter()
            .map(|&h| player_str(self.0.controller(h)))
            .collect()
    }
    /// Seeds captured by A and by B.
    #[getter]
    fn captured(&self) -> (u8, u8) {
        (self.0.captured(Player::A), self.0.captured(Player::B))
    }
    /// The player to move ('A' or 'B'): the one who must answer while an
    /// offer is pending.
    #[getter(to_move)]
    fn mover(&self) -> &'static str {
        player_str(self.0.to_move())
    }
    /// The holes of the pending offer, or None.
    #[getter]
    fn pending_offer(&self) -> Option<Vec<String>> {
        self.0
            .pending_offer()
            .map(|s| s.iter().map(|h| h.to_string()).collect())
    }
    /// Whether the board has ended the game (every hole at most 2 seeds,
    /// or a player without a hole).
    #[getter]
    fn is_ended(&self) -> bool {
        self.0.is_ended()
    }
    /// The Zobrist hash (also `hash(position)`).
    #[getter]
    fn zobrist(&self) -> u64 {
        self.0.hash()
    }
    fn __hash__(&self) -> u64 {
        self.0.hash()
    }
    /// The legal actions, in gore-core's order.
    fn legal_actions(&self) -> Vec<PyAction> {
        self.0
            .legal_actions()
            .iter()
            .map(|&a| PyAction(a))
            .collect()
    }
    /// The numbers (0-102) of the legal actions, ascending.
    fn legal_indices(&self) -> Vec<u16> {
        indices(&self.0.legal_actions())
    }
    /// 103 bytes, 1 where the action of that number is legal.
    fn legal_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        mask_bytes(py, &self.0.legal_actions())
    }
    /// Whether `action` (an Action, a token or a number) is legal here.
    fn is_legal(&self, action: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.0.is_legal(action_arg(action)?))
    }
    /// The position after `action`; raises IllegalAction naming the rule.
    fn play(&self, action: &Bound<'_, PyAny>) -> PyResult<PyPosition> {
        let a = action_arg(action)?;
        self.0.play(a).map(PyPosition).map_err(|e| illegal(a, e))
    }
    /// The number of action sequences of `depth` plies (the GIL released).
    fn perft(&self, py: Python<'_>, depth: Int) -> PyResult<u64> {
        let depth: u32 = int_arg(&depth, "depth", 0, u32::MAX.into())?;
        let p = self.0;
        Ok(py.allow_threads(move || p.perft(depth)))
    }
    /// The position with the board's seeds swept to their controllers, as
    /// the end of a game does.
    fn swept(&self) -> PyPosition {
        PyPosition(self.0.swept())
    }
    /// The observation array (docs/PYTHON.md) from `player`'s side, as 28
    /// native float32 values in bytes (`numpy.frombuffer(…, numpy.float32)`).
    fn observation<'py>(&self, py: Python<'py>, player: &str) -> PyResult<Bound<'py, PyBytes>> {
        let me = player_of(player, "player")?;
        Ok(obs_bytes(py, &observation(&self.0, me)))
    }
    fn __str__(&self) -> String {
        self.0.to_string()
    }
    fn __repr__(&self) -> String {
        let v = self.0.variant();
        if v == gore_core::Variant::STANDARD {
            format!("Position('{}')", self.0)
        } else {
            format!("Position('{}', rules='{}')", self.0, v)
        }
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String, String))> {
        let p = slf.get().0;
        Ok((
            slf.get_type().into_any(),
            (p.to_string(), p.variant().to_string()),
        ))
    }
}

/// The numbers of `actions`, ascending (as OpenSpiel wants them), through a
/// 103-bit set rather than a sort.
fn indices(actions: &[Action]) -> Vec<u16> {
    let mut bits: u128 = 0;
    for &a in actions {
        bits |= 1u128 << action_number(a);
    }
    let mut v = Vec::with_capacity(actions.len());
    while bits != 0 {
        v.push(bits.trailing_zeros() as u16);
        bits &= bits - 1;
    }
    v
}

/// How a game ended: the reason, the seeds of A and B, the winner and
/// whether the victory is "without glory" (the winner declined an offer).
#[pyclass(module = "gore", name = "Outcome", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct PyOutcome(Outcome);

#[pymethods]
impl PyOutcome {
    /// `"board"`, `"no-hole"`, `"repetition"` or `"ply-cap"`.
    #[getter]
    fn reason(&self) -> &'static str {
        self.0.reason.as_str()
    }
    /// Final seeds of A and B.
    #[getter]
    fn seeds(&self) -> (u8, u8) {
        (self.0.seeds[0], self.0.seeds[1])
    }
    /// 'A', 'B' or None for a draw.
    #[getter]
    fn winner(&self) -> Option<&'static str> {
        self.0.winner().map(player_str)
    }
    /// The winner declined an offer in the game.
    #[getter]
    fn without_glory(&self) -> bool {
        self.0.without_glory()
    }
    /// Whether A and B declined an offer.
    #[getter]
    fn declined(&self) -> (bool, bool) {
        (self.0.declined[0], self.0.declined[1])
    }
    fn __repr__(&self) -> String {
        format!(
            "Outcome(reason='{}', seeds=({}, {}), winner={}, without_glory={})",
            self.0.reason.as_str(),
            self.0.seeds[0],
            self.0.seeds[1],
            self.0
                .winner()
                .map_or("None".to_string(), |p| format!("'{p}'")),
            if self.0.without_glory() {
                "True"
            } else {
                "False"
            }
        )
    }
    fn __str__(&self) -> String {
        self.0.to_string()
    }
}

/// A game: the start, the actions, threefold repetition, the ply cap,
/// declined offers and the outcome. `play` changes it; an illegal action
/// raises and changes nothing.
#[pyclass(module = "gore", name = "Game")]
#[derive(Clone)]
pub(crate) struct PyGame(pub(crate) Game);

#[pymethods]
impl PyGame {
    /// A new game under `rules`, from their start or from `start` (a
    /// Position of the same variant).
    #[new]
    #[pyo3(signature = (rules = None, start = None))]
    fn new(rules: Option<&Bound<'_, PyAny>>, start: Option<PyPosition>) -> PyResult<Self> {
        let rules = match rules {
            Some(r) => rules_arg(r)?,
            None => Rules::STANDARD,
        };
        match start {
            None => Ok(PyGame(Game::new(rules))),
            Some(p) => {
                if p.0.variant() != rules.variant {
                    return Err(RulesError::new_err(format!(
                        "start: the position's variant is {}, the rules' {}",
                        p.0.variant(),
                        rules.variant
                    )));
                }
                Ok(PyGame(Game::from_position(p.0, rules.ply_cap)))
            }
        }
    }
    /// The game of a record (the text `record()` writes), replayed.
    #[staticmethod]
    fn from_record(text: &str) -> PyResult<Self> {
        let rec = Record::parse(text).map_err(|e| RecordError::new_err(e.to_string()))?;
        rec.replay()
            .map(PyGame)
            .map_err(|e| RecordError::new_err(e.to_string()))
    }
    /// The game's record; `players` names A and B.
    #[pyo3(
        signature = (players = (None, None), date = None, event = None),
        text_signature = "($self, players=(None, None), date=None, event=None)"
    )]
    fn record(
        &self,
        players: (Option<String>, Option<String>),
        date: Option<String>,
        event: Option<String>,
    ) -> String {
        let mut r = Record::from_game(&self.0);
        r.players = [players.0, players.1];
        r.date = date;
        r.event = event;
        r.to_string()
    }
    /// The rule set.
    #[getter]
    fn rules(&self) -> PyRules {
        PyRules(self.0.rules())
    }
    /// The start position.
    #[getter]
    fn start(&self) -> PyPosition {
        PyPosition(*self.0.start())
    }
    /// The current position (swept once the game is over).
    #[getter]
    fn position(&self) -> PyPosition {
        PyPosition(*self.0.position())
    }
    /// The player to move, 'A' or 'B'.
    #[getter(to_move)]
    fn mover(&self) -> &'static str {
        player_str(self.0.position().to_move())
    }
    /// The actions played.
    #[getter]
    fn actions(&self) -> Vec<PyAction> {
        self.0.actions().iter().map(|&a| PyAction(a)).collect()
    }
    /// Number of actions played.
    #[getter]
    fn ply(&self) -> usize {
        self.0.actions().len()
    }
    /// Every position reached, the start first, before any final sweep.
    #[getter]
    fn history(&self) -> Vec<PyPosition> {
        self.0.history().iter().map(|&p| PyPosition(p)).collect()
    }
    /// How many times the current position has occurred.
    #[getter]
    fn repetitions(&self) -> usize {
        self.0.repetitions()
    }
    /// Whether the game is over.
    #[getter]
    fn is_over(&self) -> bool {
        self.0.is_over()
    }
    /// The outcome once over, else None.
    #[getter]
    fn outcome(&self) -> Option<PyOutcome> {
        self.0.outcome().copied().map(PyOutcome)
    }
    /// Whether `player` has declined an offer.
    fn has_declined(&self, player: &str) -> PyResult<bool> {
        Ok(self.0.has_declined(player_of(player, "player")?))
    }
    /// The legal actions (none once over).
    fn legal_actions(&self) -> Vec<PyAction> {
        self.0
            .legal_actions()
            .iter()
            .map(|&a| PyAction(a))
            .collect()
    }
    /// The numbers of the legal actions, ascending.
    fn legal_indices(&self) -> Vec<u16> {
        indices(&self.0.legal_actions())
    }
    /// 103 bytes, 1 where the action of that number is legal.
    fn legal_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        mask_bytes(py, &self.0.legal_actions())
    }
    /// Plays `action` (an Action, a token or a number). Returns the
    /// outcome if it ended the game, else None. Raises IllegalAction,
    /// naming the rule, and changes nothing when it is illegal.
    fn play(&mut self, action: &Bound<'_, PyAny>) -> PyResult<Option<PyOutcome>> {
        let a = action_arg(action)?;
        self.play_action(a)
    }
    /// `play` of an action number, the fast path of the environments.
    fn play_index(&mut self, index: Int) -> PyResult<Option<PyOutcome>> {
        let a = action_of_int(&index)?;
        self.play_action(a)
    }
    /// Plays action number `index` and returns the numbers of the legal
    /// actions that follow, ascending (empty once the game is over): one
    /// call per action for rollouts, where `play_index` then
    /// `legal_indices` would be two. Raises like `play_index`.
    fn step(&mut self, index: Int) -> PyResult<Vec<u16>> {
        self.play_index(index)?;
        Ok(indices(&self.0.legal_actions()))
    }
    /// Takes back the last action and returns it: the game is as it was
    /// before it (position, history, declines, outcome). Costs a copy of
    /// the history (no action is sown again). Raises GoreError when no
    /// action was played.
    fn undo(&mut self) -> PyResult<PyAction> {
        let g = &self.0;
        let n = g.actions().len();
        let Some(&last) = g.actions().last() else {
            return Err(GoreError::new_err("undo: no action has been played"));
        };
        // from_history rebuilds from the positions kept, deciding the end,
        // the declines and the repetitions as `play` did.
        let steps = g.actions()[..n - 1]
            .iter()
            .copied()
            .zip(g.history()[1..n].iter().copied());
        let before = Game::from_history(*g.start(), g.rules().ply_cap, steps)
            .map_err(|e| GoreError::new_err(format!("undo: {e}")))?;
        self.0 = before;
        Ok(PyAction(last))
    }
    /// Plays uniformly random legal actions until the game is over (at
    /// most `max_plies`); returns the number played.
    #[pyo3(signature = (seed, max_plies = None))]
    fn random_playout(
        &mut self,
        py: Python<'_>,
        seed: Int,
        max_plies: Option<Int>,
    ) -> PyResult<u64> {
        let seed: u64 = int_arg(&seed, "seed", 0, u64::MAX.into())?;
        let max = match max_plies {
            Some(m) => int_arg(&m, "max_plies", 0, u64::MAX.into())?,
            None => u64::MAX,
        };
        let game = &mut self.0;
        Ok(py.allow_threads(|| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            playout(game, &mut rng, max)
        }))
    }
    /// The observation array of the current position from `player`'s side.
    fn observation<'py>(&self, py: Python<'py>, player: &str) -> PyResult<Bound<'py, PyBytes>> {
        let me = player_of(player, "player")?;
        Ok(obs_bytes(py, &observation(self.0.position(), me)))
    }
    /// `k` uniformly random playouts from here (the game's history and
    /// ply cap in force), in Rust with the GIL released, seeded by `seed`:
    /// the mean and the distribution of the final seeds.
    #[pyo3(signature = (k, seed = 0))]
    fn rollouts(&self, py: Python<'_>, k: i64, seed: u64) -> PyResult<vector::PyRollouts> {
        let k = u64::try_from(k).ok().filter(|&k| k >= 1).ok_or_else(|| {
            GoreError::new_err(format!("k: expected at least 1 playout, not {k}"))
        })?;
        let game = &self.0;
        let tally = py.allow_threads(|| vector::rollouts(game, k, seed));
        Ok(vector::PyRollouts::of(tally, k))
    }
    /// The canonical observation (`gore.CANONICAL_SIZE` float32 values as
    /// bytes), from the player to move: the row of GoreBatch.observation.
    /// With `player` ('A' or 'B'), the same layout from that player's side
    /// (his holes first), whether or not he is to move.
    #[pyo3(signature = (player = None))]
    fn canonical_observation<'py>(
        &self,
        py: Python<'py>,
        player: Option<&str>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let me = player.map(|s| player_of(s, "player")).transpose()?;
        let o = vector::game_canonical(&self.0, me);
        let mut buf = [0u8; vector::CANON_SIZE * 4];
        for (i, x) in o.iter().enumerate() {
            buf[4 * i..4 * i + 4].copy_from_slice(&x.to_ne_bytes());
        }
        Ok(PyBytes::new(py, &buf))
    }
    /// A copy of the game.
    fn copy(&self) -> PyGame {
        self.clone()
    }
    fn __copy__(&self) -> PyGame {
        self.clone()
    }
    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> PyGame {
        self.clone()
    }
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let py = slf.py();
        let from = py.get_type::<PyGame>().getattr("from_record")?;
        let text = slf.borrow().record((None, None), None, None);
        Ok((from, PyTuple::new(py, [text])?))
    }
    fn __repr__(&self) -> String {
        format!(
            "Game(rules='{}', ply={}, position='{}')",
            self.0.rules(),
            self.0.actions().len(),
            self.0.position()
        )
    }
}

impl PyGame {
    fn play_action(&mut self, a: Action) -> PyResult<Option<PyOutcome>> {
        self.0
            .play(a)
            .map(|p| p.outcome.map(PyOutcome))
            .map_err(|e| illegal(a, e))
    }
}

/// Plays random legal actions until the game is over or `max` actions.
fn playout(game: &mut Game, rng: &mut ChaCha8Rng, max: u64) -> u64 {
    let mut n = 0;
    while n < max && !game.is_over() {
        let legal = game.legal_actions();
        // A game not over always has an action (a pass at least); the
        // check keeps an empty range away from `gen_range` all the same.
        if legal.is_empty() {
            break;
        }
        let a = legal[rng.gen_range(0..legal.len())];
        // Legal by construction: the game cannot refuse it.
        if game.play(a).is_err() {
            break;
        }
        n += 1;
    }
    n
}

/// `games` random playouts from the start of `rules` in Rust, the GIL
/// released: returns the total number of actions played. The fast path
/// for rollouts; the benchmark reports it apart.
#[pyfunction]
#[pyo3(signature = (games, seed = Int::In(0), rules = None), text_signature = "(games, seed=0, rules=None)")]
fn random_playouts(
    py: Python<'_>,
    games: Int,
    seed: Int,
    rules: Option<&Bound<'_, PyAny>>,
) -> PyResult<u64> {
    let games: u64 = int_arg(&games, "games", 0, u64::MAX.into())?;
    let seed: u64 = int_arg(&seed, "seed", 0, u64::MAX.into())?;
    let rules = match rules {
        Some(r) => rules_arg(r)?,
        None => Rules::STANDARD,
    };
    Ok(py.allow_threads(|| {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut total = 0;
        for _ in 0..games {
            let mut g = Game::new(rules);
            total += playout(&mut g, &mut rng, u64::MAX);
        }
        total
    }))
}

/// What `gore.search` found.
#[pyclass(module = "gore", name = "SearchResult", frozen, get_all)]
struct PySearchResult {
    /// The action to play.
    best: PyAction,
    /// Expected final seed difference for the player to move, in seeds.
    score: f64,
    /// Expected final seeds of the player to move and of his opponent.
    expected: (f64, f64),
    /// The principal variation, starting with `best`.
    line: Vec<PyAction>,
    /// Deepest completed iteration, in plies.
    depth: u32,
    /// Nodes searched.
    nodes: u64,
    /// Time spent, in milliseconds.
    time_ms: f64,
}

#[pymethods]
impl PySearchResult {
    fn __repr__(&self) -> String {
        format!(
            "SearchResult(best='{}', score={:.2}, depth={}, nodes={}, line='{}')",
            self.best.0,
            self.score,
            self.depth,
            self.nodes,
            self.line
                .iter()
                .map(|a| a.0.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        )
    }
}

/// Searches a Position or a Game (its history counts for repetition)
/// with gore-ai within the given limits, the GIL released. `level` (1 to
/// the top) plays that level's move: its depth cap, and below the top its
/// deliberate mistakes (seeded by `seed`). With no limit at all the search
/// thinks for one second.
#[pyfunction]
#[pyo3(
    signature = (target, depth = None, time_ms = None, nodes = None, level = None, seed = Int::In(0), hash_mb = Int::In(16)),
    text_signature = "(target, depth=None, time_ms=None, nodes=None, level=None, seed=0, hash_mb=16)"
)]
#[allow(clippy::too_many_arguments)]
fn search(
    py: Python<'_>,
    target: &Bound<'_, PyAny>,
    depth: Option<Int>,
    time_ms: Option<Int>,
    nodes: Option<Int>,
    level: Option<Int>,
    seed: Int,
    hash_mb: Int,
) -> PyResult<Option<PySearchResult>> {
    let game = if let Ok(g) = target.downcast::<PyGame>() {
        g.borrow().0.clone()
    } else if let Ok(p) = target.downcast::<PyPosition>() {
        Game::from_position(p.get().0, None)
    } else {
        return Err(PyTypeError::new_err(format!(
            "target: expected a gore.Position or a gore.Game, not {}",
            type_name(target)
        )));
    };
    // Search arguments out of range are SearchErrors naming the argument.
    fn limit<T: TryFrom<i128>>(x: &Option<Int>, name: &str, hi: i128) -> PyResult<Option<T>> {
        x.as_ref()
            .map(|x| {
                x.within(1, hi)
                    .map_err(|e| SearchError::new_err(format!("{name}: {e}")))
            })
            .transpose()
    }
    let depth: Option<u32> = limit(&depth, "depth", u32::MAX.into())?;
    let time_ms: Option<u64> = limit(&time_ms, "time_ms", u64::MAX.into())?;
    let nodes: Option<u64> = limit(&nodes, "nodes", u64::MAX.into())?;
    let seed: u64 = seed
        .within(0, u64::MAX.into())
        .map_err(|e| SearchError::new_err(format!("seed: {e}")))?;
    let hash_mb: usize = hash_mb
        .within(1, 4096)
        .map_err(|e| SearchError::new_err(format!("hash_mb: {e}")))?;
    let level = match level {
        None => None,
        Some(n) => {
            let n: u8 = n
                .within(0, u8::MAX.into())
                .map_err(|e| SearchError::new_err(format!("level: {e}")))?;
            Some(Level::new(n).map_err(|e| SearchError::new_err(format!("level: {e}")))?)
        }
    };
    let mut limits = Limits {
        depth,
        nodes,
        time: time_ms.map(Duration::from_millis),
        min_depth: None,
    };
    if limits.depth.is_none() && limits.nodes.is_none() && limits.time.is_none() {
        limits = match level {
            Some(l) => l.default_limits(),
            None => Limits::time(gore_ai::DEFAULT_MOVETIME),
        };
    }
    let options = Options {
        level: level.unwrap_or(Level::MAX),
        seed,
        hash_mb,
        ..Options::default()
    };
    let result = py.allow_threads(move || {
        let mut engine = Engine::new(options);
        let stop = AtomicBool::new(false);
        let capped = match level {
            Some(l) => l.cap(limits),
            None => limits,
        };
        let r = engine.search(&game, &capped, &stop, &mut |_| {})?;
        let best = match level {
            Some(_) => engine.choose(&game, &limits, &stop).unwrap_or(r.best),
            None => r.best,
        };
        Some((r, best))
    });
    Ok(result.map(|(r, best)| PySearchResult {
        best: PyAction(best),
        score: r.score as f64 / SEED as f64,
        expected: r.expected_seeds(),
        line: r.pv.iter().map(|&a| PyAction(a)).collect(),
        depth: r.depth,
        nodes: r.nodes,
        time_ms: r.elapsed.as_secs_f64() * 1000.0,
    }))
}

/// Solved values, as final seeds of A and B: the value (threefold
/// repetition counted as an even split) and the bounds under the rule.
#[pyclass(module = "gore", name = "SolvedValue", frozen, get_all)]
#[derive(Clone)]
struct PySolvedValue {
    /// Final seeds (A, B) with the stored value.
    value: (f64, f64),
    /// Final seeds (A, B) when the mover gets his lower bound.
    lower: (f64, f64),
    /// Final seeds (A, B) when the mover gets his upper bound.
    upper: (f64, f64),
    /// Lower bound = upper bound: the history does not matter.
    exact: bool,
}

#[pymethods]
impl PySolvedValue {
    fn __repr__(&self) -> String {
        format!(
            "SolvedValue(value={:?}, lower={:?}, upper={:?}, exact={})",
            self.value,
            self.lower,
            self.upper,
            if self.exact { "True" } else { "False" }
        )
    }
}

impl PySolvedValue {
    fn of(t: gore_solver::probe::Totals) -> PySolvedValue {
        let s = |x: [u16; 2]| (x[0] as f64 / 2.0, x[1] as f64 / 2.0);
        PySolvedValue {
            value: s(t.v),
            lower: s(t.lo),
            upper: s(t.hi),
            exact: t.exact,
        }
    }
}

/// A probe of the solved database: the position's values and each legal
/// action's.
#[pyclass(module = "gore", name = "Probe", frozen, get_all)]
struct PyProbe {
    /// Seeds on the board.
    n: usize,
    /// The player to move.
    mover: &'static str,
    /// The position's values.
    position: PySolvedValue,
    /// Each legal action with its values.
    actions: Vec<(PyAction, PySolvedValue)>,
    /// The text `gore probe` prints.
    lines: Vec<String>,
}

#[pymethods]
impl PyProbe {
    fn __repr__(&self) -> String {
        format!("Probe({})", self.lines.first().map_or("", |s| s.as_str()))
    }
}

/// The solved database of Goré without trades (`gore solve`'s directory).
#[pyclass(module = "gore", name = "SolvedDb", frozen)]
struct PySolvedDb {
    dbs: [Database; 2],
    dir: PathBuf,
}

#[pymethods]
impl PySolvedDb {
    /// Opens the database directory `path` (both rule sets' files that it
    /// holds: `no-trades` and `no-trades,skip-origin`).
    #[new]
    fn new(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        if !path.is_dir() {
            return Err(SolvedDbError::new_err(format!(
                "path: {} is not a directory",
                path.display()
            )));
        }
        let dir = path.clone();
        let opened = py.allow_threads(move || -> Result<[Database; 2], String> {
            let a = Database::open(&path, false).map_err(|e| e.to_string())?;
            let b = Database::open(&path, true).map_err(|e| e.to_string())?;
            Ok([a, b])
        });
        let dbs = opened.map_err(SolvedDbError::new_err)?;
        Ok(PySolvedDb { dbs, dir })
    }
    /// Layers held (seeds on the board 0..layers) for `skip_origin` or not.
    #[pyo3(signature = (skip_origin = false))]
    fn layers(&self, skip_origin: bool) -> usize {
        self.dbs[skip_origin as usize].layers()
    }
    /// The solved values of `position` (a no-trades position) and of each
    /// of its legal actions.
    fn probe(&self, position: PyPosition) -> PyResult<PyProbe> {
        let p = position.0;
        let db = &self.dbs[p.variant().skip_origin as usize];
        let pr = db
            .probe(&p)
            .map_err(|e| SolvedDbError::new_err(format!("probe: {e}")))?;
        Ok(PyProbe {
            n: pr.n,
            mover: player_str(pr.mover),
            position: PySolvedValue::of(pr.totals(pr.values)),
            actions: pr
                .actions
                .iter()
                .map(|&(a, v)| (PyAction(a), PySolvedValue::of(pr.totals(v))))
                .collect(),
            lines: pr.lines(),
        })
    }
    /// Probes a batch of positions given as canonical observations (n ×
    /// 28, GoreBatch's) and their players to move (n, 0 for A, 1 for B),
    /// under `rules` (a no-trades rule set, for its seeds per hole), the
    /// GIL released. Returns a dict of numpy arrays, each value the
    /// mover's final seeds (repetition as an even split): `"value"` (n
    /// float32), `"action_values"` (n × 103 float32, NaN for the actions
    /// not legal), `"exact"` (n bool: the history does not matter) and
    /// `"found"` (n bool: the position is within the database's layers
    /// and not over; the values of the others are NaN).
    #[pyo3(signature = (observations, players, rules = None))]
    fn probe_many<'py>(
        &self,
        py: Python<'py>,
        observations: &Bound<'py, PyAny>,
        players: &Bound<'py, PyAny>,
        rules: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        solve::probe_many(py, &self.dbs, observations, players, rules)
    }
    fn __repr__(&self) -> String {
        format!(
            "SolvedDb('{}', layers={}/{})",
            self.dir.display(),
            self.dbs[0].layers(),
            self.dbs[1].layers()
        )
    }
}

/// The native module `gore._gore`; `gore/__init__.py` re-exports it.
#[pymodule]
fn _gore(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_function(wrap_pyfunction!(tool::_tool, m)?)?;
    m.add_class::<PyRules>()?;
    m.add_class::<PyAction>()?;
    m.add_class::<PyPosition>()?;
    m.add_class::<PyOutcome>()?;
    m.add_class::<PyGame>()?;
    m.add_class::<PySearchResult>()?;
    m.add_class::<PySolvedValue>()?;
    m.add_class::<PyProbe>()?;
    m.add_class::<PySolvedDb>()?;
    m.add_function(wrap_pyfunction!(search, m)?)?;
    m.add_function(wrap_pyfunction!(random_playouts, m)?)?;
    m.add_function(wrap_pyfunction!(solve::solve, m)?)?;
    m.add("GoreError", py.get_type::<GoreError>())?;
    m.add("RulesError", py.get_type::<RulesError>())?;
    m.add("GpnError", py.get_type::<GpnError>())?;
    m.add("ActionError", py.get_type::<ActionError>())?;
    m.add("IllegalAction", py.get_type::<IllegalAction>())?;
    m.add("RecordError", py.get_type::<RecordError>())?;
    m.add("SearchError", py.get_type::<SearchError>())?;
    m.add("SolvedDbError", py.get_type::<SolvedDbError>())?;
    m.add("ArgumentError", py.get_type::<ArgumentError>())?;
    m.add("NUM_ACTIONS", NUM_ACTIONS)?;
    m.add("OBSERVATION_SIZE", OBS_SIZE)?;
    m.add("MAX_LEVEL", gore_ai::MAX_LEVEL)?;
    vector::register(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
