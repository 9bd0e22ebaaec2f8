//! The MAX78000 ("AI85") CNN accelerator: the numbers that shape a network (spec §2).

/// Device limits and memory map. [`Device::max78000`] is the real part; `max_proc` may be
/// lowered (as ai8x's `--max-proc` does) to test multi-pass mapping with few processors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Device {
    /// Processors usable per pass (64).
    pub max_proc: usize,
    /// Processors per group (quadrant) (16).
    pub procs_per_group: usize,
    /// Processors sharing one data-memory instance (4).
    pub procs_per_instance: usize,
    /// Layers (32).
    pub max_layers: usize,
    /// Channels per layer (1024).
    pub max_channels: usize,
    /// Rows or columns of a layer input or output (1024).
    pub max_row_col: usize,
    /// Passes per layer (16).
    pub max_passes: usize,
    /// Bytes per data-memory instance (32 KiB).
    pub instance_bytes: usize,
    /// Address of data memory instance 0 of group 0 (0x5040_0000).
    pub data_base: u32,
    /// Address distance of the groups (0x40_0000).
    pub group_stride: u32,
    /// Address distance of the instances in a group (0x8000).
    pub instance_stride: u32,
    /// 72-bit kernel words per processor (768).
    pub kernel_words: usize,
    /// Bias bytes per group (512).
    pub bias_per_group: usize,
    /// Largest pool size and pool stride per dimension (16).
    pub max_pool: usize,
    /// ai8x `--overlap-data`: a layer's output may overlap its own input in data memory
    /// (the check that it does not is off; the model does not model the overwriting).
    pub overlap_data: bool,
}

impl Device {
    /// The MAX78000.
    pub fn max78000() -> Device {
        Device {
            max_proc: 64,
            procs_per_group: 16,
            procs_per_instance: 4,
            max_layers: 32,
            max_channels: 1024,
            max_row_col: 1024,
            max_passes: 16,
            instance_bytes: 32768,
            data_base: 0x5040_0000,
            group_stride: 0x40_0000,
            instance_stride: 0x8000,
            kernel_words: 768,
            bias_per_group: 512,
            max_pool: 16,
            overlap_data: false,
        }
    }

    /// The MAX78000 with only `n` processors per pass (ai8x `--max-proc N`, for tests).
    pub fn with_max_proc(n: usize) -> Device {
        let mut d = Device::max78000();
        d.max_proc = n.clamp(1, 64);
        d.procs_per_group = d.procs_per_group.min(d.max_proc);
        d
    }

    /// Number of passes and processors used per pass for `channels` channels.
    ///
    /// `passes = ceil(C / max_proc)`; per pass `ceil(C / passes)` processors, rounded up to a
    /// multiple of 4 when there is more than one pass (so that every pass starts on a memory
    /// instance boundary), never more than `max_proc`.
    pub fn passes(&self, channels: usize) -> (usize, usize) {
        let c = channels.max(1);
        let expand = c.div_ceil(self.max_proc);
        let mut thresh = c.div_ceil(expand);
        if c > self.max_proc {
            thresh = thresh.next_multiple_of(4).min(self.max_proc);
        }
        (expand, thresh)
    }

    /// Base address of the data-memory instance that holds processor `p`.
    pub fn instance_base(&self, p: usize) -> u32 {
        let g = (p / 16) as u32;
        let m = ((p % 16) / 4) as u32;
        self.data_base + g * self.group_stride + m * self.instance_stride
    }
}

/// The `k`-th set bit (ascending) of `mask`, if any.
pub fn nth_set_bit(mask: u64, k: usize) -> Option<usize> {
    let mut m = mask;
    for _ in 0..k {
        if m == 0 {
            return None;
        }
        m &= m - 1;
    }
    (m != 0).then(|| m.trailing_zeros() as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passes_follow_the_ceil_rule() {
        let d = Device::max78000();
        assert_eq!(d.passes(1), (1, 1));
        assert_eq!(d.passes(64), (1, 64));
        assert_eq!(d.passes(79), (2, 40));
        assert_eq!(d.passes(120), (2, 60));
        assert_eq!(d.passes(126), (2, 64));
        assert_eq!(d.passes(127), (2, 64));
        assert_eq!(d.passes(192), (3, 64));
        assert_eq!(d.passes(1024), (16, 64));
        assert_eq!(Device::with_max_proc(4).passes(7), (2, 4));
    }

    #[test]
    fn instance_addresses() {
        let d = Device::max78000();
        assert_eq!(d.instance_base(0), 0x5040_0000);
        assert_eq!(d.instance_base(4), 0x5040_8000);
        assert_eq!(d.instance_base(15), 0x5041_8000);
        assert_eq!(d.instance_base(16), 0x5080_0000);
        assert_eq!(d.instance_base(59), 0x5101_0000);
    }

    #[test]
    fn set_bits() {
        assert_eq!(nth_set_bit(0b1011_0000, 0), Some(4));
        assert_eq!(nth_set_bit(0b1011_0000, 2), Some(7));
        assert_eq!(nth_set_bit(0b1011_0000, 3), None);
    }
}
