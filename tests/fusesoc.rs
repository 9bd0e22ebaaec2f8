//! `edgelearn fusesoc`: the CAPI2 cores it writes, run by the real FuseSoC (`make fusesoc`
//! installs it into build/pyenv): a small block's Icarus simulation and the platform's
//! Verilator lint; a broken design must fail both. Also `--all`, the guard and the errors.

use crate::common;

use common::cli::{edgelearn, root, s, tmp};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

fn text(o: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The FuseSoC that `make fusesoc` installs; a clear failure without it.
fn fusesoc_exe() -> PathBuf {
    let exe = root().join("build/pyenv/bin/fusesoc");
    assert!(
        exe.is_file(),
        "FuseSoC is not installed at {}: `make fusesoc` installs it (make test does)",
        exe.display()
    );
    exe
}

/// `fusesoc --cores-root CORES run --target TARGET edgelearn:lel:NAME`, in `work` (its
/// build/ goes there), with FuseSoC's configuration and caches in `work` too.
fn fusesoc_run(cores: &Path, work: &Path, target: &str, name: &str) -> Output {
    std::fs::create_dir_all(work).unwrap();
    Command::new(fusesoc_exe())
        .args(["--cores-root", s(cores), "run", "--target", target])
        .arg(format!("edgelearn:lel:{name}"))
        .current_dir(work)
        .env("XDG_CONFIG_HOME", work.join("config"))
        .env("XDG_CACHE_HOME", work.join("cache"))
        .env("XDG_DATA_HOME", work.join("data"))
        .output()
        .expect("run fusesoc")
}

/// Writes the cores of `names` into `dir` with `edgelearn fusesoc`.
fn write_cores(dir: &Path, names: &[&str]) {
    let mut args = vec!["fusesoc", "--out", s(dir)];
    args.extend(names);
    let out = edgelearn(&args);
    assert!(out.status.success(), "{}", text(&out));
}

/// The build directory of `name`'s `target` under `work`.
fn build_dir(work: &Path, name: &str, target: &str, tool: &str) -> PathBuf {
    work.join(format!("build/edgelearn_lel_{name}_0.1.0/{target}-{tool}"))
}

#[test]
fn icarus_builds_and_runs_a_small_block_through_fusesoc() {
    let d = tmp("icarus");
    let cores = d.join("cores");
    write_cores(&cores, &["lel_lfsr56"]);
    let work = d.join("work");
    let out = fusesoc_run(&cores, &work, "sim_icarus", "lel_lfsr56");
    assert!(out.status.success(), "{}", text(&out));
    let b = build_dir(&work, "lel_lfsr56", "sim_icarus", "icarus");
    // iverilog's image, and the log vvp writes (-l icarus.log) when it ran it.
    assert!(
        b.join("edgelearn_lel_lel_lfsr56_0.1.0").is_file(),
        "{}",
        text(&out)
    );
    assert!(b.join("icarus.log").is_file(), "{}", text(&out));
    assert!(text(&out).contains("vvp"), "{}", text(&out));
}

#[test]
fn the_platform_lints_through_fusesoc() {
    let d = tmp("lint");
    let cores = d.join("cores");
    write_cores(&cores, &["lel_platform"]);
    let t = Instant::now();
    let out = fusesoc_run(&cores, &d.join("work"), "lint", "lel_platform");
    eprintln!(
        "fusesoc lint of lel_platform: {:.1} s",
        t.elapsed().as_secs_f64()
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("lint-verilator"), "{}", text(&out));
}

/// Both targets really run their tool: a design with a syntax error fails them.
#[test]
fn a_broken_design_fails_simulation_and_lint() {
    let d = tmp("broken");
    let cores = d.join("cores");
    write_cores(&cores, &["lel_lfsr56"]);
    let v = cores.join("lel_lfsr56.v");
    let good = std::fs::read_to_string(&v).unwrap();
    std::fs::write(&v, good.replacen("endmodule", "endmodule oops", 1)).unwrap();
    for (target, work) in [("sim_icarus", "w1"), ("lint", "w2")] {
        let out = fusesoc_run(&cores, &d.join(work), target, "lel_lfsr56");
        assert!(!out.status.success(), "{target} passed a broken design");
    }
}

#[test]
fn every_design_gets_a_valid_core() {
    let d = tmp("all");
    let out = edgelearn(&["fusesoc", "--all", "--out", s(&d)]);
    assert!(out.status.success(), "{}", text(&out));
    let names = edgelearn_verif::rtl::designs::names();
    for n in &names {
        let core = std::fs::read_to_string(d.join(format!("{n}.core"))).unwrap();
        edgelearn_fpga::fusesoc::validate(n, &core).unwrap();
        assert!(d.join(format!("{n}.v")).is_file());
    }
    let cores = std::fs::read_dir(&d)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension() == Some("core".as_ref()))
        .count();
    assert_eq!(cores, names.len());
}

#[test]
fn a_users_core_is_kept_and_bad_names_are_errors() {
    let d = tmp("guard");
    std::fs::write(d.join("lel_loss.core"), "CAPI=2:\nname: me:my:core:1\n").unwrap();
    let out = edgelearn(&["fusesoc", "lel_loss", "--out", s(&d)]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("lel_loss.core"), "{}", text(&out));
    assert!(
        !d.join("lel_loss.v").exists(),
        "nothing is written when one file is refused"
    );
    let out = edgelearn(&["fusesoc", "lel_loss", "--out", s(&d), "--force"]);
    assert!(out.status.success(), "{}", text(&out));
    for args in [vec!["nope"], vec![]] {
        let mut a = vec!["fusesoc", "--out", s(&d)];
        a.extend(args);
        let out = edgelearn(&a);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert!(
            text(&out).contains("valid blocks: arith_check"),
            "{}",
            text(&out)
        );
    }
}
