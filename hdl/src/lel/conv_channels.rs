//! ConvChannels: the conv core's walk over its output channels (thesis §4.2.2, T:1289;
//! lel-platform.md §4.3, §7-2): output channel `c` convolves input channel `c / (CO / CI)`
//! with its own fixed 3x3 kernel, baked in when the core is built.
//!
//! | port | dir | width | meaning |
//! |---|---|---|---|
//! | `clock` | in | 1 | rising-edge clock |
//! | `first` | in | 1 | back to output channel 0 (input channel 0) at this edge |
//! | `advance` | in | 1 | on to the next output channel at this edge |
//! | `in_ch` | out | 2 | the input channel the current output channel reads |
//! | `kernel` | out | 60 | its kernel, tap `3 dy + dx` as int6 in bits `[6t+5:6t]` (registered: the channel of the edge before) |
//! | `last` | out | 1 | the current output channel is the last |
//!
//! The kernel is chosen from the channel the walk holds and registered, so it follows the
//! channel one edge later: neither the CO-way choice sits in front of the tree adder's
//! multipliers nor the FSM's `advance` in front of the choice (both were ECP5 critical
//! paths; the conv core's first window comes cycles after a channel changes, D-CONV-PARALLEL).
//! No reset: `first` starts every image.
//! Golden: `edgelearn_verif::golden::conv_channels`. Tests: `tests/conv_channels.rs`.

use rust_hdl::prelude::*;

/// The output-channel walk of a core with `CO` output channels.
#[derive(Clone, Debug, LogicBlock)]
pub struct ConvChannels<const CO: usize> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Back to channel 0.
    pub first: Signal<In, Bit>,
    /// On to the next channel.
    pub advance: Signal<In, Bit>,
    /// The input channel read.
    pub in_ch: Signal<Out, Bits<2>>,
    /// The channel's kernel.
    pub kernel: Signal<Out, Bits<60>>,
    /// The channel is the last.
    pub last: Signal<Out, Bit>,
    ch: DFF<Bits<10>>,
    src: DFF<Bits<2>>,
    grp: DFF<Bits<10>>,
    weights: DFF<Bits<60>>,
    kernels: [Constant<Bits<60>>; CO],
    ch_id: [Constant<Bits<10>>; CO],
    c_group_last: Constant<Bits<10>>,
    c_ch_last: Constant<Bits<10>>,
    one2: Constant<Bits<2>>,
    one10: Constant<Bits<10>>,
}

impl<const CO: usize> ConvChannels<CO> {
    /// The walk for `ci` input channels with `kernels` (`[c][dy][dx]`, int6). Panics unless
    /// `ci` divides `CO` and there are `CO x 9` int6 weights (the core checks its shape
    /// first).
    pub fn new(ci: usize, kernels: &[i32]) -> Self {
        assert!(
            (1..=4).contains(&ci) && CO.is_multiple_of(ci) && (1..=1024).contains(&CO),
            "ConvChannels<{CO}>: {ci} input channels"
        );
        assert_eq!(kernels.len(), CO * 9, "ConvChannels: CO x 9 kernel weights");
        assert!(
            kernels.iter().all(|k| (-32..32).contains(k)),
            "ConvChannels: kernel weights are int6"
        );
        let word = |c: usize| -> u64 {
            (0..9).fold(0u64, |acc, t| {
                acc | (((kernels[c * 9 + t] as i64 as u64) & 63) << (6 * t))
            })
        };
        Self {
            clock: Default::default(),
            first: Default::default(),
            advance: Default::default(),
            in_ch: Default::default(),
            kernel: Default::default(),
            last: Default::default(),
            ch: Default::default(),
            src: Default::default(),
            grp: Default::default(),
            weights: Default::default(),
            kernels: array_init::array_init(|c| Constant::new(Bits::<60>::from(word(c)))),
            ch_id: array_init::array_init(|c| Constant::new(Bits::<10>::from(c as u64))),
            c_group_last: Constant::new(Bits::<10>::from((CO / ci - 1) as u64)),
            c_ch_last: Constant::new(Bits::<10>::from((CO - 1) as u64)),
            one2: Constant::new(Bits::<2>::from(1u64)),
            one10: Constant::new(Bits::<10>::from(1u64)),
        }
    }
}

impl<const CO: usize> Logic for ConvChannels<CO> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, ch, src, grp, weights);
        if self.advance.val() {
            // CO / CI output channels read each input channel.
            self.ch.d.next = self.ch.q.val() + self.one10.val();
            self.grp.d.next = self.grp.q.val() + self.one10.val();
            if self.grp.q.val() == self.c_group_last.val() {
                self.grp.d.next = 0.into();
                self.src.d.next = self.src.q.val() + self.one2.val();
            }
        }
        if self.first.val() {
            self.ch.d.next = 0.into();
            self.src.d.next = 0.into();
            self.grp.d.next = 0.into();
        }
        self.weights.d.next = self.kernels[0].val();
        for c in 0..CO {
            if self.ch.q.val() == self.ch_id[c].val() {
                self.weights.d.next = self.kernels[c].val();
            }
        }
        self.in_ch.next = self.src.q.val();
        self.kernel.next = self.weights.q.val();
        self.last.next = self.ch.q.val() == self.c_ch_last.val();
    }
}

crate::dut_io! {
    impl[const CO: usize] ConvChannels<CO> {
        clock: yes,
        inputs: [first, advance],
        outputs: [in_ch, kernel, last],
        notes: [kernel: (true, 10)],
    }
}
