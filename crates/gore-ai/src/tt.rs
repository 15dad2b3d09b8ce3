//! The transposition table, keyed by the position's Zobrist hash.

use gore_core::{Action, Hole, HoleSet};

/// Bound kind of a stored score.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Bound {
    Exact,
    Lower,
    Upper,
}

#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    score: i32,
    action: u16,
    depth: u8,
    /// 0 = empty, 1 exact, 2 lower, 3 upper.
    bound: u8,
}

/// A hit in the table.
pub(crate) struct Hit {
    pub score: i32,
    pub depth: i32,
    pub bound: Bound,
    pub action: Option<Action>,
}

pub(crate) struct Table {
    entries: Vec<Entry>,
    mask: usize,
}

/// Packs an action in 16 bits for the table.
pub(crate) fn encode(a: Action) -> u16 {
    match a {
        Action::Sow(h) => h.index() as u16,
        Action::Offer(s) => 0x100 | s.0 as u16,
        Action::Accept => 0x200,
        Action::Decline => 0x201,
        Action::Pass => 0x202,
    }
}

pub(crate) fn decode(code: u16) -> Option<Action> {
    match code {
        0..=7 => Hole::new(code as u8).map(Action::Sow),
        0x101..=0x1ff => Some(Action::Offer(HoleSet((code & 0xff) as u8))),
        0x200 => Some(Action::Accept),
        0x201 => Some(Action::Decline),
        0x202 => Some(Action::Pass),
        _ => None,
    }
}

impl Table {
    /// A table of about `mb` mebibytes (a power of two entries, at least 1024).
    pub fn new(mb: usize) -> Table {
        let want = (mb.max(1) << 20) / std::mem::size_of::<Entry>();
        let n = want.next_power_of_two().max(1024);
        let n = if n > want && n > 1024 { n / 2 } else { n };
        Table {
            entries: vec![Entry::default(); n],
            mask: n - 1,
        }
    }

    pub fn clear(&mut self) {
        self.entries.fill(Entry::default());
    }

    #[inline]
    pub fn probe(&self, key: u64) -> Option<Hit> {
        let e = self.entries[key as usize & self.mask];
        if e.bound == 0 || e.key != key {
            return None;
        }
        Some(Hit {
            score: e.score,
            depth: e.depth as i32,
            bound: match e.bound {
                1 => Bound::Exact,
                2 => Bound::Lower,
                _ => Bound::Upper,
            },
            action: decode(e.action),
        })
    }

    #[inline]
    pub fn store(
        &mut self,
        key: u64,
        depth: i32,
        score: i32,
        bound: Bound,
        action: Option<Action>,
    ) {
        let slot = &mut self.entries[key as usize & self.mask];
        // Depth-preferred, but always replace a different position's entry
        // found at lower or equal depth, and refresh the same position.
        if slot.bound != 0 && slot.key != key && (slot.depth as i32) > depth + 2 {
            return;
        }
        *slot = Entry {
            key,
            score,
            action: action.map_or(0xffff, encode),
            depth: depth.clamp(0, 255) as u8,
            bound: match bound {
                Bound::Exact => 1,
                Bound::Lower => 2,
                Bound::Upper => 3,
            },
        };
    }
}
