//! The reactive testbench API (`sim::dut::Dut`) on the in-process Verilator model and on
//! rust-hdl's simulator: wide ports, the memory backdoor, designs given as Verilog only,
//! a reactive matmul bench with random gaps and a scoreboard, stream rules, determinism,
//! models side by side in threads, and clear errors.

use crate::common;

use common::cli::exited;
use common::simulator;
use edgelearn_hdl::design::{Design, Direction, PortSpec, VerilogDesign};
use edgelearn_sim::dut::{pack_words, unpack_words, Dut, DutOptions};
use edgelearn_sim::tb::{
    self, Agent, Backpressure, Gaps, ProtocolMonitor, Scoreboard, StreamPorts, StreamSink,
    StreamSource, Watchdog,
};
use edgelearn_sim::{Backend, ErrorKind, RunOptions, Stimulus};
use edgelearn_verif::blocks::matmul::thesis_burst;
use edgelearn_verif::golden::classification::classification;
use edgelearn_verif::golden::matmul::{matmul, MatmulConfig};
use edgelearn_verif::rtl::designs as registry;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::path::PathBuf;

const REACTIVE: [Backend; 2] = [Backend::Native, Backend::Verilator];

fn dut(backend: Backend, design: Box<dyn Design>) -> Box<dyn Dut> {
    simulator()
        .dut(backend, design, &DutOptions::default())
        .unwrap_or_else(|e| panic!("{e}"))
}

fn block(name: &str) -> Box<dyn Design> {
    registry::build(name).unwrap()
}

/// A small hand-written design: a registered 230-bit echo, a 70-bit sum, a counter that is
/// never reset (X-initial), and a public 16 x 12-bit memory with a write and a read port.
const ECHO_V: &str = r#"
module echo(clock, a, b, we, waddr, wdata, raddr, y, z, n, rdata);
    input clock;
    input [229:0] a;
    input [69:0] b;
    input we;
    input [3:0] waddr;
    input [11:0] wdata;
    input [3:0] raddr;
    output reg [229:0] y;
    output [69:0] z;
    output reg [7:0] n;
    output reg [11:0] rdata;
    reg [11:0] mem [0:15] /*verilator public_flat_rw*/;
    assign z = b + 70'd1;
    always @(posedge clock) begin
        y <= a;
        n <= n + 8'd1;
        if (we) mem[waddr] <= wdata;
        rdata <= mem[raddr];
    end
endmodule
"#;

/// The ports of a design given as Verilog only: the clock, then `spec`'s ports in order,
/// each `NAME in WIDTH` or `NAME out WIDTH`, separated by commas.
fn verilog_ports(spec: &str) -> Vec<PortSpec> {
    let mut ports = vec![PortSpec::clock()];
    for port in spec.split(',') {
        let f: Vec<&str> = port.split_whitespace().collect();
        let direction = match f[1] {
            "in" => Direction::Input,
            "out" => Direction::Output,
            d => panic!("direction {d} of {port}"),
        };
        ports.push(PortSpec::new(f[0], direction, f[2].parse().unwrap()));
    }
    ports
}

fn echo() -> Box<dyn Design> {
    let ports = verilog_ports(
        "a in 230, b in 70, we in 1, waddr in 4, wdata in 12, raddr in 4, \
         y out 230, z out 70, n out 8, rdata out 12",
    );
    Box::new(VerilogDesign::new("echo", ports, ECHO_V).with_memory("mem", 12, 16))
}

fn random_words(rng: &mut Xoshiro256PlusPlus, width: usize) -> Vec<u64> {
    let mut w: Vec<u64> = (0..width.div_ceil(64)).map(|_| rng.random()).collect();
    if !width.is_multiple_of(64) {
        let last = w.len() - 1;
        w[last] &= (1u64 << (width % 64)) - 1;
    }
    w
}

#[test]
fn verilog_only_design_runs_on_icarus_and_verilator_through_the_same_api() {
    let ports = echo().ports().to_vec();
    let mut stim = Stimulus::new("echo", &ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    let mut want_y = vec![];
    for c in 0..40u32 {
        let a = random_words(&mut rng, 230);
        let big = |w: &[u64]| {
            edgelearn_hdl::num_bigint::BigUint::from_slice(
                &w.iter()
                    .flat_map(|&x| [x as u32, (x >> 32) as u32])
                    .collect::<Vec<_>>(),
            )
        };
        want_y.push(big(&a));
        stim.row()
            .set("a", big(&a))
            .unwrap()
            .set("b", big(&random_words(&mut rng, 70)))
            .unwrap()
            .set("raddr", c % 16)
            .unwrap()
            .push()
            .unwrap();
    }
    let sim = simulator();
    let runs: Vec<_> = [Backend::Icarus, Backend::Verilator]
        .iter()
        .map(|&b| {
            sim.run(b, echo(), &stim, &RunOptions::default())
                .unwrap_or_else(|e| panic!("{b}: {e}"))
        })
        .collect();
    for r in &runs {
        for (c, want) in want_y.iter().enumerate() {
            assert_eq!(
                r.trace.get(c, "y").unwrap().known(),
                Some(want),
                "{} cycle {c}",
                r.trace.backend
            );
            // Never reset, but 0 from the start in both (Icarus: X; so only Verilator here).
        }
    }
    if let Err(m) = edgelearn_sim::compare(&runs[0].trace, &runs[1].trace) {
        // Icarus shows the never-reset counter as X; everything else must agree.
        assert_eq!(m.port, "n", "{m}");
    }
    // rust-hdl's simulator needs a rust-hdl block.
    let e = sim
        .run(Backend::Native, echo(), &stim, &RunOptions::default())
        .unwrap_err();
    assert!(matches!(*e.kind, ErrorKind::VerilogOnly { .. }), "{e}");
    assert!(e.to_string().contains("given as Verilog only"), "{e}");
}

#[test]
fn wide_ports_round_trip_exactly() {
    // Verilog-only echo: 230-bit in, 230-bit out; 70-bit sum.
    let mut d = dut(Backend::Verilator, echo());
    let (a, b, y, z) = (
        d.port("a").unwrap(),
        d.port("b").unwrap(),
        d.port("y").unwrap(),
        d.port("z").unwrap(),
    );
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let mut corners = vec![
        vec![0u64; 4],
        vec![u64::MAX, u64::MAX, u64::MAX, (1 << 38) - 1],
        vec![0, 0, 0, 1 << 37],
    ];
    corners.extend((0..200).map(|_| random_words(&mut rng, 230)));
    for v in &corners {
        d.poke_words(a, v).unwrap();
        let bv = random_words(&mut rng, 70);
        d.poke_words(b, &bv).unwrap();
        // The sum is combinational: visible before the edge.
        let zv = d.peek_words(z).unwrap();
        let sum = (bv[0] as u128 | (bv[1] as u128) << 64) + 1;
        assert_eq!(
            (zv[0] as u128 | (zv[1] as u128) << 64) & ((1 << 70) - 1),
            sum & ((1 << 70) - 1)
        );
        d.step().unwrap();
        assert_eq!(&d.peek_words(y).unwrap(), v);
    }
    // The 10 x 23-bit ports of the thesis blocks, on both simulators: classification takes
    // lc_out (230 bits) and finds the first maximum of the ten signed lanes.
    for backend in REACTIVE {
        let mut d = dut(backend, block("lel_classification"));
        let (lc, en, reset) = (
            d.port("lc_out").unwrap(),
            d.port("en").unwrap(),
            d.port("reset").unwrap(),
        );
        let (class, max, done) = (
            d.port("class_num").unwrap(),
            d.port("max_lc_out").unwrap(),
            d.port("classify_done").unwrap(),
        );
        let lo = -(1i64 << 22);
        let hi = (1i64 << 22) - 1;
        let mut cases: Vec<Vec<i64>> = vec![
            vec![lo; 10],
            vec![hi, lo, lo, lo, lo, lo, lo, lo, lo, hi],
            vec![lo, lo, lo, lo, lo, lo, lo, lo, lo, hi],
            vec![-1, -2, -3, -4, 0, -5, -6, -7, -8, -9],
            vec![-128, -127, 127, -31, 31, 0, 127, 0, -1, 1],
        ];
        for _ in 0..20 {
            cases.push((0..10).map(|_| rng.random_range(lo..=hi)).collect());
        }
        d.poke(reset, 1).unwrap();
        d.step().unwrap();
        d.poke(reset, 0).unwrap();
        for lanes in &cases {
            let words = pack_words(lanes, 23);
            assert_eq!(unpack_words(&words, 23, 10, true), *lanes);
            d.poke_words(lc, &words).unwrap();
            d.poke(en, 1).unwrap();
            d.step().unwrap();
            d.poke(en, 0).unwrap();
            let mut waited = 0;
            while d.peek(done).unwrap() == 0 {
                d.step().unwrap();
                waited += 1;
                assert!(waited < 50, "{backend}: classify_done never rose");
            }
            let (v, i) = classification(lanes);
            assert_eq!(d.peek(class).unwrap() as usize, i, "{backend} {lanes:?}");
            assert_eq!(
                unpack_words(&[d.peek(max).unwrap()], 23, 1, true)[0],
                v,
                "{backend}"
            );
        }
    }
}

/// Front-door write, backdoor read, and the other way round, on cache 2 of the FC0
/// activation cache (read latency 2).
#[test]
fn memory_backdoor_agrees_with_the_front_door() {
    for backend in REACTIVE {
        let mut d = dut(backend, block("lel_cache_x4_act"));
        assert_eq!(
            d.memories()
                .iter()
                .map(|m| m.name.as_str())
                .collect::<Vec<_>>(),
            ["mem$0.mem", "mem$1.mem", "mem$2.mem", "mem$3.mem"]
        );
        let depth = d.memories()[2].depth;
        let [psel, addr0, din, we, addr1, dout] =
            ["p_sel", "addr0", "data_in0", "wr_en", "addr1", "data_out1"]
                .map(|n| d.port(n).unwrap());
        let words: Vec<u64> = (0..depth as u64)
            .map(|i| (i * 0x0101_0101 + 0x8000_007f) & 0xffff_ffff)
            .collect();
        d.load_mem("mem$2.mem", 0, &words).unwrap();
        d.poke(psel, 2).unwrap();
        for (i, &w) in words.iter().enumerate() {
            d.poke(addr1, i as u64).unwrap();
            d.steps(2).unwrap();
            assert_eq!(d.peek(dout).unwrap(), w, "{backend} word {i}");
        }
        // Front door into cache 1; the backdoor reads it, and cache 2 is untouched.
        d.poke(psel, 1).unwrap();
        d.poke(we, 1).unwrap();
        for i in 0..depth {
            d.poke(addr0, i as u64).unwrap();
            d.poke(din, 0xdead_0000 | i as u64).unwrap();
            d.step().unwrap();
        }
        d.poke(we, 0).unwrap();
        d.step().unwrap();
        let got = d.read_mem("mem$1.mem").unwrap();
        assert_eq!(got.len(), depth);
        assert!(
            got.iter()
                .enumerate()
                .all(|(i, &w)| w == 0xdead_0000 | i as u64),
            "{backend}"
        );
        assert_eq!(d.read_mem("mem$2.mem").unwrap(), words, "{backend}");
        // A partial load at an offset.
        d.load_mem("mem$0.mem", depth - 2, &[7, 9]).unwrap();
        let m0 = d.read_mem("mem$0.mem").unwrap();
        assert_eq!(&m0[depth - 3..], &[0, 7, 9], "{backend}");
    }
    // A hand-written design's public memory.
    let mut d = dut(Backend::Verilator, echo());
    d.load_mem("mem", 0, &(0..16).map(|i| 0xf00 | i).collect::<Vec<_>>())
        .unwrap();
    let (raddr, rdata) = (d.port("raddr").unwrap(), d.port("rdata").unwrap());
    d.poke(raddr, 5).unwrap();
    d.step().unwrap();
    assert_eq!(d.peek(rdata).unwrap(), 0xf05);
}

/// Every memory a block declares is public in its Verilator model, and every public array
/// of the model is declared: the two lists cannot drift.
#[test]
fn declared_memories_match_the_verilator_models() {
    use edgelearn_sim::dut::verilator::VerilatorDut;
    let root = simulator().root().to_path_buf();
    for entry in edgelearn_verif::rtl::designs::entries() {
        let mut design = entry.build().unwrap();
        let declared: Vec<(String, usize, usize)> = design
            .memories()
            .into_iter()
            .map(|m| (m.name, m.width, m.depth))
            .collect();
        let d = VerilatorDut::new(&root, design, &DutOptions::default())
            .unwrap_or_else(|e| panic!("{e}"));
        let prefix = format!("TOP.{}_tb.dut", entry.name);
        let mut public: Vec<(String, usize, usize)> = d
            .public_variables()
            .into_iter()
            .filter(|v| v.3 > 0)
            .map(|(scope, name, w, depth)| {
                let rel = scope
                    .strip_prefix(&prefix)
                    .unwrap_or(&scope)
                    .trim_start_matches('.');
                (
                    if rel.is_empty() {
                        name
                    } else {
                        format!("{rel}.{name}")
                    },
                    w,
                    depth,
                )
            })
            .collect();
        public.sort();
        let mut declared = declared;
        declared.sort();
        assert_eq!(public, declared, "{}", entry.name);
    }
}

/// The matmul block driven reactively: random bursts with random gaps between them (one
/// idle cycle at least: a burst is a run of valid rows), each burst's result checked by the
/// scoreboard against the golden matmul, the output pulse's protocol watched.
/// The matmul block's result stream: every output while `valid_out` (no ready).
fn matmul_result(d: &dyn Dut) -> StreamPorts {
    StreamPorts::new(
        d,
        "result",
        "valid_out",
        None,
        &["output_to_fc", "output_to_lc", "relu_mask", "debug_acc"],
    )
    .unwrap()
}

fn matmul_reactive(backend: Backend, bursts: usize, seed: u64) -> (u64, Vec<Vec<u64>>) {
    let mut d = dut(backend, block("lel_matmul"));
    let name = d.name().to_string();
    for (p, v) in [("instr", 1), ("reset", 0), ("alpha_fc", 2), ("alpha_lc", 3)] {
        let id = d.port(p).unwrap();
        d.poke(id, v).unwrap();
    }
    let input = StreamPorts::new(&*d, "rows", "valid_in", None, &["data_in", "weight"]).unwrap();
    let output = matmul_result(&*d);
    let mut src = StreamSource::new(input, Gaps::BetweenPackets { min: 1, max: 9 }, seed);
    let mut sink = StreamSink::new(output.clone(), Backpressure::None, seed + 1);
    let mut board = Scoreboard::new(&name, &output);
    let mut monitor = ProtocolMonitor::new(&*d, vec![output.clone()]);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let cfg = MatmulConfig::THESIS;
    for k in 0..bursts {
        let rows = if k % 5 == 0 {
            600
        } else {
            rng.random_range(1..=40)
        };
        let b = thesis_burst(&mut rng, rows, 2, 3);
        src.push_packet(b.data.iter().zip(&b.weights).map(|(&x, w)| {
            let mut beat = pack_words(&[x], 8);
            beat.extend(pack_words(w, 6));
            beat
        }));
        let r = matmul(&cfg, &b.data, &b.weights, 2, 3);
        let mut want = pack_words(&r.to_fc, 8);
        want.extend(pack_words(&r.to_lc, 8));
        want.push(
            r.relu_mask
                .iter()
                .enumerate()
                .map(|(i, &m)| (m as u64) << i)
                .sum(),
        );
        want.extend(pack_words(&r.acc, 24));
        board.expect(want);
    }
    let mut guard = 0;
    let mut all = Vec::new();
    while board.pending() > 0 {
        {
            let mut agents: [&mut dyn Agent; 3] = [&mut src, &mut sink, &mut monitor];
            tb::cycle(&mut *d, &mut agents).unwrap_or_else(|e| panic!("{e}"));
        }
        for got in sink.take() {
            board
                .check(&got, &[])
                .unwrap_or_else(|e| panic!("{backend}: {e}"));
            all.push(got);
        }
        guard += 1;
        assert!(guard < 100_000_000, "runaway bench");
    }
    board.finish().unwrap();
    assert!(src.is_idle());
    assert_eq!(monitor.transfers(0), bursts as u64);
    (d.cycle(), all)
}

#[test]
fn matmul_reactive_bench_with_random_gaps_and_a_scoreboard() {
    // Verilator: 300 bursts; the native simulator: a few (it runs at about 40 k cycles/s).
    let (cycles, _) = matmul_reactive(Backend::Verilator, 300, 7);
    assert!(cycles > 300 * 20, "{cycles}");
    matmul_reactive(Backend::Native, 6, 8);
}

/// An AXI-Stream FIFO (4 entries) and a broken variant whose `m_tvalid` waits for
/// `m_tready`.
fn fifo(broken: bool) -> Box<dyn Design> {
    let valid = if broken {
        "assign m_tvalid = (count != 0) && m_tready;"
    } else {
        "assign m_tvalid = (count != 0);"
    };
    let v = format!(
        r#"
module axis_fifo(clock, reset, s_tvalid, s_tready, s_tdata, s_tuser, m_tvalid, m_tready, m_tdata, m_tuser);
    input clock, reset, s_tvalid, m_tready;
    input [31:0] s_tdata;
    input [3:0] s_tuser;
    output s_tready, m_tvalid;
    output [31:0] m_tdata;
    output [3:0] m_tuser;
    reg [35:0] q [0:3];
    reg [1:0] head, tail;
    reg [2:0] count;
    wire push = s_tvalid && s_tready;
    wire pop = m_tvalid && m_tready;
    assign s_tready = count != 3'd4;
    {valid}
    assign {{m_tuser, m_tdata}} = q[head];
    always @(posedge clock) begin
        if (reset) begin head <= 0; tail <= 0; count <= 0; end
        else begin
            if (push) begin q[tail] <= {{s_tuser, s_tdata}}; tail <= tail + 2'd1; end
            if (pop) head <= head + 2'd1;
            count <= count + {{2'd0, push}} - {{2'd0, pop}};
        end
    end
endmodule
"#
    );
    let ports = verilog_ports(
        "reset in 1, s_tvalid in 1, s_tready out 1, s_tdata in 32, s_tuser in 4, \
         m_tvalid out 1, m_tready in 1, m_tdata out 32, m_tuser out 4",
    );
    Box::new(VerilogDesign::new("axis_fifo", ports, v))
}

/// The AXI4-Stream port group `NAME_tvalid`, `NAME_tready`, `NAME_tdata`, `NAME_tuser`.
fn axis_stream(d: &dyn Dut, name: &str) -> edgelearn_sim::Result<StreamPorts> {
    let port = |signal: &str| format!("{name}_{signal}");
    StreamPorts::new(
        d,
        name,
        &port("tvalid"),
        Some(&port("tready")),
        &[&port("tdata"), &port("tuser")],
    )
}

/// Beats through a FIFO under random gaps and random back-pressure, both streams watched.
fn fifo_bench(
    design: Box<dyn Design>,
    pressure: Backpressure,
    seed: u64,
) -> edgelearn_sim::Result<usize> {
    let mut d = dut(Backend::Verilator, design);
    let reset = d.port("reset").unwrap();
    d.poke(reset, 1)?;
    d.step()?;
    d.poke(reset, 0)?;
    let s = axis_stream(&*d, "s")?;
    let m = axis_stream(&*d, "m")?;
    let mut src = StreamSource::new(s.clone(), Gaps::Anywhere(0.3), seed);
    let mut sink = StreamSink::new(m.clone(), pressure, seed + 1);
    let mut board = Scoreboard::new("axis_fifo", &m);
    let mut mon = ProtocolMonitor::new(&*d, vec![s, m.clone()]);
    let mut dog = Watchdog::new(&*d, &m, 100);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    for _ in 0..2000 {
        let beat = vec![rng.random::<u32>() as u64, rng.random_range(0..16)];
        src.push(beat.clone());
        board.expect(beat);
    }
    let mut got = 0;
    while board.pending() > 0 {
        let mut agents: [&mut dyn Agent; 3] = [&mut src, &mut sink, &mut mon];
        tb::cycle(&mut *d, &mut agents)?;
        for b in sink.take() {
            board.check(&b, &[])?;
            got += 1;
        }
        dog.check(d.cycle(), got)?;
    }
    board.finish()?;
    Ok(got)
}

#[test]
fn streams_under_random_backpressure_keep_the_axi_rules() {
    for (i, pressure) in [
        Backpressure::Random(0.5),
        Backpressure::Random(0.1),
        Backpressure::AfterValid(0.7),
        Backpressure::None,
    ]
    .into_iter()
    .enumerate()
    {
        assert_eq!(
            fifo_bench(fifo(false), pressure, i as u64).unwrap_or_else(|e| panic!("{e}")),
            2000
        );
    }
    // A FIFO whose valid waits for ready never sends to a sink that waits for valid.
    let e = fifo_bench(fifo(true), Backpressure::AfterValid(1.0), 9).unwrap_err();
    assert!(e.is_failure());
    assert!(
        e.to_string().contains("stream `m`, port `m_tvalid`")
            && e.to_string().contains("valid must not wait for ready"),
        "{e}"
    );
}

#[test]
fn a_wrong_result_names_the_transaction_and_field() {
    let d = dut(Backend::Verilator, block("lel_matmul"));
    let out = matmul_result(&*d);
    let mut board = Scoreboard::new("lel_matmul", &out);
    board.expect(vec![1, 2, 3, 4, 5]);
    board.expect(vec![1, 2, 3, 4, 5]);
    board.check(&[1, 2, 3, 4, 5], &[]).unwrap();
    let e = board.check(&[1, 2, 3, 4, 6], &[]).unwrap_err();
    assert!(e.is_failure());
    assert_eq!(
        e.to_string(),
        "lel_matmul: stream `result`, transaction 1, field `debug_acc`: expected 0x50000000000000004, got 0x60000000000000004"
    );
    assert!(board
        .check(&[0; 5], &[])
        .unwrap_err()
        .to_string()
        .contains("expected nothing more"));
}

/// The protocol monitor catches a source that drops valid, or changes data, while stalled:
/// the echo design's `we` plays valid and `raddr` plays ready (driven by a misbehaving bench).
#[test]
fn protocol_monitor_catches_broken_stream_rules() {
    for (drop_valid, rule) in [
        (true, "valid fell while the beat was stalled"),
        (false, "data changed from 0x5 to 0x6"),
    ] {
        let mut d = dut(Backend::Verilator, echo());
        let s = StreamPorts::new(&*d, "w", "we", None, &["wdata"]).unwrap();
        // A ready that is an output of the design: `n`'s bit 0 toggles every cycle; use
        // rdata (0 at first) so the beat stalls.
        let s = StreamPorts {
            ready: Some(d.port("rdata").unwrap()),
            ..s
        };
        let mut mon = ProtocolMonitor::new(&*d, vec![s]);
        let (we, wdata) = (d.port("we").unwrap(), d.port("wdata").unwrap());
        d.poke(we, 1).unwrap();
        d.poke(wdata, 5).unwrap();
        mon.sample(&mut *d).unwrap();
        d.step().unwrap();
        mon.commit(0).unwrap();
        if drop_valid {
            d.poke(we, 0).unwrap();
        } else {
            d.poke(wdata, 6).unwrap();
        }
        mon.sample(&mut *d).unwrap();
        d.step().unwrap();
        let e = mon.commit(1).unwrap_err();
        assert!(e.is_failure());
        let text = e.to_string();
        assert!(
            text.contains("echo: stream `w`, port `")
                && text.contains("cycle 1")
                && text.contains(rule),
            "{text}"
        );
    }
}

#[test]
fn two_runs_are_identical_and_match_rust_hdl() {
    // Same seeds, same cycles and every output; and the never-reset counter starts at 0.
    let a = matmul_reactive(Backend::Verilator, 20, 99);
    let b = matmul_reactive(Backend::Verilator, 20, 99);
    assert_eq!(a, b);
    let mut d = dut(Backend::Verilator, echo());
    let n = d.port("n").unwrap();
    assert_eq!(d.peek(n).unwrap(), 0);
    d.steps(300).unwrap();
    assert_eq!(d.peek(n).unwrap(), 300 % 256);
    // A stimulus file run through Simulator::run on the in-process model equals rust-hdl's.
    let ports = common::ports("lel_matmul");
    let stim = edgelearn_verif::blocks::matmul::random_stimulus(&ports, 5, 3000).unwrap();
    let sim = simulator();
    let [r1, r2] = [Backend::Verilator, Backend::Native].map(|b| {
        sim.run(b, block("lel_matmul"), &stim, &RunOptions::default())
            .unwrap()
    });
    edgelearn_sim::compare(&r1.trace, &r2.trace).unwrap();
}

#[test]
fn models_run_side_by_side_in_threads() {
    let handles: Vec<_> = (0..4)
        .map(|k| {
            std::thread::spawn(move || {
                if k % 2 == 0 {
                    matmul_reactive(Backend::Verilator, 30, 100 + k).0
                } else {
                    let mut d = dut(Backend::Verilator, echo());
                    let (a, y) = (d.port("a").unwrap(), d.port("y").unwrap());
                    for i in 0..10_000u64 {
                        d.poke_words(a, &[i, !i, i * 3, i & 0xff]).unwrap();
                        d.step().unwrap();
                        assert_eq!(d.peek_words(y).unwrap(), [i, !i, i * 3, i & 0xff]);
                    }
                    d.cycle()
                }
            })
        })
        .collect();
    for h in handles {
        assert!(h.join().unwrap() > 0);
    }
}

#[test]
fn vcd_of_the_in_process_model_has_the_bench_layout() {
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("dut-vcd-{}", std::process::id()));
    let vcd = dir.join("m.vcd");
    let opts = DutOptions {
        vcd: Some(vcd.clone()),
        vcd_depth: Some(1),
        vcd_window: None,
        ungated: false,
    };
    let mut d = simulator()
        .dut(Backend::Verilator, block("lel_matmul"), &opts)
        .unwrap();
    let (v, x) = (d.port("valid_in").unwrap(), d.port("data_in").unwrap());
    for i in 0..50 {
        d.poke(v, (i % 7 != 6) as u64).unwrap();
        d.poke(x, i).unwrap();
        d.step().unwrap();
    }
    d.finish().unwrap();
    drop(d);
    let w = edgelearn_sim::vcd::Waveform::read(&vcd).unwrap();
    let names: Vec<&str> = w.signals.iter().map(|s| s.path.as_str()).collect();
    assert!(
        names.contains(&"TOP.lel_matmul_tb.dut.data_in"),
        "{names:?}"
    );
    assert!(
        names.contains(&"TOP.lel_matmul_tb.dut.output_to_fc"),
        "{names:?}"
    );
    assert_eq!(w.end_time, 500_000);
}

#[test]
fn misuse_is_a_clear_error() {
    for backend in REACTIVE {
        let mut d = dut(backend, block("lel_matmul"));
        let e = d.port("data").unwrap_err().to_string();
        assert!(
            e.contains("no port `data`; the ports are clock, reset, data_in"),
            "{e}"
        );
        let x = d.port("data_in").unwrap();
        let e = d.poke(x, 256).unwrap_err().to_string();
        assert!(
            e.contains("value 0x100 is wider than port `data_in` (8 bits)"),
            "{backend}: {e}"
        );
        let out = d.port("valid_out").unwrap();
        let e = d.poke(out, 1).unwrap_err().to_string();
        assert!(e.contains("is an output"), "{backend}: {e}");
        d.poke(x, 0x81).unwrap();
        assert_eq!(
            d.peek(x).unwrap(),
            0x81,
            "an input reads back what was driven"
        );
        let clk = d.port("clock").unwrap();
        let e = d.poke(clk, 1).unwrap_err().to_string();
        assert!(e.contains("step() drives it"), "{backend}: {e}");
        let acc = d.port("debug_acc").unwrap();
        let e = d.peek(acc).unwrap_err().to_string();
        assert!(e.contains("read it with peek_words"), "{backend}: {e}");
        let e = d.load_mem("mem", 0, &[1]).unwrap_err().to_string();
        assert!(
            e.contains("no memory `mem`; the design declares no memories"),
            "{e}"
        );
        let mut c = dut(backend, block("lel_cache_x4_grad"));
        let e = c
            .load_mem("mem$0.mem", 119, &[1, 2])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("has 120 words; cannot load 2 from word 119"),
            "{e}"
        );
        let e = c.load_mem("mem$0.mem", 0, &[256]).unwrap_err().to_string();
        assert!(e.contains("wider than memory `mem$0.mem` (8 bits)"), "{e}");
        let e = c.read_mem("mem$9.mem").unwrap_err().to_string();
        assert!(e.contains("the memories are mem$0.mem, mem$1.mem"), "{e}");
    }
    // Reactive benches need a reactive simulator.
    let e = simulator()
        .dut(Backend::Icarus, block("lel_matmul"), &DutOptions::default())
        .err()
        .unwrap();
    assert!(
        e.to_string()
            .contains("reactive benches run on native or verilator"),
        "{e}"
    );
}

#[test]
fn cli_errors_for_a_missing_verilator_and_a_failed_cxx_build() {
    use std::os::unix::fs::PermissionsExt;
    use std::process::Command;
    let dir = common::cli::tmp("cli");
    let stim = dir.join("m.csv");
    let exe = &common::cli::exe();
    let out = Command::new(exe)
        .args(["stimulus", "lel_matmul", "--out", stim.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    // `sim` on Verilator with `envs` set, which must fail with exit 2: its standard error.
    let sim_fails = |envs: &[(&str, &str)]| {
        let mut c = Command::new(exe);
        c.args([
            "sim",
            "lel_matmul",
            "--stimulus",
            stim.to_str().unwrap(),
            "--backend",
            "verilator",
            "--cycles",
            "100",
        ]);
        c.env("EDGELEARN_WORK_DIR", dir.join("work"));
        c.env_remove("EDGELEARN_VERILATOR");
        for (k, v) in envs {
            c.env(k, v);
        }
        exited(&c.output().unwrap(), 2, &format!("sim with {envs:?}")).1
    };
    let err = sim_fails(&[("PATH", "/nonexistent")]);
    assert!(
        err.contains("`verilator` is not installed or not on PATH"),
        "{err}"
    );
    // EDGELEARN_VERILATOR naming no file is named in the error.
    let err = sim_fails(&[("EDGELEARN_VERILATOR", "/nonexistent/verilator")]);
    assert!(
        err.contains("EDGELEARN_VERILATOR=/nonexistent/verilator"),
        "{err}"
    );
    // A compiler that fails: its last lines are in the message.
    let cc = dir.join("fakecc");
    std::fs::write(
        &cc,
        "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'fakecc 1.0'; exit 0; fi\n\
         echo 'model.cpp:12:3: error: the compiler says no' >&2\nexit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(&cc, std::fs::Permissions::from_mode(0o755)).unwrap();
    let err = sim_fails(&[("CXX", cc.to_str().unwrap())]);
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        err.contains("cannot build the Verilator model of `lel_matmul`")
            && err.contains("model.cpp:12:3: error: the compiler says no"),
        "{err}"
    );
}
