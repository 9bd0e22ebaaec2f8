//! Cache X4 (thesis §4.1.8): the thesis write-then-read test in all three scenarios, read
//! latency 2, no X after reset, block-RAM mapping of the weight scenario, random traffic.

use crate::common;

use edgelearn_sim::{Backend, Value};
use edgelearn_verif::blocks::cache_x4::{depth, random_stimulus, thesis_stimulus};
use edgelearn_verif::rtl::designs as registry;

#[test]
fn cache_depths_agree_with_the_hardware() {
    assert_eq!(
        depth("lel_cache_x4_act"),
        Some(edgelearn_hdl::lel::cache_x4::CACHE_ACT_DEPTH)
    );
    assert_eq!(
        depth("lel_cache_x4_weight"),
        Some(edgelearn_hdl::lel::cache_x4::CACHE_WEIGHT_DEPTH)
    );
    assert_eq!(
        depth("lel_cache_x4_grad"),
        Some(edgelearn_hdl::lel::cache_x4::CACHE_GRAD_DEPTH)
    );
}

fn thesis(block: &str, backends: &[Backend]) {
    let (stim, first_read) = thesis_stimulus(block, &common::ports(block), 1108).unwrap();
    let runs = common::check_block(block, &stim, backends);
    for run in &runs {
        // No X anywhere (Icarus is 4-state), and the first read is back two edges later.
        assert!(run
            .trace
            .rows
            .iter()
            .all(|r| r.iter().all(|v| matches!(v, Value::Known(_)))));
        let o = run.trace.port_index("data_out1").unwrap();
        let d0 = stim.port_index("data_in0").unwrap();
        let first_written = &stim.rows[1][d0];
        assert_eq!(
            run.trace.rows[first_read + 1][o].known(),
            Some(first_written),
            "{} latency 2",
            run.trace.backend
        );
    }
}

#[test]
fn cache_x4_act_thesis_test() {
    thesis("lel_cache_x4_act", &Backend::ALL);
}

#[test]
fn cache_x4_grad_thesis_test() {
    thesis("lel_cache_x4_grad", &Backend::ALL);
}

/// 4 x 18,000 words written and read back: 144,000 cycles. The Yosys netlist backend is
/// left out here because simulating a memory's zero-initialisation loop through
/// `read_verilog -nosynthesis` makes Yosys take about ten minutes on 72,000 words; the act
/// and grad scenarios cover the netlist.
#[test]
fn cache_x4_weight_thesis_test() {
    thesis("lel_cache_x4_weight", &Backend::THREE);
}

#[test]
fn cache_x4_random_traffic() {
    for block in ["lel_cache_x4_act", "lel_cache_x4_grad"] {
        let stim = random_stimulus(block, &common::ports(block), 16, 2_000).unwrap();
        common::check_block(block, &stim, &Backend::THREE);
    }
    for block in [
        "lel_cache_x4_act",
        "lel_cache_x4_weight",
        "lel_cache_x4_grad",
    ] {
        let stim = random_stimulus(block, &common::ports(block), 17, 12_000).unwrap();
        common::check_block(block, &stim, &[Backend::Verilator]);
    }
}

#[test]
fn cache_x4_weight_scenario_maps_to_block_ram() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("bram-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let design = registry::build("lel_cache_x4_weight").unwrap();
    let file = dir.join("lel_cache_x4_weight.v");
    std::fs::write(&file, design.verilog().unwrap()).unwrap();
    let stat = dir.join("stat.txt");
    let script = format!(
        "read_verilog {}; synth_xilinx -family xc7 -flatten -top lel_cache_x4_weight; tee -q -o {} stat",
        file.display(),
        stat.display()
    );
    let out = std::process::Command::new("yosys")
        .args(["-q", "-p", &script])
        .output()
        .expect("yosys installed");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&stat).unwrap();
    let count = |cell: &str| -> usize {
        text.lines()
            .filter_map(|l| l.trim().strip_prefix(cell))
            .filter_map(|rest| rest.trim().parse::<usize>().ok())
            .sum()
    };
    let brams = count("RAMB18E1") + 2 * count("RAMB36E1");
    // 4 x 18,000 x 24 bits = 1.728 Mbit: at least 94 RAMB18 equivalents, and no LUT RAM.
    assert!(brams >= 94, "expected block RAM, got:\n{text}");
    assert_eq!(
        count("RAM64M") + count("RAM32M") + count("RAM64X1D"),
        0,
        "distributed RAM used:\n{text}"
    );
}
