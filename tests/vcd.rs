//! Waveforms: every backend writes a VCD, the three VCDs of the thesis matmul bench diff as
//! equal, a one-bit flip at one cycle is found at exactly that signal and cycle, golden
//! traces check VCDs, plots are drawn, VCDs of designs from elsewhere are read, and FSTs
//! read as the VCDs of the same runs.

use crate::common;
use common::cli::{argv, run_exit, run_ok, s, tmp};

use std::path::Path;
use std::process::Command;

/// `edgelearn vcd diff A B OPTIONS` (the options split at whitespace), which must end with
/// exit code `code` (0: equal, 1: they differ): its standard output.
fn vcd_diff(a: &Path, b: &Path, options: &str, code: i32) -> String {
    let mut args = vec!["vcd", "diff", s(a), s(b)];
    args.extend(options.split_whitespace());
    run_exit(&args, code).0
}

/// `edgelearn vcd show FILE --signals SIGNALS OPTIONS` (the options split at whitespace),
/// which must succeed: its standard output, the table.
fn vcd_show(file: &Path, signals: &str, options: &str) -> String {
    let mut args = vec!["vcd", "show", s(file), "--signals", signals];
    args.extend(options.split_whitespace());
    run_ok(&args).0
}

/// Flip bit `bit` of `signal` (a vector `$var` in `scope`) for the one cycle whose rising
/// clock edge is at `t`, by inserting a change at `t` and restoring the old value just after.
fn flip_one_cycle(vcd: &str, scope_leaf: &str, signal: &str, t: u64, bit: usize) -> String {
    let w = edgelearn_sim::vcd::Waveform::parse(vcd.as_bytes()).unwrap();
    let i = w.find(&format!("{scope_leaf}.{signal}")).unwrap();
    let width = w.signals[i].width as usize;
    let old = match w.value_at(i, t).unwrap() {
        edgelearn_sim::vcd::Val::Bits(b) => b.clone(),
        v => panic!("{v:?}"),
    };
    let mut flipped: Vec<char> = old.chars().collect();
    let k = width - 1 - bit;
    flipped[k] = if flipped[k] == '1' { '0' } else { '1' };
    let flipped: String = flipped.into_iter().collect();
    // The identifier code of the variable.
    let decl = vcd
        .lines()
        .find(|l| l.contains("$var") && l.split_whitespace().nth(4) == Some(signal))
        .expect("declaration");
    let code = decl.split_whitespace().nth(3).unwrap();
    let mut out = String::new();
    let mut done = false;
    let mut lines = vcd.lines().peekable();
    while let Some(l) = lines.next() {
        out.push_str(l);
        out.push('\n');
        if !done && l == format!("#{t}") {
            // Skip this timestamp's own changes, then add ours and the restore.
            while let Some(n) = lines.peek() {
                if n.starts_with('#') {
                    break;
                }
                out.push_str(lines.next().unwrap());
                out.push('\n');
            }
            out.push_str(&format!("b{flipped} {code}\n#{}\nb{old} {code}\n", t + 1));
            done = true;
        }
    }
    assert!(done, "no timestamp {t}");
    out
}

#[test]
fn thesis_matmul_vcds_agree_across_backends_and_a_flipped_bit_is_found() {
    let d = tmp("matmul");
    let vcd = |name: &str| d.join(format!("{name}.vcd"));
    let stim = d.join("m.csv");
    run_ok(&argv(
        "stimulus lel_matmul --kind thesis --seed 920 --out",
        &[s(&stim)],
    ));
    for b in ["native", "icarus", "verilator"] {
        run_ok(&argv(
            &format!("sim lel_matmul --backend {b} --vcd-depth 1 --check --stimulus"),
            &[s(&stim), "--vcd", s(&vcd(b))],
        ));
    }
    for (a, b) in [
        ("native", "icarus"),
        ("icarus", "verilator"),
        ("native", "verilator"),
    ] {
        let out = vcd_diff(&vcd(a), &vcd(b), "", 0);
        assert!(
            out.contains("compared 13 signals at 1210 clock edges") && out.contains("equal"),
            "{a} vs {b}: {out}"
        );
    }
    // A full-depth native VCD (every internal signal) still matches on the ports.
    run_ok(&argv(
        "sim lel_matmul --backend native --stimulus",
        &[s(&stim), "--vcd", s(&vcd("all"))],
    ));
    let out = vcd_diff(&vcd("all"), &vcd("icarus"), "", 0);
    assert!(out.contains("equal"), "{out}");

    // Flip bit 3 of output_to_fc at the rising edge of cycle 700 in the Icarus VCD.
    let icarus = std::fs::read_to_string(vcd("icarus")).unwrap();
    let t = 700 * 10_000 + 5_000;
    let flipped = flip_one_cycle(&icarus, "lel_matmul_tb.dut", "output_to_fc", t, 3);
    std::fs::write(vcd("flipped"), flipped).unwrap();
    for other in ["native", "verilator"] {
        let text = vcd_diff(&vcd(other), &vcd("flipped"), "", 1);
        assert!(
            text.contains(
                "first divergence: signal lel_matmul_tb.dut.output_to_fc, cycle 700 (time 7005000"
            ),
            "{text}"
        );
        assert!(
            text.contains("dut.output_to_fc: 1 differing cycles"),
            "{text}"
        );
        assert_eq!(
            text.matches("differing cycles").count(),
            1,
            "only that signal: {text}"
        );
    }

    // Golden trace: every VCD checks, the flipped one fails at that port and cycle.
    let golden = d.join("golden.json");
    run_ok(&argv(
        "golden lel_matmul --stimulus",
        &[s(&stim), "--out", s(&golden)],
    ));
    let check = |name: &str, code: i32| {
        run_exit(
            &["vcd", "check", s(&vcd(name)), "--golden", s(&golden)],
            code,
        )
        .0
    };
    for b in ["native", "icarus", "verilator"] {
        let out = check(b, 0);
        assert!(out.contains("matches the golden trace"), "{b}: {out}");
    }
    // Cycle 700 is outside any valid_out window, so its data is undefined there; flip at the
    // cycle where the first burst's results come out instead.
    let t = 602 * 10_000 + 5_000;
    std::fs::write(
        vcd("flipped2"),
        flip_one_cycle(&icarus, "lel_matmul_tb.dut", "output_to_fc", t, 3),
    )
    .unwrap();
    let text = check("flipped2", 1);
    assert!(
        text.contains("first mismatch: port output_to_fc, cycle 602"),
        "{text}"
    );

    // Plots of the diff window.
    for ext in ["svg", "png"] {
        let pic = d.join(format!("wave.{ext}"));
        run_ok(&argv(
            "vcd plot --signals clock,valid_in,data_in,valid_out,output_to_fc \
             --from 6950000 --to 7060000 --clock clock --out",
            &[s(&pic), s(&vcd("flipped"))],
        ));
        let bytes = std::fs::read(&pic).unwrap();
        if ext == "png" {
            assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        } else {
            let text = String::from_utf8_lossy(&bytes);
            assert!(
                text.contains("output_to_fc")
                    && text.contains("valid_out")
                    && text.contains("<svg")
            );
        }
    }
    // show: the rising-edge table lists the flipped value at cycle 700 only.
    let out = vcd_show(
        &vcd("flipped"),
        "output_to_fc",
        "--clock clock --from 6985000 --to 7015000",
    );
    let rows: Vec<&str> = out.lines().skip(1).collect();
    assert_eq!(rows.len(), 4, "{out}");
    let at = |cycle: &str| {
        rows.iter()
            .find(|r| r.split_whitespace().nth(1) == Some(cycle))
            .unwrap()
            .split_whitespace()
            .nth(2)
            .unwrap()
    };
    assert_ne!(at("700"), at("699"), "{out}");
    assert_eq!(at("699"), at("701"), "{out}");
}

/// A design from elsewhere (hand-written Verilog, its own bench) under Icarus and Verilator.
#[test]
fn vcds_of_other_designs_are_read_and_diffed() {
    let d = tmp("other");
    let src = r#"
`timescale 1ns/100ps
module counter #(parameter WIDTH = 8) (input clk, input rst, input en, output reg [WIDTH-1:0] count,
    output wire wrap, output wire bus);
  reg [3:0] state;
  assign wrap = (count == 8'hff) & en;
  assign bus = en ? 1'bz : 1'b0;
  always @(posedge clk) begin
    if (rst) begin count <= 8'd0; state <= 4'd0; end
    else if (en) begin count <= count + 8'd1; state <= state ^ count[3:0]; end
  end
endmodule
module top_tb;
  reg clk = 0, rst = 1, en = 0;
  wire [7:0] count; wire wrap; wire bus;
  integer i;
  real level;
  counter u(.clk(clk), .rst(rst), .en(en), .count(count), .wrap(wrap), .bus(bus));
  initial begin
    $dumpfile("out.vcd");
    $dumpvars(0, top_tb);
    for (i = 0; i < 300; i = i + 1) begin
      #3 rst = (i < 2); en = (i % 7 != 3); level = i * 0.5;
      #2 clk = 1;
      #5 clk = 0;
    end
    $finish;
  end
endmodule
"#;
    std::fs::write(d.join("top.v"), src).unwrap();
    let run = |cmd: &mut Command| {
        let o = cmd.current_dir(&d).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    run(Command::new("iverilog").args(["-g2012", "-o", "t.vvp", "top.v"]));
    run(Command::new("vvp").args(["-n", "t.vvp"]));
    std::fs::rename(d.join("out.vcd"), d.join("icarus.vcd")).unwrap();
    run(Command::new("verilator").args([
        "--binary",
        "--timing",
        "--trace",
        "-Wno-fatal",
        "-Wno-lint",
        "--top-module",
        "top_tb",
        "top.v",
        "-Mdir",
        "obj",
    ]));
    run(&mut Command::new(d.join("obj/Vtop_tb")));
    std::fs::rename(d.join("out.vcd"), d.join("verilator.vcd")).unwrap();
    let (icarus, verilator) = (d.join("icarus.vcd"), d.join("verilator.vcd"));
    let (list, _) = run_ok(&["vcd", "list", s(&icarus)]);
    assert!(
        list.contains("count") && list.contains("8 bits") && list.contains("timescale 100ps"),
        "{list}"
    );
    assert!(
        list.contains("integer") && list.contains(" reg") && list.contains("real"),
        "{list}"
    );
    // Icarus keeps the tri-stated wire at z; Verilator (2-state) has 0: the diff says so.
    let text = vcd_diff(&icarus, &verilator, "--clock clk", 1);
    assert!(
        text.contains("top_tb.bus, cycle 0") && text.contains("A: z") && text.contains("B: 0"),
        "{text}"
    );
    let out = vcd_diff(
        &icarus,
        &verilator,
        "--clock clk --signals count,wrap,state",
        0,
    );
    assert!(
        out.contains("equal") && out.contains("at 300 clock edges"),
        "{out}"
    );
    // x and z values are shown as such.
    let show = vcd_show(&icarus, "u.bus", "--clock clk --to 200");
    assert!(
        show.lines()
            .skip(1)
            .any(|l| l.split_whitespace().nth(2) == Some("z")),
        "{show}"
    );
    let show = vcd_show(&icarus, "u.state", "--to 10");
    assert!(
        show.lines().nth(1).unwrap().contains("bxxxx"),
        "the register is x until the reset edge: {show}"
    );
    // After reset (edges 0 and 1) the counter counts the enabled cycles.
    let show = vcd_show(&icarus, "u.count,wrap", "--clock clk --to 600");
    assert!(show.lines().nth(3).unwrap().contains("0x1"), "{show}");
}

#[test]
fn malformed_vcds_are_errors_with_line_numbers() {
    let d = tmp("bad");
    let bad = d.join("bad.vcd");
    std::fs::write(&bad, "$timescale 1ns $end\n$scope module t $end\n$var wire 1 ! clk $end\n$upscope $end\n$enddefinitions $end\n#0\n0!\n#5\nq!\n").unwrap();
    let (_, err) = run_exit(&["vcd", "list", s(&bad)], 2);
    assert!(err.contains("line 9"), "{err}");
    assert!(!err.contains("panicked"));
    run_exit(&["vcd", "diff", s(&bad), s(&d.join("missing.vcd"))], 2);
}

/// The in-process Verilator model writes FST when the file is named `.fst`: a fraction of
/// the VCD's size, and `vcd list|show|diff|check` read it as they read the VCD of the same
/// run (equal at every edge); another run's FST differs where it should; a backend that
/// writes VCD only refuses an FST; a cut or corrupt FST is an error, not a panic.
#[test]
fn fst_waveforms_read_as_their_vcds_and_are_smaller() {
    let d = tmp("fst");
    let block = "lel_stream_fifo";
    let stim = |seed: &str| {
        let f = d.join(format!("s{seed}.csv"));
        run_ok(&[
            "stimulus",
            block,
            "--kind",
            "random",
            "--cycles",
            "3000",
            "--seed",
            seed,
            "--out",
            s(&f),
        ]);
        f
    };
    let (s1, s2) = (stim("1"), stim("2"));
    let sim = |st: &Path, wave: &Path, backend: &str, code: i32| {
        let args = [
            "sim",
            block,
            "--stimulus",
            s(st),
            "--backend",
            backend,
            "--vcd",
            s(wave),
        ];
        run_exit(&args, code)
    };
    let (vcd, fst, other) = (d.join("a.vcd"), d.join("a.fst"), d.join("b.fst"));
    sim(&s1, &vcd, "verilator", 0);
    sim(&s1, &fst, "verilator", 0);
    sim(&s2, &other, "verilator", 0);
    let size = |p: &Path| std::fs::metadata(p).unwrap().len();
    assert!(
        size(&fst) * 4 < size(&vcd),
        "{} vs {}",
        size(&fst),
        size(&vcd)
    );
    let names = |p: &Path| -> Vec<String> {
        run_ok(&["vcd", "list", s(p)])
            .0
            .lines()
            .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
            .collect()
    };
    assert_eq!(
        names(&vcd),
        names(&fst),
        "the same scopes, signals and widths"
    );
    let out = vcd_diff(&vcd, &fst, "", 0);
    assert!(
        out.contains("equal") && out.contains("at 3001 clock edges"),
        "{out}"
    );
    assert_eq!(
        vcd_show(&vcd, "count,out_valid", "--clock clock --to 2000000"),
        vcd_show(&fst, "count,out_valid", "--clock clock --to 2000000")
    );
    let diff = vcd_diff(&fst, &other, "", 1);
    assert!(diff.contains("in_data") || diff.contains("push"), "{diff}");
    // Against the golden trace, as a VCD is checked.
    let golden = d.join("golden.json");
    run_ok(&["golden", block, "--stimulus", s(&s1), "--out", s(&golden)]);
    let (ok, _) = run_ok(&["vcd", "check", s(&fst), "--golden", s(&golden)]);
    assert!(ok.contains("matches the golden trace"), "{ok}");
    // Only the in-process Verilator model writes FST.
    let (_, e) = sim(&s1, &d.join("c.fst"), "icarus", 2);
    assert!(
        e.contains("FST is written by the in-process Verilator model"),
        "{e}"
    );
    // A cut FST and a corrupt one: errors naming the file.
    let bytes = std::fs::read(&fst).unwrap();
    let cut = d.join("cut.fst");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let mut corrupt = bytes.clone();
    for i in (300..corrupt.len()).step_by(997) {
        corrupt[i] ^= 0x5a;
    }
    let bad = d.join("corrupt.fst");
    std::fs::write(&bad, &corrupt).unwrap();
    for f in [&cut, &bad] {
        let (_, e) = run_exit(&["vcd", "list", s(f)], 2);
        assert!(
            e.contains("not a readable FST") && !e.contains("panicked"),
            "{e}"
        );
    }
}
