//! CacheX4: four simple dual-port caches, one per parallel FC sub-layer, selected by
//! `p_sel` (thesis §4.1.8, T:1089-1113; spec lel-platform.md §3.8, §7-31).
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `reset` | in | 1 | synchronous, active high: clears the read pipeline and `data_out1` (not the contents) |
//! | `p_sel` | in | 2 | which of the four caches is written and read |
//! | `addr0` | in | A | write address |
//! | `data_in0` | in | W | write data |
//! | `wr_en` | in | 1 | write `data_in0` at `addr0` of cache `p_sel` |
//! | `addr1` | in | A | read address |
//! | `data_out1` | out | W | cache `p_sel`'s word at `addr1`, two cycles later |
//!
//! Read latency 2: the block-RAM read register, then the output register the thesis adds
//! for clock-to-out timing (T:1102). The address and `p_sel` driven right after edge k give
//! the data right after edge k+2. A read of a word written at the same edge returns the old
//! word. Contents start at zero, so no X is ever read; addresses at or beyond the depth
//! read 0 and are not written. Each cache is an [`SdpRam`] (Xilinx block-RAM template).
//! Scenarios (docs/decisions.md D-CACHE): activations (150 x 32), FC0 weights (18,000 x 24),
//! gradients (120 x 8).
//! Golden: `edgelearn_verif::golden::cache_x4`. Tests: `tests/cache_x4.rs`.

use crate::mem::sdp_ram::SdpRam;
use rust_hdl::prelude::*;

/// Depths of the three cache X4 scenarios (docs/decisions.md D-CACHE): activations per
/// sub-layer (150 words of 4 int8).
pub const CACHE_ACT_DEPTH: usize = 150;
/// FC0 weight words per sub-layer: 120 outputs x 600 inputs / 4 lanes.
pub const CACHE_WEIGHT_DEPTH: usize = 18_000;
/// Gradient entries per sub-layer.
pub const CACHE_GRAD_DEPTH: usize = 120;

/// FC0 activation cache: 4 sub-layers x 150 words of 4 int8 (600 activations each).
pub type LelCacheX4Act = CacheX4<8, 32>;
/// FC0 weight cache: 4 sub-layers x 18,000 words of 4 int6 (120 x 600 weights each).
pub type LelCacheX4Weight = CacheX4<15, 24>;
/// Gradient cache: 4 sub-layers x 120 int8 errors.
pub type LelCacheX4Grad = CacheX4<7, 8>;

/// Four caches of `depth` words of W bits with A-bit addresses.
#[derive(Clone, Debug, LogicBlock)]
pub struct CacheX4<const A: usize, const W: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous active-high reset.
    pub reset: Signal<In, Bit>,
    /// Cache select.
    pub p_sel: Signal<In, Bits<2>>,
    /// Write address.
    pub addr0: Signal<In, Bits<A>>,
    /// Write data.
    pub data_in0: Signal<In, Bits<W>>,
    /// Write enable.
    pub wr_en: Signal<In, Bit>,
    /// Read address.
    pub addr1: Signal<In, Bits<A>>,
    /// Read data (latency 2).
    pub data_out1: Signal<Out, Bits<W>>,
    mem: [SdpRam<A, W>; 4],
    sel_s1: DFF<Bits<2>>,
    in_range_s1: DFF<Bit>,
    out_q: DFF<Bits<W>>,
    id: [Constant<Bits<2>>; 4],
    depth: Constant<Bits<A>>,
    _depth: usize,
}

impl<const A: usize, const W: usize> CacheX4<A, W> {
    /// Four caches of `depth` words each (`1 <= depth <= 2^A`).
    pub fn new(depth: usize) -> Self {
        assert!(
            depth >= 1 && A <= 24 && depth <= (1usize << A) && W <= 64,
            "CacheX4<{A}, {W}>: depth {depth} must be in 1..=2^{A}, W <= 64"
        );
        // `depth` as an A-bit constant: 2^A itself does not fit, and then every address is in range.
        let depth_const = if depth == 1usize << A {
            0
        } else {
            depth as u64
        };
        Self {
            clock: Default::default(),
            reset: Default::default(),
            p_sel: Default::default(),
            addr0: Default::default(),
            data_in0: Default::default(),
            wr_en: Default::default(),
            addr1: Default::default(),
            data_out1: Default::default(),
            mem: array_init::array_init(|_| SdpRam::new(depth)),
            sel_s1: Default::default(),
            in_range_s1: Default::default(),
            out_q: Default::default(),
            id: array_init::array_init(|k| Constant::new(Bits::<2>::from(k as u64))),
            depth: Constant::new(Bits::<A>::from(depth_const)),
            _depth: depth,
        }
    }

    /// Words per cache.
    pub fn depth(&self) -> usize {
        self._depth
    }
}

impl<const A: usize, const W: usize> Logic for CacheX4<A, W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, sel_s1, in_range_s1, out_q);
        for k in 0..4 {
            self.mem[k].clock.next = self.clock.val();
            self.mem[k].write_address.next = self.addr0.val();
            self.mem[k].write_data.next = self.data_in0.val();
            self.mem[k].write_enable.next =
                self.wr_en.val() & (self.p_sel.val() == self.id[k].val());
            self.mem[k].read_address.next = self.addr1.val();
        }
        self.sel_s1.d.next = self.p_sel.val();
        self.in_range_s1.d.next = (self.addr1.val() < self.depth.val()) | !self.depth.val().any();
        self.out_q.d.next = 0.into();
        if self.in_range_s1.q.val() {
            for k in 0..4 {
                if self.sel_s1.q.val() == self.id[k].val() {
                    self.out_q.d.next = self.mem[k].read_data.val();
                }
            }
        }
        if self.reset.val() {
            self.sel_s1.d.next = 0.into();
            self.in_range_s1.d.next = false;
            self.out_q.d.next = 0.into();
        }
        self.data_out1.next = self.out_q.q.val();
    }
}

impl<const A: usize, const W: usize> crate::design::HasMemories for CacheX4<A, W> {
    /// Cache k is `PATH.mem$k.mem`.
    fn visit_memories(
        &mut self,
        path: &str,
        f: &mut dyn FnMut(String, &mut dyn crate::design::MemoryAccess),
    ) {
        self.mem
            .visit_memories(&crate::design::join_path(path, "mem"), f);
    }
}

crate::dut_io! {
    impl[const A: usize, const W: usize] CacheX4<A, W> {
        clock: yes,
        inputs: [reset, p_sel, addr0, data_in0, wr_en, addr1],
        outputs: [data_out1],
        notes: [],
        memories: [mem],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_x4_is_synthesizable() {
        crate::synth_check::assert_synthesizable("cache_x4", LelCacheX4Act::new(150));
    }
}
