//! BurstCtl: the burst control shared by the matmul and the local-classifier forward path.
//! A burst is a run of consecutive cycles with `take` high; rows are registered for one
//! cycle before they are accumulated, and `done` is high for the one cycle in which the
//! burst's last row has just been accumulated.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous, active high |
//! | `take` | in | 1 | this cycle's row belongs to the burst (`instr & valid_in`) |
//! | `accumulate` | out | 1 | the registered row is valid: accumulate it at this edge |
//! | `done` | out | 1 | the accumulators hold a finished burst: take the results at this edge |
//!
//! Timing: a row taken before edge k is accumulated at edge k+1; `done` is high before
//! the edge that follows the burst's last accumulate.
//! Golden: `edgelearn_verif::golden::burst::BurstAccumulator`. Tests: `tests/matmul.rs`,
//! `tests/lc_forward.rs`.

use rust_hdl::prelude::*;

/// Burst tracking.
#[derive(Clone, Debug, Default, LogicBlock)]
pub struct BurstCtl {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous active-high reset.
    pub reset: Signal<In, Bit>,
    /// Row taken this cycle.
    pub take: Signal<In, Bit>,
    /// Accumulate the registered row.
    pub accumulate: Signal<Out, Bit>,
    /// The burst is complete in the accumulators.
    pub done: Signal<Out, Bit>,
    took_s1: DFF<Bit>,
    took_s2: DFF<Bit>,
}

impl Logic for BurstCtl {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, took_s1, took_s2);
        self.took_s1.d.next = self.take.val();
        self.took_s2.d.next = self.took_s1.q.val();
        if self.reset.val() {
            self.took_s1.d.next = false;
            self.took_s2.d.next = false;
        }
        self.accumulate.next = self.took_s1.q.val();
        self.done.next = self.took_s2.q.val() & !self.took_s1.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn burst_ctl_is_synthesizable() {
        crate::synth_check::assert_synthesizable("burst_ctl", BurstCtl::default());
    }
}
