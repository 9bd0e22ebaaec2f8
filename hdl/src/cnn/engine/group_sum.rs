//! GroupSum: the adders over the processors (docs/cnn-engine-rtl.md, MAC: "two adder stages
//! sum groups of 16 processors and the groups"), the sum over the layer's input channels.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `qsum` | in | Q x 22 | each quad's sum of its four processors (two's complement, M2) |
//! | `active` | in | 16 | quads the layer uses, bit q for quad q (the others count 0: an unused quad's sums are stale) |
//! | `total` | out | 26 | the sum over all quads (two's complement, M3) |
//!
//! Each group of QPG quads (16 processors; all of them when P < 16) is summed and
//! registered at the end of M2; `total` adds the G group sums combinationally in M3. The
//! widths are exact: 64 processors of 9 products of 2^14 stay below 2^24.
//! Parameters: Q = G x QPG quads. Golden: `edgelearn_verif::golden::cnn_engine::GroupSums`,
//! and the engine's bench. Tests: `tests/cnn_engine_blocks.rs` ([`GroupSumBench`], the
//! 64-processor engine's adders, registered as `cnn_group_sum`), `tests/cnn_rtl.rs`.

use crate::arith::sext::SignExtend;
use rust_hdl::prelude::*;

/// Group adders and their total.
#[derive(Clone, Debug, LogicBlock)]
pub struct GroupSum<const Q: usize, const G: usize, const QPG: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Each quad's sum.
    pub qsum: [Signal<In, Bits<22>>; Q],
    /// Quads in use.
    pub active: Signal<In, Bits<16>>,
    /// The total.
    pub total: Signal<Out, Bits<26>>,
    gsum: [DFF<Bits<26>>; G],
    ext: [SignExtend<22, 26>; Q],
    masked: [Signal<Local, Bits<26>>; Q],
    part: [Signal<Local, Bits<26>>; G],
    sum: Signal<Local, Bits<26>>,
}

impl<const Q: usize, const G: usize, const QPG: usize> Default for GroupSum<Q, G, QPG> {
    fn default() -> Self {
        assert!(
            (1..=16).contains(&Q) && Q == G * QPG,
            "GroupSum<{Q}, {G}, {QPG}>: need Q = G x QPG quads"
        );
        Self {
            clock: Default::default(),
            qsum: array_init::array_init(|_| Default::default()),
            active: Default::default(),
            total: Default::default(),
            gsum: array_init::array_init(|_| Default::default()),
            ext: array_init::array_init(|_| Default::default()),
            masked: array_init::array_init(|_| Default::default()),
            part: array_init::array_init(|_| Default::default()),
            sum: Default::default(),
        }
    }
}

impl<const Q: usize, const G: usize, const QPG: usize> Logic for GroupSum<Q, G, QPG> {
    #[hdl_gen]
    fn update(&mut self) {
        for q in 0..Q {
            self.ext[q].data_in.next = self.qsum[q].val();
            self.masked[q].next = 0.into();
            if self.active.val().get_bit(q) {
                self.masked[q].next = self.ext[q].data_out.val();
            }
        }
        self.sum.next = 0.into();
        for n in QPG..(QPG + 1) {
            for g in 0..G {
                self.gsum[g].clock.next = self.clock.val();
                self.part[g].next = 0.into();
                for k in 0..QPG {
                    self.part[g].next = self.part[g].val() + self.masked[g * n + k].val();
                }
                self.gsum[g].d.next = self.part[g].val();
                self.sum.next = self.sum.val() + self.gsum[g].q.val();
            }
        }
        self.total.next = self.sum.val();
    }
}

/// Quads of the 64-processor engine's [`GroupSum`], the one on the bench.
pub const BENCH_QUADS: usize = 16;

/// The 64-processor engine's adders (`GroupSum<16, 4, 4>`) with the quads' sums on one port,
/// for the block bench (a port list holds no arrays).
///
/// | port | dir | width | meaning |
/// |---|---|---|---|
/// | `clock` | in | 1 | rising-edge clock |
/// | `qsums` | in | 16 x 22 | quad q's sum in bits `22q + 21 : 22q` (two's complement) |
/// | `active` | in | 16 | quads in use |
/// | `total` | out | 26 | the sum over the used quads, one edge after `qsums` |
#[derive(Clone, Debug, Default, LogicBlock)]
pub struct GroupSumBench {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// The quads' sums, packed.
    pub qsums: Signal<In, Bits<352>>,
    /// Quads in use.
    pub active: Signal<In, Bits<16>>,
    /// The total.
    pub total: Signal<Out, Bits<26>>,
    sums: GroupSum<16, 4, 4>,
}

impl Logic for GroupSumBench {
    #[hdl_gen]
    fn update(&mut self) {
        self.sums.clock.next = self.clock.val();
        self.sums.active.next = self.active.val();
        for q in 0..BENCH_QUADS {
            self.sums.qsum[q].next = self.qsums.val().get_bits::<22>(22 * q);
        }
        self.total.next = self.sums.total.val();
    }
}

crate::dut_io! {
    impl[] GroupSumBench {
        clock: yes,
        inputs: [qsums, active],
        outputs: [total],
        notes: [qsums: (true, 16), total: (true, 1)],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_sum_is_synthesizable() {
        crate::synth_check::assert_synthesizable("group_sum", GroupSum::<8, 2, 4>::default());
    }
}
