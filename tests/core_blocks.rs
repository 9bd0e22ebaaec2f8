//! The cores' own sub-blocks against their golden models, on rust-hdl's simulator and on
//! Verilator: the word sequencer (every cycle, with random stalls, gaps and drains), the
//! output FIFO (every cycle, random pushes and back-pressure, TUSER and TLAST), the
//! platform's block-RAM FIFO and register slice (every cycle, random traffic; the slice also
//! replayed on Icarus and its Yosys netlist) and the LC weight generator (every row, against
//! the serial LFSR).

use crate::common;

use common::{replay_equal, simulator};
use edgelearn_hdl::design::{Design, Instance};
use edgelearn_hdl::lel::lc_weights::LelLcWeights;
use edgelearn_hdl::lel::packet_fifo::PacketFifo;
use edgelearn_hdl::lel::stream_fifo::CoreFifo;
use edgelearn_hdl::lel::stream_slice::StreamSlice;
use edgelearn_hdl::lel::word_seq::WordSeq;
use edgelearn_sim::dut::{unpack_words, Dut, DutOptions};
use edgelearn_sim::Backend;
use edgelearn_verif::golden::packet_fifo::PacketFifo as GoldenPacketFifo;
use edgelearn_verif::golden::stream_fifo::StreamFifo;
use edgelearn_verif::golden::stream_slice::StreamSlice as GoldenSlice;
use edgelearn_verif::golden::word_seq::{word_seq, SeqDims};
use edgelearn_verif::lel::lfsr_stream::lc_weights;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

const BACKENDS: [Backend; 2] = [Backend::Native, Backend::Verilator];

fn dut(backend: Backend, design: Box<dyn Design>) -> Box<dyn Dut> {
    simulator()
        .dut(backend, design, &DutOptions::default())
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn word_seq_issues_the_golden_order_with_stalls_gaps_and_drains() {
    let cases = [
        SeqDims {
            pieces: 4,
            passes: 3,
            words: 9,
            gap: true,
            drain: 0,
        },
        SeqDims {
            pieces: 3,
            passes: 2,
            words: 8,
            gap: false,
            drain: 4,
        },
        SeqDims {
            pieces: 1,
            passes: 1,
            words: 1,
            gap: false,
            drain: 0,
        },
        SeqDims {
            pieces: 2,
            passes: 1,
            words: 5,
            gap: true,
            drain: 3,
        },
    ];
    for backend in BACKENDS {
        let mut d = dut(
            backend,
            Box::new(Instance::new("word_seq", WordSeq::default())),
        );
        let port = |d: &dyn Dut, n: &str| d.port(n).unwrap();
        let (start, stall) = (port(&*d, "start"), port(&*d, "stall"));
        let outs: Vec<_> = ["emit", "piece", "pass", "index", "addr", "last", "done"]
            .iter()
            .map(|n| port(&*d, n))
            .collect();
        for (case, dims) in cases.iter().enumerate() {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(case as u64);
            let stalls: Vec<bool> = (0..2000).map(|_| rng.random_bool(0.25)).collect();
            let want = word_seq(*dims, &mut |c| stalls[c]);
            for (n, v) in [
                ("pieces", dims.pieces),
                ("passes", dims.passes),
                ("words", dims.words),
            ] {
                let p = port(&*d, n);
                d.poke(p, v as u64).unwrap();
            }
            let (g, dr) = (port(&*d, "gap"), port(&*d, "drain"));
            d.poke(g, dims.gap as u64).unwrap();
            d.poke(dr, dims.drain as u64).unwrap();
            d.poke(start, 1).unwrap();
            d.step().unwrap();
            d.poke(start, 0).unwrap();
            for (c, w) in want.iter().enumerate() {
                d.poke(stall, stalls[c] as u64).unwrap();
                let got: Vec<u64> = outs.iter().map(|&o| d.peek(o).unwrap()).collect();
                assert_eq!(got[6], 0, "{backend} case {case} cycle {c}: done early");
                match w {
                    None => assert_eq!(got[0], 0, "{backend} case {case} cycle {c}: idle"),
                    Some(w) => assert_eq!(
                        got[..6],
                        [
                            1,
                            w.piece as u64,
                            w.pass as u64,
                            w.index as u64,
                            w.addr as u64,
                            w.last as u64
                        ],
                        "{backend} case {case} cycle {c}"
                    ),
                }
                d.step().unwrap();
            }
            assert_eq!(d.peek(outs[6]).unwrap(), 1, "{backend} case {case}: done");
            assert_eq!(d.peek(outs[0]).unwrap(), 0);
        }
    }
}

#[test]
fn stream_fifo_is_the_golden_queue_under_random_traffic() {
    for backend in BACKENDS {
        let mut d = dut(
            backend,
            Box::new(Instance::new("stream_fifo", CoreFifo::default())),
        );
        let p = |d: &dyn Dut, n: &str| d.port(n).unwrap();
        let (reset, push, data, user, last, ready) = (
            p(&*d, "reset"),
            p(&*d, "push"),
            p(&*d, "in_data"),
            p(&*d, "in_user"),
            p(&*d, "in_last"),
            p(&*d, "out_ready"),
        );
        let (valid, odata, ouser, olast, count) = (
            p(&*d, "out_valid"),
            p(&*d, "out_data"),
            p(&*d, "out_user"),
            p(&*d, "out_last"),
            p(&*d, "count"),
        );
        d.poke(reset, 1).unwrap();
        d.step().unwrap();
        d.poke(reset, 0).unwrap();
        let mut g = StreamFifo::new(8);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(77);
        for c in 0..4000 {
            // Phases: fill (ready rare), drain (push rare), mixed.
            let (pp, pr) = match (c / 500) % 3 {
                0 => (0.8, 0.1),
                1 => (0.1, 0.9),
                _ => (0.5, 0.5),
            };
            let beat = rng.random_bool(pp).then(|| {
                (
                    rng.random::<u32>() as u64,
                    rng.random_range(0..16u64),
                    rng.random_bool(0.2),
                )
            });
            let r = rng.random_bool(pr);
            let (b, u, l) = beat.unwrap_or((0, 0, false));
            d.poke(push, beat.is_some() as u64).unwrap();
            d.poke(data, b).unwrap();
            d.poke(user, u).unwrap();
            d.poke(last, l as u64).unwrap();
            d.poke(ready, r as u64).unwrap();
            let head = g.head();
            assert_eq!(
                d.peek(valid).unwrap(),
                head.is_some() as u64,
                "{backend} cycle {c}"
            );
            assert_eq!(
                d.peek(count).unwrap(),
                g.count() as u64,
                "{backend} cycle {c}"
            );
            if let Some((hb, hu, hl)) = head {
                let got = (
                    d.peek(odata).unwrap(),
                    d.peek(ouser).unwrap(),
                    d.peek(olast).unwrap(),
                );
                assert_eq!(got, (hb, hu, hl as u64), "{backend} cycle {c}");
            }
            g.edge(beat, r);
            d.step().unwrap();
        }
    }
}

/// The registry's `lel_stream_fifo` (the same FIFO as a block of `edgelearn sim`): its
/// golden trace under fill, drain and mixed phases with rare resets, on every backend.
#[test]
fn stream_fifo_block_matches_its_golden_trace_on_every_backend() {
    let block = "lel_stream_fifo";
    let stim = edgelearn_verif::blocks::stream_fifo::random_stimulus(
        block,
        &common::ports(block),
        0xf1f0,
        3000,
    )
    .unwrap();
    common::check_block(block, &stim, &Backend::ALL);
}

#[test]
fn packet_fifo_is_the_golden_queue_under_random_traffic() {
    // Depth 16 (not a power of two would also do: 13 checks the wrap).
    for (backend, depth) in [
        (Backend::Native, 16),
        (Backend::Verilator, 16),
        (Backend::Verilator, 13),
    ] {
        let mut d = dut(
            backend,
            Box::new(Instance::new("packet_fifo", PacketFifo::new(depth))),
        );
        let p = |d: &dyn Dut, n: &str| d.port(n).unwrap();
        let ins: Vec<_> = [
            "reset", "s_tvalid", "s_tdata", "s_tuser", "s_tlast", "m_tready",
        ]
        .iter()
        .map(|n| p(&*d, n))
        .collect();
        let outs: Vec<_> = [
            "s_tready", "m_tvalid", "m_tdata", "m_tuser", "m_tlast", "count", "packets",
        ]
        .iter()
        .map(|n| p(&*d, n))
        .collect();
        d.poke(ins[0], 1).unwrap();
        d.step().unwrap();
        d.poke(ins[0], 0).unwrap();
        let mut g = GoldenPacketFifo::new(depth);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(78);
        let mut held: Option<(u64, u64, bool)> = None;
        for c in 0..6000 {
            let (pp, pr) = match (c / 400) % 4 {
                0 => (0.9, 0.1),
                1 => (0.1, 0.9),
                2 => (1.0, 1.0),
                _ => (0.5, 0.5),
            };
            // The source keeps a beat offered until it is taken (AXI).
            if held.is_none() && rng.random_bool(pp) {
                held = Some((
                    rng.random::<u32>() as u64,
                    rng.random_range(0..16u64),
                    rng.random_bool(0.15),
                ));
            }
            let r = rng.random_bool(pr);
            let (b, u, l) = held.unwrap_or((0, 0, false));
            for (port, v) in ins[1..]
                .iter()
                .zip([held.is_some() as u64, b, u, l as u64, r as u64])
            {
                d.poke(*port, v).unwrap();
            }
            let got: Vec<u64> = outs.iter().map(|&o| d.peek(o).unwrap()).collect();
            let head = g.head();
            let want_head = head.map(|(b, u, l)| (b, u, l as u64));
            let got_head = (got[1] == 1).then_some((got[2], got[3], got[4]));
            assert_eq!(
                got_head, want_head,
                "{backend} depth {depth} cycle {c}: head"
            );
            assert_eq!(
                (got[0], got[5], got[6]),
                (g.ready() as u64, g.count() as u64, g.packets() as u64),
                "{backend} depth {depth} cycle {c}: ready, count, packets"
            );
            let taken = held.filter(|_| g.ready());
            g.edge(held, r);
            if taken.is_some() {
                held = None;
            }
            d.step().unwrap();
        }
    }
}

/// Drive a 32-bit / 4-bit register slice with random traffic (bursts, stalls, full rate,
/// reset in the middle) and compare every output bit with the golden registers each cycle.
fn drive_stream_slice(d: &mut dyn Dut, label: &str) {
    let p = |d: &dyn Dut, n: &str| d.port(n).unwrap();
    let ins: Vec<_> = [
        "reset", "s_tvalid", "s_tdata", "s_tuser", "s_tlast", "m_tready",
    ]
    .iter()
    .map(|n| p(d, n))
    .collect();
    let outs: Vec<_> = ["s_tready", "m_tvalid", "m_tdata", "m_tuser", "m_tlast"]
        .iter()
        .map(|n| p(d, n))
        .collect();
    d.poke(ins[0], 1).unwrap();
    d.step().unwrap();
    let mut g = GoldenSlice::new();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(91);
    let mut held: Option<(u64, u64, bool)> = None;
    let corners = [0u64, 0xffff_ffff, 0x8000_0000, 0x7fff_ffff, 0x0000_0080];
    let (mut sent, mut moved) = (0u64, 0u64);
    for c in 0..3000u64 {
        let (pp, pr) = match (c / 250) % 4 {
            0 => (0.9, 0.2),
            1 => (0.2, 0.9),
            2 => (1.0, 1.0),
            _ => (0.5, 0.5),
        };
        let reset = c == 1700;
        if held.is_none() && rng.random_bool(pp) {
            let data = if rng.random_bool(0.2) {
                corners[rng.random_range(0..corners.len())]
            } else {
                rng.random::<u32>() as u64
            };
            held = Some((data, rng.random_range(0..16u64), rng.random_bool(0.2)));
        }
        let r = rng.random_bool(pr);
        let (b, u, l) = held.unwrap_or((0, 0, false));
        for (port, v) in ins.iter().zip([
            reset as u64,
            held.is_some() as u64,
            b,
            u,
            l as u64,
            r as u64,
        ]) {
            d.poke(*port, v).unwrap();
        }
        let got: Vec<u64> = outs.iter().map(|&o| d.peek(o).unwrap()).collect();
        let (v, (wb, wu, wl)) = g.output();
        assert_eq!(
            got,
            vec![g.ready() as u64, v as u64, wb, wu, wl as u64],
            "{label} cycle {c}: s_tready, m_tvalid, m_tdata, m_tuser, m_tlast"
        );
        let taken = held.filter(|_| g.ready() && !reset);
        if g.edge(held, r, reset).is_some() {
            moved += 1;
        }
        if taken.is_some() || reset {
            sent += taken.is_some() as u64;
            held = None;
        }
        d.step().unwrap();
    }
    assert!(
        sent > 1000 && moved > 1000,
        "{label}: {sent} beats in, {moved} out"
    );
}

#[test]
fn stream_slice_is_the_golden_skid_buffer_under_random_traffic() {
    let design = || -> Box<dyn Design> {
        Box::new(Instance::new(
            "stream_slice",
            StreamSlice::<32, 4>::default(),
        ))
    };
    for backend in BACKENDS {
        let mut d = dut(backend, design());
        drive_stream_slice(&mut *d, &format!("{backend}"));
    }
    // The same stimulus on Icarus (four-state: an X after reset fails) and on the Yosys
    // netlist, compared with the Verilator run output by output, cycle by cycle.
    for backend in [Backend::Icarus, Backend::Netlist] {
        replay_equal(design, backend, |mut d| {
            drive_stream_slice(&mut *d, "verilator (recorded)")
        });
    }
}

#[test]
fn lc_weights_are_the_serial_lfsr_rows_with_minus_32_read_as_minus_31() {
    for backend in BACKENDS {
        let mut d = dut(
            backend,
            Box::new(Instance::new("lc_weights", LelLcWeights::default())),
        );
        let p = |d: &dyn Dut, n: &str| d.port(n).unwrap();
        let (seed, prog, step, weights) = (
            p(&*d, "seed"),
            p(&*d, "prog"),
            p(&*d, "step"),
            p(&*d, "weights"),
        );
        for s in [0x1ace_u32, 1, 0x1ffff] {
            let want = lc_weights(s, 600, 10, 6);
            assert!(want.iter().flatten().any(|&w| w == -31));
            d.poke(seed, s as u64).unwrap();
            d.poke(prog, 1).unwrap();
            d.step().unwrap();
            d.poke(prog, 0).unwrap();
            d.poke(step, 1).unwrap();
            for (n, row) in want.iter().enumerate() {
                d.step().unwrap();
                let got = unpack_words(&[d.peek(weights).unwrap()], 6, 10, true);
                assert_eq!(&got, row, "{backend} seed {s:#x} row {n}");
            }
            d.poke(step, 0).unwrap();
        }
    }
}
