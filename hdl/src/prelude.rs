//! Re-exports of every block.
pub use crate::arith::asr::AsrFloor;
pub use crate::arith::check::ArithCheck;
pub use crate::arith::max::MaxSigned;
pub use crate::arith::mul::MulSigned;
pub use crate::arith::sat::{SatMode, Saturate};
pub use crate::arith::sext::SignExtend;
pub use crate::design::{Design, Direction, DutIo, Instance, PortSpec};
pub use crate::lel::lfsr::Lfsr;
pub use crate::lel::mac_lane::MacLane;
pub use crate::lel::matmul::{LelMatmul, MatMul};
pub use crate::lel::quant_relu::QuantRelu;
pub use crate::lel::tree_comparator::{LelTreeComparator, TreeComparator};
