//! VisitCycles: how long a core's last visit outside its IDLE state lasted, as the
//! platform reports it (the CONV_CYCLES, FC0_CYCLES and FC1_CYCLES registers;
//! docs/registers.md): cycles are counted while `busy`, and at the first idle cycle after a
//! visit the count becomes `last` and starts over.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous: the count and `last` 0 |
//! | `busy` | in | 1 | the core is outside its IDLE state this cycle |
//! | `last` | out | 32 | the cycles of the last finished visit |
//!
//! Golden: `edgelearn_verif::golden::visit_cycles`. Tests: `tests/visit_cycles.rs`.

use rust_hdl::prelude::*;

/// The length of a core's last visit.
#[derive(Clone, Debug, LogicBlock)]
pub struct VisitCycles {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, Bit>,
    /// The core is busy.
    pub busy: Signal<In, Bit>,
    /// The last visit's cycles.
    pub last: Signal<Out, Bits<32>>,
    count: DFF<Bits<32>>,
    held: DFF<Bits<32>>,
    one32: Constant<Bits<32>>,
}

impl Default for VisitCycles {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            busy: Default::default(),
            last: Default::default(),
            count: Default::default(),
            held: Default::default(),
            one32: Constant::new(1u64.into()),
        }
    }
}

impl Logic for VisitCycles {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, count, held);
        if self.busy.val() {
            self.count.d.next = self.count.q.val() + self.one32.val();
        } else if self.count.q.val().any() {
            self.held.d.next = self.count.q.val();
            self.count.d.next = 0.into();
        }
        if self.reset.val() {
            self.count.d.next = 0.into();
            self.held.d.next = 0.into();
        }
        self.last.next = self.held.q.val();
    }
}

crate::dut_io! {
    impl[] VisitCycles {
        clock: yes,
        inputs: [reset, busy],
        outputs: [last],
        notes: [],
    }
}
