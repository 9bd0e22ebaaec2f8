//! Memories (block-RAM templates).
pub mod sdp_ram;
pub mod two_clock_ram;
