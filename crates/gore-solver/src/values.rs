//! A board's solved values and where the solver reads the lower layers'.

/// The three values of one board, in **half seeds** of its layer's `n`
/// seeds, for the player to move (`2n` is everything): see RULES.md,
/// "Solved values".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Values {
    /// The stored value: never-ending play counts as an even split.
    pub v: u8,
    /// The lower bound of the value under the threefold rule.
    pub lb: u8,
    /// The upper bound of the value under the threefold rule.
    pub ub: u8,
}

impl Values {
    /// A board whose value does not depend on the history: `LB = UB`.
    pub const fn exact(self) -> bool {
        self.lb == self.ub
    }

    /// The same board's values for the other player (`2n` less each, the
    /// bounds swapped), given the layer's `n`.
    pub const fn other(self, n: usize) -> Values {
        let all = 2 * n as u8;
        Values {
            v: all - self.v,
            lb: all - self.ub,
            ub: all - self.lb,
        }
    }
}

/// The solved layers below the one being solved (or the whole database,
/// when probing): the values of the board of rank `rank` in layer `n`.
///
/// Implemented by [`Memory`] (layers held in vectors) and by the
/// memory-mapped files of the `disk` feature.
pub trait Lookup: Sync {
    /// The values of the board of rank `rank` in layer `n`.
    ///
    /// Callers ask only for layers the lookup holds and ranks inside them.
    fn values(&self, n: usize, rank: u64) -> Values;
}

/// One solved layer in memory: the values of every board, by rank.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SolvedLayer {
    /// The layer: seeds on the board.
    pub n: usize,
    /// The values, by rank.
    pub values: Vec<Values>,
}

/// Solved layers `0..len` in memory (tests, small databases).
#[derive(Debug, Clone, Default)]
pub struct Memory {
    /// Layer `n` at index `n`.
    pub layers: Vec<SolvedLayer>,
}

impl Lookup for Memory {
    fn values(&self, n: usize, rank: u64) -> Values {
        self.layers[n].values[rank as usize]
    }
}
