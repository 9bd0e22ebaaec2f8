//! Golden model of the classification submodule (thesis §4.1.11; spec §3.11, §7-30): the
//! maximum of the LC outputs and its index, the first maximum winning (`np.argmax`),
//! presented 9 cycles after `en` falls for 10 classes.

/// `(max, index of the first max)`.
pub fn classification(lc_out: &[i64]) -> (i64, usize) {
    let mut best = (lc_out[0], 0);
    for (i, &v) in lc_out.iter().enumerate().skip(1) {
        if v > best.0 {
            best = (v, i);
        }
    }
    best
}

/// Inputs in one cycle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClassificationIn {
    /// Synchronous reset.
    pub reset: bool,
    /// LC outputs.
    pub lc_out: Vec<i64>,
    /// Start.
    pub en: bool,
}

/// Outputs after one edge; the result is defined while `classify_done`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ClassificationOut {
    /// `(max_lc_out, class_num)` when `classify_done`.
    pub result: Option<(i64, usize)>,
}

/// Cycle model: `en` takes the vector; N-1 edges later the result is done and holds.
#[derive(Clone, Debug, Default)]
pub struct Classification {
    /// Edges left until done (None when idle).
    left: Option<usize>,
    pending: Option<(i64, usize)>,
    done: Option<(i64, usize)>,
}

impl Classification {
    /// Idle block.
    pub fn new() -> Self {
        Self::default()
    }

    /// One clock edge.
    pub fn step(&mut self, i: &ClassificationIn) -> ClassificationOut {
        if i.reset {
            *self = Self::default();
        } else if i.en {
            self.pending = Some(classification(&i.lc_out));
            self.left = Some(i.lc_out.len() - 1);
            self.done = None;
        } else if let Some(l) = self.left {
            if l == 1 {
                self.done = self.pending;
                self.left = None;
            } else {
                self.left = Some(l - 1);
            }
        }
        ClassificationOut { result: self.done }
    }
}
