//! Memories (block-RAM templates).
pub mod sdp_ram;
