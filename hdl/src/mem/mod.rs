//! Memories (block-RAM templates).
pub mod bank_file;
pub mod sdp_ram;
pub mod two_clock_ram;
