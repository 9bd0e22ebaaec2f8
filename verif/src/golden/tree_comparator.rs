//! Golden model of the tree comparator (thesis §4.1.10): the signed maximum of a row,
//! delivered through a 5-register pipeline.

/// Signed maximum of a row.
pub fn tree_comparator(row: &[i64]) -> i64 {
    row.iter().copied().max().unwrap_or(i64::MIN)
}

/// Pipeline depth in registers: the row driven before edge k is on `data_out` after edge k+4.
pub const TREE_COMPARATOR_DEPTH: usize = 5;

/// Inputs in one cycle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TreeComparatorIn {
    /// Synchronous reset.
    pub reset: bool,
    /// The row.
    pub data_in: Vec<i64>,
    /// Enable.
    pub instr: bool,
    /// Row valid.
    pub valid_in: bool,
}

/// Outputs after one edge; `data_out` is defined only when `valid_out`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TreeComparatorOut {
    /// Maximum of the row that entered four edges earlier.
    pub data_out: Option<i64>,
    /// A row's maximum is on `data_out`.
    pub valid_out: bool,
}

/// Cycle model.
#[derive(Clone, Debug, Default)]
pub struct TreeComparator {
    pipe: [Option<i64>; TREE_COMPARATOR_DEPTH],
}

impl TreeComparator {
    /// Empty pipeline.
    pub fn new() -> Self {
        Self::default()
    }

    /// One clock edge.
    pub fn step(&mut self, i: &TreeComparatorIn) -> TreeComparatorOut {
        if i.reset {
            self.pipe = [None; TREE_COMPARATOR_DEPTH];
        } else {
            self.pipe.rotate_right(1);
            self.pipe[0] = (i.instr && i.valid_in).then(|| tree_comparator(&i.data_in));
        }
        let last = self.pipe[TREE_COMPARATOR_DEPTH - 1];
        TreeComparatorOut {
            data_out: last,
            valid_out: last.is_some(),
        }
    }
}
