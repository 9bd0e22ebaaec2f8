//! FPGA flows for emitted edgelearn designs: synthesis and place-and-route reports
//! ([`synth`]), the Vivado project for the PYNQ-Z1 ([`vivado`]), FuseSoC cores
//! ([`fusesoc`]) and the register map generated from one description ([`regmap`]).

pub mod cnn_regcheck;
pub mod cnn_regs;
pub mod formal;
pub mod fusesoc;
pub mod regcheck;
pub mod regmap;
pub mod regs_files;
pub mod synth;
pub mod vivado;
