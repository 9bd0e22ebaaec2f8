//! CnnEngineCheck: a combinational verification top holding one of each combinational
//! sub-block of the CNN engine, each behind its own input ports, so that one stimulus checks
//! them on every backend in one build (emitted as `cnn_engine_check`).
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `avg_value`, `avg_round`, `avg_d`, `avg_m`, `avg_sh` | in | 18, 1, 9, 18, 5 | [`AvgDiv`]'s inputs |
//! | `avg` | out | 8 | its average |
//! | `mac_window`, `mac_kword`, `mac_kshift`, `mac_wbits`, `mac_taps` | in | 72, 72, 7, 4, 4 | [`TapMac`]'s inputs |
//! | `mac_dot` | out | 20 | its dot product |
//! | `out_valid`, `out_acc`, `out_oproc`, `out_oe`, `out_opix`, `out_wide`, `out_act`, `out_rshift`, `out_lshift`, `out_passes`, `out_gap`, `out_base`, `out_roll` | in | 1, 48, 7, 5, 20, 1, 2, 5, 4, 5, 16, 16, 4 | [`OutStage`]'s inputs |
//! | `out_we`, `out_be`, `out_gword`, `out_data` | out | 1, 4, 18, 32 | what it writes |
//! | `low_flags` | in | 64 | [`LowestSet`]'s bits |
//! | `low_index` | out | 7 | the lowest set bit, or 64 |
//!
//! Golden: `edgelearn_verif::golden::cnn_engine` (`avg_div`, `tap_mac`, `out_stage`,
//! `lowest_set`). Tests: `tests/cnn_engine_blocks.rs`.

use super::avg_div::AvgDiv;
use super::lowest_set::LowestSet;
use super::out_stage::OutStage;
use super::tap_mac::TapMac;
use rust_hdl::prelude::*;

/// The engine's combinational sub-blocks behind their own ports.
#[derive(Clone, Debug, Default, LogicBlock)]
pub struct CnnEngineCheck {
    /// AvgDiv: the sum.
    pub avg_value: Signal<In, Bits<18>>,
    /// AvgDiv: round.
    pub avg_round: Signal<In, Bit>,
    /// AvgDiv: the area.
    pub avg_d: Signal<In, Bits<9>>,
    /// AvgDiv: magic multiplier.
    pub avg_m: Signal<In, Bits<18>>,
    /// AvgDiv: shift.
    pub avg_sh: Signal<In, Bits<5>>,
    /// AvgDiv: the average.
    pub avg: Signal<Out, Bits<8>>,
    /// TapMac: the window.
    pub mac_window: Signal<In, Bits<72>>,
    /// TapMac: the kernel word.
    pub mac_kword: Signal<In, Bits<72>>,
    /// TapMac: the kernel's offset.
    pub mac_kshift: Signal<In, Bits<7>>,
    /// TapMac: weight bits.
    pub mac_wbits: Signal<In, Bits<4>>,
    /// TapMac: taps.
    pub mac_taps: Signal<In, Bits<4>>,
    /// TapMac: the dot product.
    pub mac_dot: Signal<Out, Bits<20>>,
    /// OutStage: a result.
    pub out_valid: Signal<In, Bit>,
    /// OutStage: the accumulator.
    pub out_acc: Signal<In, Bits<48>>,
    /// OutStage: output processor.
    pub out_oproc: Signal<In, Bits<7>>,
    /// OutStage: output pass.
    pub out_oe: Signal<In, Bits<5>>,
    /// OutStage: output pixel.
    pub out_opix: Signal<In, Bits<20>>,
    /// OutStage: raw 32-bit output.
    pub out_wide: Signal<In, Bit>,
    /// OutStage: activation.
    pub out_act: Signal<In, Bits<2>>,
    /// OutStage: right shift.
    pub out_rshift: Signal<In, Bits<5>>,
    /// OutStage: left shift.
    pub out_lshift: Signal<In, Bits<4>>,
    /// OutStage: output passes.
    pub out_passes: Signal<In, Bits<5>>,
    /// OutStage: `write_gap + 1`.
    pub out_gap: Signal<In, Bits<16>>,
    /// OutStage: first output word.
    pub out_base: Signal<In, Bits<16>>,
    /// OutStage: rolling output buffer.
    pub out_roll: Signal<In, Bits<4>>,
    /// OutStage: write.
    pub out_we: Signal<Out, Bit>,
    /// OutStage: byte lanes.
    pub out_be: Signal<Out, Bits<4>>,
    /// OutStage: memory and word.
    pub out_gword: Signal<Out, Bits<18>>,
    /// OutStage: the word.
    pub out_data: Signal<Out, Bits<32>>,
    /// LowestSet: the bits.
    pub low_flags: Signal<In, Bits<64>>,
    /// LowestSet: the index.
    pub low_index: Signal<Out, Bits<7>>,
    u_avg: AvgDiv,
    u_mac: TapMac,
    u_out: OutStage,
    u_low: LowestSet,
}

impl Logic for CnnEngineCheck {
    #[hdl_gen]
    fn update(&mut self) {
        self.u_avg.value.next = self.avg_value.val();
        self.u_avg.round.next = self.avg_round.val();
        self.u_avg.d.next = self.avg_d.val();
        self.u_avg.m.next = self.avg_m.val();
        self.u_avg.sh.next = self.avg_sh.val();
        self.avg.next = self.u_avg.avg.val();
        self.u_mac.window.next = self.mac_window.val();
        self.u_mac.kword.next = self.mac_kword.val();
        self.u_mac.kshift.next = self.mac_kshift.val();
        self.u_mac.wbits.next = self.mac_wbits.val();
        self.u_mac.taps.next = self.mac_taps.val();
        self.mac_dot.next = self.u_mac.dot.val();
        self.u_out.valid.next = self.out_valid.val();
        self.u_out.acc.next = self.out_acc.val();
        self.u_out.oproc.next = self.out_oproc.val();
        self.u_out.oe.next = self.out_oe.val();
        self.u_out.opix.next = self.out_opix.val();
        self.u_out.wide.next = self.out_wide.val();
        self.u_out.act.next = self.out_act.val();
        self.u_out.rshift.next = self.out_rshift.val();
        self.u_out.lshift.next = self.out_lshift.val();
        self.u_out.out_passes.next = self.out_passes.val();
        self.u_out.gap.next = self.out_gap.val();
        self.u_out.out_base.next = self.out_base.val();
        self.u_out.out_roll.next = self.out_roll.val();
        self.out_we.next = self.u_out.we.val();
        self.out_be.next = self.u_out.be.val();
        self.out_gword.next = self.u_out.gword.val();
        self.out_data.next = self.u_out.data.val();
        self.u_low.flags.next = self.low_flags.val();
        self.low_index.next = self.u_low.index.val();
    }
}

crate::dut_io! {
    impl[] CnnEngineCheck {
        clock: no,
        inputs: [
            avg_value, avg_round, avg_d, avg_m, avg_sh, mac_window, mac_kword, mac_kshift,
            mac_wbits, mac_taps, out_valid, out_acc, out_oproc, out_oe, out_opix, out_wide,
            out_act, out_rshift, out_lshift, out_passes, out_gap, out_base, out_roll, low_flags,
        ],
        outputs: [avg, mac_dot, out_we, out_be, out_gword, out_data, low_index],
        notes: [
            avg_value: (true, 1), avg: (true, 1), mac_window: (true, 9), mac_dot: (true, 1),
            out_acc: (true, 1),
        ],
    }
}
