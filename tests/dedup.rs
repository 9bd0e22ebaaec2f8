//! One module per distinct block body (`edgelearn_hdl::dedup`, docs/decisions.md
//! D-EMIT-DEDUP): every registered rust-hdl design's deduplicated Verilog expands back to
//! rust-hdl's per-instance text, and Yosys proves the two equivalent.

use crate::common;
use common::cli::tmp;

use edgelearn_hdl::dedup;
use edgelearn_verif::rtl::designs;
use std::process::Command;

/// The deduplicated and the per-instance Verilog of a registered design.
fn both(name: &str) -> (String, String) {
    let d = designs::build(name).unwrap();
    assert!(rust_hdl(name), "{name} is given as Verilog");
    let text = d.verilog().unwrap();
    let plain = dedup::expand(&text).unwrap();
    (text, plain)
}

/// Whether the design is a rust-hdl block (not Verilog given as text).
fn rust_hdl(name: &str) -> bool {
    designs::build(name).unwrap().native().is_some()
}

fn modules(text: &str) -> usize {
    text.lines().filter(|l| l.starts_with("module ")).count()
}

#[test]
fn every_design_has_one_module_per_distinct_body() {
    for name in designs::names().into_iter().filter(|n| rust_hdl(n)) {
        let (text, plain) = both(&name);
        // Expanding again gives the same per-instance text (dedup checked it against
        // rust-hdl's own output when it was made).
        let again = dedup::dedup(&plain).unwrap();
        assert_eq!(again.text, text, "{name}: deduplicating is not idempotent");
        assert_eq!(again.modules, modules(&text), "{name}");
        assert!(again.instances >= again.modules, "{name}");
    }
    let (platform, plain) = both("lel_platform");
    assert!(modules(&platform) <= 150, "{} modules", modules(&platform));
    // rust-hdl's one module per instance: 1,225 when the issue was filed; one more since the
    // conv core's output stage is a block of its own (`PoolPacker`), five more since its
    // phases and channel walk are (`ConvLoad`, `ConvScan`, `PoolScan`, `ConvChannels`, the
    // window joins moving into the two scans), six more since the platform's status
    // counters and FSM are (two `ResultTally`, three `VisitCycles`, `PlFsm`), ten more since
    // each FC core's FSM, read pipeline, output feed, LC row walk and error fetch are
    // (`FcFsm`, `ReadPipe`, `FcOut`, `LcRows`, `ErrFetch`), two more since the platform's
    // registers are (`PlRegs` and its packing of the LR table's entries), eight more since
    // each FC core's gated datapath groups are blocks with their gates inside (`MmGroup`,
    // `LcGroup`, `BkGroup`, `WuGroup`), eight more since each FC core is held with its width
    // adapters (`PlatformFc`, `StreamUpsizer`, `StreamDownsizer`, the READ tail register),
    // 18 more since each FC core has the registered-read option's nine registers, six more
    // since the weight update compares with a threshold (per lane the threshold, its
    // complement and the big flag for the absolute value and the random number's register;
    // one fewer for the learning-rate register; D-WU-COMPARE), one more since the conv core
    // keeps which of its P inter-FM caches it pools (`bank`, D-CONV-PARALLEL).
    assert_eq!(modules(&plain), 1290);
    let (core, _) = both("lel_fc_core0");
    // 86 distinct bodies when the issue was filed; 94 with the four gated datapath groups.
    assert!(modules(&core) <= 94, "{} modules", modules(&core));
}

/// Yosys: the design read from either text, flattened, is equivalent (`equiv_make`,
/// `equiv_simple`, `equiv_induct`, `equiv_status -assert`).
fn yosys_equivalent(name: &str) {
    let dir = tmp(name);
    let (text, plain) = both(name);
    std::fs::write(dir.join("dedup.v"), &text).unwrap();
    std::fs::write(dir.join("plain.v"), &plain).unwrap();
    let script = format!(
        "read_verilog -nosynthesis plain.v; prep -flatten -top {name}; memory_map; opt_clean; \
         rename {name} gold; design -stash gold; \
         read_verilog -nosynthesis dedup.v; prep -flatten -top {name}; memory_map; opt_clean; \
         rename {name} gate; design -stash gate; \
         design -copy-from gold -as gold gold; design -copy-from gate -as gate gate; \
         equiv_make gold gate equiv; hierarchy -top equiv; equiv_simple -seq 2; equiv_induct; \
         equiv_status -assert"
    );
    let out = Command::new("yosys")
        .current_dir(&dir)
        .args(["-q", "-p", &script])
        .output()
        .expect("yosys installed (make test installs it)");
    assert!(
        out.status.success(),
        "{name}: Yosys finds the deduplicated Verilog not equivalent:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn yosys_proves_the_deduplicated_matmul_equivalent() {
    yosys_equivalent("lel_matmul");
}

#[test]
fn yosys_proves_the_deduplicated_lc_forward_and_weight_update_equivalent() {
    // Yosys's equivalence check maps memories to flip-flops: the cores' block RAMs make it
    // run out of memory, so the proof is made on the blocks with shared sub-blocks and no
    // large memory; every design is covered by the expansion check above.
    yosys_equivalent("lel_lc_forward");
    yosys_equivalent("lel_weight_update");
}
