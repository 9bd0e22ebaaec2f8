//! Memories (block-RAM templates).
pub mod bank_file;
pub mod sdp_ram;
pub mod two_clock_ram;

use num_bigint::BigUint;
use rust_hdl::prelude::Bits;

/// `value` as a `W`-bit word, its bits above `W` dropped (a backdoor write of a memory).
pub(crate) fn word_of<const W: usize>(value: &BigUint) -> Bits<W> {
    if value.bits() as usize > W {
        Bits::<W>::from(value & ((BigUint::from(1u8) << W) - 1u8))
    } else {
        Bits::<W>::from(value.clone())
    }
}
