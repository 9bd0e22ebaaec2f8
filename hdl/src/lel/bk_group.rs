//! BkGroup: the FC core's loss, LC backward pass and classification behind their simulation
//! gate (lel-platform.md §4.2; thesis §4.1.3, §4.1.5, §4.1.11): the eq 4.1 loss of the
//! local classifier's result in LS_LOSS, the tree adder that takes each LC row's errors
//! back through the LC weights in LS_BK, the classification of each result, and the
//! [`SimGate`] that lets the in-process Verilator model skip them in the other phases
//! (docs/decisions.md D-SIM-GATE).
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous, active high: pipelines clear, the classification idles |
//! | `label` | in | 4 | the image's label |
//! | `lc` | in | 23C (230) | the local classifier's sums, Q12; changes only with `lc_valid` (or reset) |
//! | `lc_valid` | in | 1 | `lc` was just written: classify it |
//! | `alpha_e` | in | 3 | the error scale |
//! | `loss_en` | in | 1 | the state is LS_LOSS: the loss takes `lc` |
//! | `en` | in | 1 | the state is LS_BK: rows go through the tree adder |
//! | `valid` | in | 1 | an LC row |
//! | `weight` | in | 6C (60) | its C int6 LC weights |
//! | `relu_mask` | in | 1 | its ReLU mask |
//! | `grad` | out | 8 | the row's error (int8), with `grad_valid` |
//! | `grad_valid` | out | 1 | `grad` holds a row's result (in LS_BK) |
//! | `class_num` | out | 4 | the class of the last `lc` (its first maximum) |
//! | `classify_done` | out | 1 | `class_num` valid (held until the next `lc_valid`) |
//!
//! Golden: `edgelearn_verif::golden::bk_group`. Tests: `tests/bk_group.rs`.

use super::classification::Classification;
use super::loss::Loss;
use super::tree_adder::TreeAdder;
use crate::sim_gate::SimGate;
use rust_hdl::prelude::*;

/// The thesis FC core's group: 10 classes.
pub type LelBkGroup = BkGroup<10, 60, 80, 230>;

/// Loss, backward pass and classification of C classes (`BW = 6C`, `EW = 8C`, `CW = 23C`).
#[derive(Clone, Debug, LogicBlock)]
pub struct BkGroup<const C: usize, const BW: usize, const EW: usize, const CW: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, Bit>,
    /// The image's label.
    pub label: Signal<In, Bits<4>>,
    /// The local classifier's sums.
    pub lc: Signal<In, Bits<CW>>,
    /// `lc` was just written.
    pub lc_valid: Signal<In, Bit>,
    /// The error scale.
    pub alpha_e: Signal<In, Bits<3>>,
    /// LS_LOSS.
    pub loss_en: Signal<In, Bit>,
    /// LS_BK.
    pub en: Signal<In, Bit>,
    /// An LC row.
    pub valid: Signal<In, Bit>,
    /// Its LC weights.
    pub weight: Signal<In, Bits<BW>>,
    /// Its ReLU mask.
    pub relu_mask: Signal<In, Bit>,
    /// The row's error.
    pub grad: Signal<Out, Bits<8>>,
    /// `grad` holds a row's result.
    pub grad_valid: Signal<Out, Bit>,
    /// The class.
    pub class_num: Signal<Out, Bits<4>>,
    /// `class_num` valid.
    pub classify_done: Signal<Out, Bit>,
    loss: Loss<C, CW, EW>,
    tadd: TreeAdder<C, EW, BW>,
    classify: Classification<C, 23, CW>,
    gate: SimGate<BW, 13, 1, 1>,
}

impl<const C: usize, const BW: usize, const EW: usize, const CW: usize> Default
    for BkGroup<C, BW, EW, CW>
{
    fn default() -> Self {
        assert!(
            (2..=16).contains(&C) && BW == 6 * C && EW == 8 * C && CW == 23 * C,
            "BkGroup<{C}, {BW}, {EW}, {CW}>: need 2 <= C <= 16, BW = 6C, EW = 8C, CW = 23C"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            label: Default::default(),
            lc: Default::default(),
            lc_valid: Default::default(),
            alpha_e: Default::default(),
            loss_en: Default::default(),
            en: Default::default(),
            valid: Default::default(),
            weight: Default::default(),
            relu_mask: Default::default(),
            grad: Default::default(),
            grad_valid: Default::default(),
            class_num: Default::default(),
            classify_done: Default::default(),
            loss: Default::default(),
            tadd: Default::default(),
            classify: Default::default(),
            gate: SimGate::new(&["loss", "tadd", "classify"]).unwatched(&[
                (
                    "loss$data_in",
                    "the LC results `lc` change only with `lc_valid` (or reset), both watched",
                ),
                ("classify$lc_out", "the same LC results"),
            ]),
        }
    }
}

impl<const C: usize, const BW: usize, const EW: usize, const CW: usize> Logic
    for BkGroup<C, BW, EW, CW>
{
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, loss, tadd, classify, gate);
        self.loss.reset.next = self.reset.val();
        self.tadd.reset.next = self.reset.val();
        self.classify.reset.next = self.reset.val();
        self.loss.true_label.next = self.label.val();
        self.loss.data_in.next = self.lc.val();
        self.loss.alpha_e.next = self.alpha_e.val();
        self.loss.instr.next = self.loss_en.val();
        self.tadd.error.next = self.loss.data_out.val();
        self.tadd.weight.next = self.weight.val();
        self.tadd.relu_mask.next = self.relu_mask.val();
        self.tadd.instr.next = self.en.val();
        self.tadd.valid_in.next = self.valid.val() & self.en.val();
        self.classify.lc_out.next = self.lc.val();
        self.classify.en.next = self.lc_valid.val();
        self.grad.next = self.tadd.data_out.val();
        self.grad_valid.next = self.tadd.valid_out.val() & self.en.val();
        self.class_num.next = self.classify.class_num.val();
        self.classify_done.next = self.classify.classify_done.val();
        // The gate (D-SIM-GATE): the tree adder's error is the loss's output, inside the
        // group; the classification runs ten cycles after `lc_valid`, well inside the hold.
        self.gate.busy.next =
            self.loss.instr.val() | (self.tadd.instr.val() & self.tadd.valid_in.val());
        self.gate.w0.next = self.tadd.weight.val();
        self.gate.w1.next = bit_cast::<13, 1>(self.tadd.relu_mask.val().into())
            | (bit_cast::<13, 1>(self.tadd.instr.val().into()) << 1)
            | (bit_cast::<13, 1>(self.tadd.valid_in.val().into()) << 2)
            | (bit_cast::<13, 1>(self.reset.val().into()) << 3)
            | (bit_cast::<13, 4>(self.loss.true_label.val()) << 4)
            | (bit_cast::<13, 3>(self.loss.alpha_e.val()) << 8)
            | (bit_cast::<13, 1>(self.loss.instr.val().into()) << 11)
            | (bit_cast::<13, 1>(self.lc_valid.val().into()) << 12);
        self.gate.w2.next = false.into();
        self.gate.w3.next = false.into();
    }
}

crate::dut_io! {
    impl[const C: usize, const BW: usize, const EW: usize, const CW: usize] BkGroup<C, BW, EW, CW> {
        clock: yes,
        inputs: [reset, label, lc, lc_valid, alpha_e, loss_en, en, valid, weight, relu_mask],
        outputs: [grad, grad_valid, class_num, classify_done],
        notes: [lc: (true, C), weight: (true, C), grad: (true, 1)],
    }
}
