//! The conv core's output-channel walk (hdl `lel::conv_channels::ConvChannels`): output
//! channel `c` reads input channel `c / (CO / CI)` with its own fixed kernel. Cycle model in
//! the trace convention (docs/decisions.md D-CYCLE): [`ConvChannels::step`] is the edge,
//! [`ConvChannels::outputs`] what is sampled after it.

/// One cycle's inputs.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConvChannelsIn {
    /// Back to channel 0.
    pub first: bool,
    /// On to the next channel.
    pub advance: bool,
}

/// What is sampled after an edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConvChannelsOut {
    /// The input channel read.
    pub in_ch: u8,
    /// The channel's kernel word (int6 tap `t` at bits `6t`).
    pub kernel: u64,
    /// The channel is the last.
    pub last: bool,
}

/// The walk: the output channel, the input channel, the position in its group, the
/// registered kernel word.
#[derive(Clone, Debug)]
pub struct ConvChannels {
    co: usize,
    group: usize,
    words: Vec<u64>,
    ch: usize,
    input: usize,
    grp: usize,
    kernel: u64,
}

/// The kernel word of output channel `c` of `kernels` (`[c][dy][dx]`, int6).
pub fn kernel_word(kernels: &[i32], c: usize) -> u64 {
    (0..9).fold(0, |acc, t| {
        acc | ((kernels[c * 9 + t] as u64) & 63) << (6 * t)
    })
}

/// The input channel output channel `c` of `co` reads with `ci` input channels.
pub fn input_channel(c: usize, co: usize, ci: usize) -> usize {
    c / (co / ci)
}

impl ConvChannels {
    /// The walk over `kernels.len() / 9` output channels of `ci` input channels (power-up:
    /// everything 0).
    pub fn new(ci: usize, kernels: &[i32]) -> Self {
        let co = kernels.len() / 9;
        ConvChannels {
            co,
            group: co / ci,
            words: (0..co).map(|c| kernel_word(kernels, c)).collect(),
            ch: 0,
            input: 0,
            grp: 0,
            kernel: 0,
        }
    }

    /// The clock edge with `i` applied (the counters wrap at their widths: 10, 2, 10 bits).
    pub fn step(&mut self, i: &ConvChannelsIn) {
        // The kernel register follows the channel held before the edge (one edge behind).
        let held = self.ch;
        if i.advance {
            self.ch = (self.ch + 1) & 1023;
            self.grp = (self.grp + 1) & 1023;
            if self.grp == self.group {
                self.grp = 0;
                self.input = (self.input + 1) & 3;
            }
        }
        if i.first {
            (self.ch, self.input, self.grp) = (0, 0, 0);
        }
        // Past the last channel the choice falls back to channel 0's kernel.
        self.kernel = self.words.get(held).copied().unwrap_or(self.words[0]);
    }

    /// The outputs of the state.
    pub fn outputs(&self) -> ConvChannelsOut {
        ConvChannelsOut {
            in_ch: self.input as u8,
            kernel: self.kernel,
            last: self.ch == self.co - 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_walk_reads_input_channel_c_over_the_group_with_kernel_c() {
        let kernels: Vec<i32> = (0..24 * 9).map(|k| (k % 64) - 32).collect();
        let mut m = ConvChannels::new(3, &kernels);
        m.step(&ConvChannelsIn {
            first: true,
            advance: false,
        });
        for c in 0..24 {
            let o = m.outputs();
            assert_eq!(o.in_ch as usize, input_channel(c, 24, 3), "channel {c}");
            assert_eq!(o.last, c == 23);
            // The kernel one edge later.
            m.step(&ConvChannelsIn::default());
            assert_eq!(m.outputs().kernel, kernel_word(&kernels, c), "channel {c}");
            m.step(&ConvChannelsIn {
                first: false,
                advance: true,
            });
        }
        assert_eq!(
            kernel_word(&[-32, 31, -1, 0, 0, 0, 0, 0, 1], 0),
            0o01_00_00_00_00_00_77_37_40
        );
    }
}
