//! The LEL platform in RTL (`lel_platform*`, spec lel-platform.md §4.4): INIT, READ, whole
//! PL_TRAIN and PL_INF runs bit-exact with the golden network image by image (every FC
//! core's LC outputs and class, weights read back), the pipeline's cycle counts, the
//! streams under random gaps and back-pressure, I_STOP and reset.

use crate::common;

use common::simulator;
use edgelearn_sim::dut::DutOptions;
use edgelearn_sim::tb::{Backpressure, Gaps};
use edgelearn_sim::Backend;
use edgelearn_verif::lel::config::PlatformConfig;
use edgelearn_verif::lel::fc_core::FcParams;
use edgelearn_verif::lel::network::{lfsr_seeds, LelNetwork};
use edgelearn_verif::rtl::designs::{platform_design, platform_shape};
use edgelearn_verif::rtl::fc::Traffic;
use edgelearn_verif::rtl::platform::{
    configure, test_run, train_epoch, PlatformBench, PlatformCheck,
};
use edgelearn_verif::rtl::{conv_cycle_table, fc_cycle_table};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn tiny() -> PlatformConfig {
    common::tiny_platform()
}

fn fc_params(net: &LelNetwork) -> [FcParams; 2] {
    [net.cores[0].p.clone(), net.cores[1].p.clone()]
}

fn bench(cfg: &PlatformConfig, traffic: &Traffic) -> (PlatformBench, LelNetwork) {
    bench_on(Backend::Verilator, cfg, traffic)
}

fn bench_on(
    backend: Backend,
    cfg: &PlatformConfig,
    traffic: &Traffic,
) -> (PlatformBench, LelNetwork) {
    let net = LelNetwork::new(cfg).unwrap();
    let design = platform_design("lel_platform_tiny", cfg).unwrap();
    let dut = simulator()
        .dut(backend, design, &DutOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    let mut b =
        PlatformBench::new(dut, platform_shape(cfg).unwrap(), fc_params(&net), traffic).unwrap();
    b.reset().unwrap();
    configure(&mut b, &net, 1).unwrap();
    let seeds = lfsr_seeds(cfg);
    b.init([&net.cores[0].w, &net.cores[1].w], [seeds[0], seeds[1]])
        .unwrap();
    (b, net)
}

/// Random prepared images (0..127, as the `half` pixel map gives) and labels.
fn images(cfg: &PlatformConfig, n: usize, seed: u64) -> (Vec<Vec<i32>>, Vec<u32>) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let px = cfg.input.channels * cfg.input.height * cfg.input.width;
    let x = (0..n)
        .map(|_| (0..px).map(|_| rng.random_range(0..128)).collect())
        .collect();
    let y = (0..n).map(|_| rng.random_range(0..10)).collect();
    (x, y)
}

#[test]
#[allow(clippy::needless_range_loop)] // x is the FC core, indexing two arrays
fn tiny_platform_trains_bit_exactly_image_by_image_and_pipelined() {
    let cfg = tiny();
    let (mut b, mut net) = bench(&cfg, &Traffic::default());
    let w = b.read_weights().unwrap();
    assert_eq!(w[0], net.cores[0].w, "FC0 weights read back after INIT");
    assert_eq!(w[1], net.cores[1].w, "FC1 weights read back after INIT");
    let initial = [net.cores[0].w.clone(), net.cores[1].w.clone()];
    let (x, y) = images(&cfg, 24, 5);
    let order: Vec<usize> = (0..8).collect();
    // Epoch 1: one image per PL_TRAIN run, weights read back after each.
    let each = PlatformCheck {
        outputs: true,
        weights_every: Some(1),
    };
    let e1 = train_epoch(&mut b, &mut net, &x, &y, &order, 1, each, &mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(e1.runs.len(), 8);
    // Epoch 2 (another learning rate from the table): all 16 images in one pipelined run.
    let order: Vec<usize> = (8..24).collect();
    let piped = PlatformCheck {
        outputs: true,
        weights_every: None,
    };
    let e2 = train_epoch(&mut b, &mut net, &x, &y, &order, 2, piped, &mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"));
    edgelearn_verif::rtl::platform::check_weights(&mut b, &net, 23).unwrap();
    // Training moved the weights (so the comparisons above compared something).
    for x in 0..2 {
        let moved = initial[x]
            .iter()
            .zip(&net.cores[x].w)
            .filter(|(a, b)| a != b)
            .count();
        assert!(moved > 0, "FC{x}: no weight changed in 24 images");
        eprintln!(
            "FC{x}: {moved} weights changed; correct {} + {}",
            e1.correct[x], e2.correct[x]
        );
    }
    let run = &e2.runs[0];
    let fc = |k: usize, s: &edgelearn_hdl::lel::fc_core::FcCoreShape| {
        let t = fc_cycle_table(s, 4);
        let _ = k;
        t[1..].iter().map(|e| e.1).sum::<u64>()
    };
    let shape = platform_shape(&cfg).unwrap();
    let c = conv_cycle_table(1, 9, 12);
    let conv = c[0].1 + 24 * (c[1].1 + c[2].1) + c[3].1;
    assert_eq!(
        run.core_cycles,
        [conv, fc(0, &shape.fc0), fc(1, &shape.fc1)],
        "per-core cycles of an image (LOAD .. FIN)"
    );
    eprintln!(
        "16-image run: {} cycles, per core {:?}",
        run.cycles, run.core_cycles
    );
    // Inference leaves the weights alone.
    let inf = test_run(
        &mut b,
        &net,
        &x[..6],
        &y[..6],
        PlatformCheck {
            outputs: true,
            weights_every: None,
        },
        &mut |_| {},
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(inf.images, 6);
}

#[test]
fn tiny_platform_under_gaps_and_backpressure_keeps_the_stream_rules_and_bit_exactness() {
    let cfg = tiny();
    let traffic = Traffic {
        gaps: Gaps::Anywhere(0.3),
        backpressure: Backpressure::Random(0.5),
        seed: 11,
    };
    let (mut b, mut net) = bench(&cfg, &traffic);
    let (x, y) = images(&cfg, 10, 6);
    let order: Vec<usize> = (0..10).collect();
    let check = PlatformCheck {
        outputs: true,
        weights_every: Some(5),
    };
    let e = train_epoch(&mut b, &mut net, &x, &y, &order, 1, check, &mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(e.runs.len(), 2);
}

/// The platform with FC cores of 8 lanes (issue 29) between its 32-bit width adapters: INIT
/// and READ through them, trained bit-exactly with the golden network at 8 lanes under
/// input gaps and output back-pressure, then a pipelined run at full rate in the cycles of
/// the formula (LS_LOAD at the 32-bit stream's rate).
#[test]
fn tiny_platform_at_8_lanes_trains_bit_exactly_in_the_cycles_of_the_formula() {
    eight_lanes(false, 1);
}

/// The same with the FC cores' weight-cache reads registered (D-REGISTERED-READS) and a
/// conv core of four channels at a time (D-CONV-PARALLEL): the same weights, a cycle more
/// per INF and one per piece per WU, and the conv core's image in fewer cycles, as the
/// formulas say.
#[test]
fn tiny_platform_at_8_lanes_with_registered_reads_and_4_conv_channels_trains_bit_exactly() {
    eight_lanes(true, 4);
}

fn eight_lanes(registered_reads: bool, conv_parallel: usize) {
    use edgelearn_verif::rtl::{conv_image_cycles, platform_fc_cycles};
    let mut cfg = tiny();
    cfg.fc[0].outputs = 32;
    cfg.fc[0].pieces = 2;
    cfg.rtl.registered_reads = registered_reads;
    cfg.rtl.conv_parallel = conv_parallel;
    let cfg = cfg.with_lanes(8).unwrap();
    let traffic = Traffic {
        gaps: Gaps::Anywhere(0.3),
        backpressure: Backpressure::Random(0.5),
        seed: 12,
    };
    let (mut b, mut net) = bench(&cfg, &traffic);
    assert_eq!(net.cores[0].p.lanes, 8);
    let w = b.read_weights().unwrap();
    assert_eq!(w[0], net.cores[0].w, "FC0 weights read back after INIT");
    assert_eq!(w[1], net.cores[1].w, "FC1 weights read back after INIT");
    let (x, y) = images(&cfg, 14, 8);
    let order: Vec<usize> = (0..6).collect();
    let check = PlatformCheck {
        outputs: true,
        weights_every: Some(3),
    };
    let e = train_epoch(&mut b, &mut net, &x, &y, &order, 1, check, &mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(e.runs.len(), 2);
    // One instance of a model at a time in a process: the first bench goes first.
    drop(b);
    let (mut b, mut net) = bench(&cfg, &Traffic::default());
    let order: Vec<usize> = (6..14).collect();
    let piped = PlatformCheck {
        outputs: true,
        weights_every: None,
    };
    let e = train_epoch(&mut b, &mut net, &x, &y, &order, 1, piped, &mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"));
    edgelearn_verif::rtl::platform::check_weights(&mut b, &net, 13).unwrap();
    let shape = platform_shape(&cfg).unwrap();
    let conv = conv_image_cycles(&shape.conv);
    if conv_parallel > 1 {
        let one = conv_image_cycles(&edgelearn_hdl::lel::conv_core::ConvCoreShape {
            parallel: 1,
            ..shape.conv
        });
        assert!(
            conv < one,
            "{conv} cycles with {conv_parallel} at a time, {one} with one"
        );
    }
    let fc = |s: &edgelearn_hdl::lel::fc_core::FcCoreShape| platform_fc_cycles(s, 8);
    assert_eq!(
        e.runs[0].core_cycles,
        [conv, fc(&shape.fc0), fc(&shape.fc1)],
        "per-core cycles of an image (LOAD .. FIN) at 8 lanes"
    );
}

#[test]
fn a_wrong_weight_is_named_by_core_image_and_index() {
    let cfg = tiny();
    let (mut b, mut net) = bench(&cfg, &Traffic::default());
    // Flip one FC1 weight word behind the platform's back (memory backdoor).
    let mem = "core.fc1.fc.wcache.mem$0.mem";
    let mut words = b.dut().read_mem(mem).unwrap();
    words[3] ^= 0x3f;
    b.dut().load_mem(mem, 0, &words).unwrap();
    let (x, y) = images(&cfg, 4, 7);
    let check = PlatformCheck {
        outputs: true,
        weights_every: Some(1),
    };
    let err = train_epoch(
        &mut b,
        &mut net,
        &x,
        &y,
        &[0, 1, 2, 3],
        1,
        check,
        &mut |_| {},
    )
    .expect_err("a corrupted weight must diverge");
    let msg = err.to_string();
    assert!(msg.contains("fc1") && msg.contains("image 0"), "{msg}");
    assert!(msg.contains("expected") && msg.contains("got"), "{msg}");
}

#[test]
fn stop_and_reset_mid_run_leave_a_platform_that_trains_bit_exactly() {
    use edgelearn_hdl::lel::platform::regs;
    let cfg = tiny();
    let (mut b, net0) = bench(&cfg, &Traffic::default());
    let (x, y) = images(&cfg, 6, 8);
    for how in ["stop", "reset"] {
        // Start a run of 6 images and interrupt it part-way.
        b.write_reg(regs::N_TRAIN, 6).unwrap();
        b.write_reg(regs::CTRL, 2).unwrap();
        for _ in 0..1500 {
            b.cycle().unwrap();
        }
        assert_eq!(b.states().unwrap()[0], 2, "{how}: PL_TRAIN");
        if how == "stop" {
            b.stop().unwrap();
            assert_eq!(b.states().unwrap(), [0, 0, 0, 0], "I_STOP: every core idle");
            for r in [regs::IN_LEVEL, regs::MID_LEVEL, regs::OUT_LEVEL] {
                assert_eq!(
                    b.read_reg(r).unwrap() & 0xffff,
                    0,
                    "I_STOP flushes the FIFOs"
                );
            }
        } else {
            b.reset().unwrap();
            assert_eq!(b.states().unwrap(), [0, 0, 0, 0]);
            assert_eq!(
                b.read_reg(regs::MODEL_CFG).unwrap(),
                0,
                "reset clears the registers"
            );
        }
        // INIT again from the start and train: bit-exact.
        let mut net = net0.clone();
        configure(&mut b, &net, 1).unwrap();
        let seeds = lfsr_seeds(&cfg);
        b.init([&net.cores[0].w, &net.cores[1].w], [seeds[0], seeds[1]])
            .unwrap();
        let check = PlatformCheck {
            outputs: true,
            weights_every: Some(3),
        };
        train_epoch(
            &mut b,
            &mut net,
            &x,
            &y,
            &[0, 1, 2, 3, 4, 5],
            1,
            check,
            &mut |_| {},
        )
        .unwrap_or_else(|e| panic!("after {how}: {e}"));
    }
}

/// The port stage's Rust model (rust-hdl's simulator) makes the connections its hand-written
/// Verilog makes: INIT and read-back, a register round trip and one training image agree
/// with the golden model there too.
#[test]
fn tiny_platform_on_rust_hdl_initialises_reads_back_and_trains_an_image() {
    use edgelearn_hdl::lel::platform::regs;
    let cfg = tiny();
    let (mut b, mut net) = bench_on(Backend::Native, &cfg, &Traffic::default());
    let w = b.read_weights().unwrap();
    assert_eq!(w[0], net.cores[0].w, "FC0 weights read back after INIT");
    assert_eq!(w[1], net.cores[1].w, "FC1 weights read back after INIT");
    assert_eq!(b.read_reg(regs::ID).unwrap(), regs::ID_VALUE);
    b.write_reg(regs::N_TEST, 0x1234_5678).unwrap();
    assert_eq!(b.read_reg(regs::N_TEST).unwrap(), 0x1234_5678);
    let (x, y) = images(&cfg, 1, 9);
    let each = PlatformCheck {
        outputs: true,
        weights_every: Some(1),
    };
    train_epoch(&mut b, &mut net, &x, &y, &[0], 1, each, &mut |_| {})
        .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn every_register_reads_back_and_the_lr_table_sets_the_active_cfg() {
    use edgelearn_hdl::lel::platform::regs;
    let cfg = tiny();
    let (mut b, _net) = bench(&cfg, &Traffic::default());
    assert_eq!(b.read_reg(regs::ID).unwrap(), regs::ID_VALUE);
    let rw: [(u8, u32, u32); 9] = [
        (regs::MODEL_CFG, 0xdead_beef, 0xdead_beef & 0x07ff_ffff),
        (regs::SEED_LC0, 0xffff_ffff, 0x1ffff),
        (regs::SEED_WU0, 0x1234, 0x1234),
        (regs::SEED_LC1, 0x2_0001, 1),
        (regs::SEED_WU1, 0x1_5555, 0x1_5555),
        (regs::N_TRAIN, 50_000, 50_000),
        (regs::N_TEST, 10_000, 10_000),
        (regs::EPOCH, 7, 7),
        // LR_LEN stores at most 16 (the description's `max`; docs/registers.md).
        (regs::LR_LEN, 0xff, 16),
    ];
    for (r, v, want) in rw {
        b.write_reg(r, v).unwrap();
        assert_eq!(b.read_reg(r).unwrap(), want, "register {r:#x}");
    }
    for e in 0..16u8 {
        b.write_reg(regs::LR_TABLE + e, 0x40 | e as u32).unwrap();
        assert_eq!(b.read_reg(regs::LR_TABLE + e).unwrap(), e as u32 & 0x3f);
    }
    for r in [0x50u8, 0x7f, 0xff, regs::CTRL] {
        assert_eq!(
            b.read_reg(r).unwrap(),
            0,
            "reserved or write-only {r:#x} reads 0"
        );
    }
    let shape = platform_shape(&cfg).unwrap();
    assert_eq!(
        b.read_reg(regs::IMAGE_BEATS).unwrap() as usize,
        shape.image_beats()
    );
    assert_eq!(
        b.read_reg(regs::FC0_WORDS).unwrap() as usize,
        shape.fc_words(0)
    );
    // LR fields come from LR_TABLE[min(EPOCH, LR_LEN - 1)] (a length over 16 stores 16).
    b.write_reg(regs::MODEL_CFG, 0).unwrap();
    let lr_fields = |v: u32| ((v >> 6) & 7, (v >> 18) & 7);
    for (len, epoch, entry) in [
        (3u32, 0u32, 0u32),
        (3, 2, 2),
        (3, 9, 2),
        (31, 20, 15),
        (1, 4, 0),
    ] {
        b.write_reg(regs::LR_LEN, len).unwrap();
        assert_eq!(
            b.read_reg(regs::LR_LEN).unwrap(),
            len.min(16),
            "LR_LEN {len}"
        );
        b.write_reg(regs::EPOCH, epoch).unwrap();
        let v = 0x40 | entry;
        assert_eq!(
            lr_fields(b.read_reg(regs::CFG_ACTIVE).unwrap()),
            (v & 7, (v >> 3) & 7),
            "LR_LEN {len}, EPOCH {epoch}"
        );
    }
    b.write_reg(regs::LR_LEN, 0).unwrap();
    b.write_reg(regs::MODEL_CFG, 0x1c_0140).unwrap();
    assert_eq!(
        b.read_reg(regs::CFG_ACTIVE).unwrap(),
        0x1c_0140,
        "LR_LEN 0: MODEL_CFG as is"
    );
}
