//! Readers for the file formats of a hardware-verification kit, written without Python or
//! libtorch:
//!
//! * [`torch`]: PyTorch checkpoints written by `torch.save`, both the zip format (PyTorch 1.6
//!   and later) and the older "legacy" sequential-pickle format;
//! * [`npy`]: NumPy `.npy` files (format versions 1, 2 and 3) and `.npz` archives;
//! * [`pickle`]: the Python pickle *data* interpreter both of them rely on (it never imports or
//!   runs code: classes and functions are returned as names);
//! * [`error`]: the [`FormatError`](error::FormatError) every reader returns.
//!
//! No reader panics on malformed input: every failure is a `FormatError` naming the file.

pub mod error;
pub mod npy;
pub mod pickle;
pub mod torch;
