//! AccMem: the accumulators, one per output channel, and the bias memory (docs/cnn-engine-rtl.md
//! "Organisation", MAC): the sum over the processors is added to the channel's accumulator,
//! the first iteration of a pixel adding `bias << 7` instead, so passes and flatten chunks
//! sum up.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `m2_oc` | in | 11 | M2: the channel (accumulator and bias reads) |
//! | `bias_start` | in | 12 | the layer's first bias byte |
//! | `bias_en` | in | 1 | the layer has a bias |
//! | `busy` | in | 1 | the engine runs (else the bias memory is read at `host_addr`) |
//! | `host_we`, `host_addr`, `host_wdata` | in | 1, 11, 8 | a bias byte from the host |
//! | `m3_valid`, `m3_first`, `m3_oc` | in | 1, 1, 11 | M3: update channel `m3_oc` (first iteration: from the bias) |
//! | `total` | in | 26 | M3: the sum over the processors |
//! | `m4_acc` | out | 48 | M4: the channel's new accumulator value |
//! | `bias_rdata` | out | 8 | the bias byte read (host reads while idle, one edge after the address) |
//!
//! `acc' = (first ? sext(bias) << 7 : acc) + sext(total)`, 48 bits (the accumulator memory
//! is 1024 x 48, read at M2 and written at M3, read-first); `m4_acc` is registered. The bias
//! memory holds `bias_bytes` rounded up to a power of two; bias addresses wrap around it.
//! Golden: `edgelearn_verif::golden::cnn_engine::Accumulators`, and the engine's bench.
//! Tests: `tests/cnn_engine_blocks.rs` (registered as `cnn_acc_mem`, 512 bias bytes),
//! `tests/cnn_rtl.rs`.

use crate::design::{join_path, HasMemories, MemoryAccess};
use crate::mem::sdp_ram::SdpRam;
use rust_hdl::prelude::*;

/// Output channels the accumulator memory holds.
pub const ACC_WORDS: usize = 1024;

/// Accumulators and biases.
#[derive(Clone, Debug, LogicBlock)]
pub struct AccMem {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// M2: channel.
    pub m2_oc: Signal<In, Bits<11>>,
    /// First bias byte of the layer.
    pub bias_start: Signal<In, Bits<12>>,
    /// The layer has a bias.
    pub bias_en: Signal<In, Bit>,
    /// The engine runs.
    pub busy: Signal<In, Bit>,
    /// Host bias write strobe.
    pub host_we: Signal<In, Bit>,
    /// Host bias address.
    pub host_addr: Signal<In, Bits<11>>,
    /// Host bias byte.
    pub host_wdata: Signal<In, Bits<8>>,
    /// M3: update.
    pub m3_valid: Signal<In, Bit>,
    /// M3: first iteration.
    pub m3_first: Signal<In, Bit>,
    /// M3: channel.
    pub m3_oc: Signal<In, Bits<11>>,
    /// M3: the sum over the processors.
    pub total: Signal<In, Bits<26>>,
    /// M4: the new accumulator value.
    pub m4_acc: Signal<Out, Bits<48>>,
    /// The bias byte read.
    pub bias_rdata: Signal<Out, Bits<8>>,
    bias: SdpRam<11, 8>,
    acc: SdpRam<10, 48>,
    acc_q: DFF<Bits<48>>,
    bias_addr: Signal<Local, Bits<12>>,
    bias_acc: Signal<Local, Bits<48>>,
    total48: Signal<Local, Bits<48>>,
    acc_new: Signal<Local, Bits<48>>,
    mask: Constant<Bits<11>>,
    sign8: Constant<Bits<8>>,
    ext48_8: Constant<Bits<48>>,
    sign26: Constant<Bits<26>>,
    ext48_26: Constant<Bits<48>>,
}

impl AccMem {
    /// The accumulators and a bias memory of `bias_bytes` bytes.
    pub fn new(bias_bytes: usize) -> Self {
        let depth = bias_bytes.next_power_of_two();
        assert!(
            (1..=2048).contains(&depth),
            "AccMem: {bias_bytes} bias bytes; at most 2048"
        );
        Self {
            clock: Default::default(),
            m2_oc: Default::default(),
            bias_start: Default::default(),
            bias_en: Default::default(),
            busy: Default::default(),
            host_we: Default::default(),
            host_addr: Default::default(),
            host_wdata: Default::default(),
            m3_valid: Default::default(),
            m3_first: Default::default(),
            m3_oc: Default::default(),
            total: Default::default(),
            m4_acc: Default::default(),
            bias_rdata: Default::default(),
            bias: SdpRam::new(depth),
            acc: SdpRam::new(ACC_WORDS),
            acc_q: Default::default(),
            bias_addr: Default::default(),
            bias_acc: Default::default(),
            total48: Default::default(),
            acc_new: Default::default(),
            mask: Constant::new(((depth - 1) as u64).into()),
            sign8: Constant::new(0x80u64.into()),
            ext48_8: Constant::new((u64::MAX << 8 & ((1u64 << 48) - 1)).into()),
            sign26: Constant::new((1u64 << 25).into()),
            ext48_26: Constant::new((u64::MAX << 26 & ((1u64 << 48) - 1)).into()),
        }
    }
}

impl Logic for AccMem {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, acc_q);
        // Bias: read at M2 (the host's address while idle), used at M3.
        self.bias_addr.next = self.bias_start.val() + bit_cast::<12, 11>(self.m2_oc.val());
        self.bias.clock.next = self.clock.val();
        self.bias.write_enable.next = self.host_we.val();
        self.bias.write_address.next = self.host_addr.val() & self.mask.val();
        self.bias.write_data.next = self.host_wdata.val();
        if self.busy.val() {
            self.bias.read_address.next = self.bias_addr.val().get_bits::<11>(0) & self.mask.val();
        } else {
            self.bias.read_address.next = self.host_addr.val() & self.mask.val();
        }
        self.bias_rdata.next = self.bias.read_data.val();
        self.bias_acc.next = 0.into();
        if self.bias_en.val() {
            self.bias_acc.next = bit_cast::<48, 8>(self.bias.read_data.val()) << 7;
            if (self.bias.read_data.val() & self.sign8.val()).any() {
                self.bias_acc.next =
                    (bit_cast::<48, 8>(self.bias.read_data.val()) | self.ext48_8.val()) << 7;
            }
        }
        // Accumulators: read at M2, written at M3.
        self.acc.clock.next = self.clock.val();
        self.acc.read_address.next = self.m2_oc.val().get_bits::<10>(0);
        self.acc.write_enable.next = self.m3_valid.val();
        self.acc.write_address.next = self.m3_oc.val().get_bits::<10>(0);
        self.total48.next = bit_cast::<48, 26>(self.total.val());
        if (self.total.val() & self.sign26.val()).any() {
            self.total48.next = bit_cast::<48, 26>(self.total.val()) | self.ext48_26.val();
        }
        if self.m3_first.val() {
            self.acc_new.next = self.bias_acc.val() + self.total48.val();
        } else {
            self.acc_new.next = self.acc.read_data.val() + self.total48.val();
        }
        self.acc.write_data.next = self.acc_new.val();
        self.acc_q.d.next = self.acc_new.val();
        self.m4_acc.next = self.acc_q.q.val();
    }
}

impl HasMemories for AccMem {
    fn visit_memories(&mut self, path: &str, f: &mut dyn FnMut(String, &mut dyn MemoryAccess)) {
        self.bias.visit_memories(&join_path(path, "bias"), f);
        self.acc.visit_memories(&join_path(path, "acc"), f);
    }
}

crate::dut_io! {
    impl[] AccMem {
        clock: yes,
        inputs: [
            m2_oc, bias_start, bias_en, busy, host_we, host_addr, host_wdata, m3_valid,
            m3_first, m3_oc, total
        ],
        outputs: [m4_acc, bias_rdata],
        notes: [host_wdata: (true, 1), total: (true, 1), m4_acc: (true, 1), bias_rdata: (true, 1)],
        memories: [bias, acc],
    }
}
