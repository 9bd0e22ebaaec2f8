//! The FC core's backward group (hdl `lel::bk_group::BkGroup`): the eq 4.1 loss of the LC
//! result, the tree adder that takes each LC row's errors back through its weights
//! ([`super::tree_adder::TreeAdder`], LC role) and the classification of each result. A
//! composition of the blocks' cycle models: the tree adder takes the loss's output as it
//! stands before the edge. Trace convention (docs/decisions.md D-CYCLE):
//! [`BkGroup::step`] is the edge and returns the outputs after it.

use super::classification::{Classification, ClassificationIn};
use super::loss::{Loss, LossIn};
use super::tree_adder::{TreeAdder, TreeAdderIn, TreeAdderRole};

/// One cycle's inputs.
#[derive(Clone, Debug, Default)]
pub struct BkGroupIn {
    /// Synchronous reset.
    pub reset: bool,
    /// The image's label.
    pub label: u32,
    /// The LC sums (Q12).
    pub lc: Vec<i64>,
    /// `lc` was just written.
    pub lc_valid: bool,
    /// The error scale.
    pub alpha_e: u32,
    /// LS_LOSS.
    pub loss_en: bool,
    /// LS_BK.
    pub en: bool,
    /// An LC row.
    pub valid: bool,
    /// Its LC weights (int6).
    pub weight: Vec<i64>,
    /// Its ReLU mask.
    pub relu_mask: bool,
}

/// The outputs after an edge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BkGroupOut {
    /// A row's error, when valid (in LS_BK).
    pub grad: Option<i64>,
    /// `(max, class)` while the classification is done.
    pub class: Option<(i64, usize)>,
}

/// Cycle model of the group of C classes.
#[derive(Clone, Debug)]
pub struct BkGroup {
    loss: Loss,
    errors: Vec<i64>,
    tadd: TreeAdder,
    classify: Classification,
}

impl BkGroup {
    /// The group as it powers up.
    pub fn new(classes: usize) -> Self {
        BkGroup {
            loss: Loss::new(classes),
            errors: vec![0; classes],
            tadd: TreeAdder::new(TreeAdderRole::LcBackward),
            classify: Classification::new(),
        }
    }

    /// One clock edge: the outputs after it.
    pub fn step(&mut self, i: &BkGroupIn) -> BkGroupOut {
        let grad = self.tadd.step(&TreeAdderIn {
            reset: i.reset,
            data: self.errors.clone(),
            weight: i.weight.clone(),
            relu_mask: i.relu_mask,
            alpha_conv: 0,
            instr: i.en,
            valid_in: i.valid && i.en,
        });
        self.errors = self.loss.step(&LossIn {
            reset: i.reset,
            true_label: i.label,
            data_in: i.lc.clone(),
            alpha_e: i.alpha_e,
            instr: i.loss_en,
        });
        let class = self.classify.step(&ClassificationIn {
            reset: i.reset,
            lc_out: i.lc.clone(),
            en: i.lc_valid,
        });
        BkGroupOut {
            grad: grad.filter(|_| i.en),
            class: class.result,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::golden::loss::loss;
    use crate::golden::tree_adder::tree_adder;

    #[test]
    fn a_row_goes_back_through_the_losss_errors() {
        let mut g = BkGroup::new(10);
        g.step(&BkGroupIn {
            reset: true,
            ..Default::default()
        });
        let lc: Vec<i64> = (0..10).map(|o| (o - 4) * 900).collect();
        g.step(&BkGroupIn {
            lc: lc.clone(),
            lc_valid: true,
            label: 3,
            ..Default::default()
        });
        g.step(&BkGroupIn {
            lc: lc.clone(),
            loss_en: true,
            label: 3,
            ..Default::default()
        });
        let mut class = None;
        for _ in 0..12 {
            class = g
                .step(&BkGroupIn {
                    lc: lc.clone(),
                    ..Default::default()
                })
                .class;
        }
        assert_eq!(class, Some((5 * 900, 9)));
        let w: Vec<i64> = vec![31, -32, 1, 0, -1, 7, -7, 12, -31, 5];
        let row = BkGroupIn {
            en: true,
            valid: true,
            weight: w.clone(),
            relu_mask: true,
            ..Default::default()
        };
        let tail = BkGroupIn {
            en: true,
            ..Default::default()
        };
        let mut got = None;
        for k in 0..8 {
            let o = g.step(if k == 0 { &row } else { &tail });
            got = got.or(o.grad);
        }
        assert_eq!(got, Some(tree_adder(&loss(&lc, 3, 0), &w, true)));
    }
}
