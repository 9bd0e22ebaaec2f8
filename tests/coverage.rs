//! `edgelearn coverage` (issue 30, code coverage): in-process Verilator models built with
//! coverage write their counts; runs, jobs and shards merge by summing; the lcov file, the
//! HTML and the summary agree and name the holes; Verilator's own `verilator_coverage` reads
//! the merge; bad input is refused.

use crate::common::cli::{edgelearn, read_json, root, run_exit, run_ok, s, tmp};
use serde_json::Value as Json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The subdirectories (model builds) of a raw coverage directory.
fn builds(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    v.sort();
    v
}

/// The counts files of a build directory.
fn counts_files(build: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(build)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "dat"))
        .collect();
    v.sort();
    v
}

/// A Verilator coverage data file as point key -> count.
fn counts(path: &Path) -> BTreeMap<String, u64> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("C '"))
        .map(|l| {
            let (k, c) = l.rsplit_once("' ").unwrap();
            (k.to_string(), c.parse().unwrap())
        })
        .collect()
}

/// The summary of `design` in a coverage report's summary.json.
fn design<'a>(summary: &'a Json, name: &str) -> &'a Json {
    summary
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["design"] == name)
        .unwrap_or_else(|| panic!("no {name} in {summary}"))
}

fn tally(d: &Json, kind: &str) -> (u64, u64) {
    let t = &d["total"][kind];
    (t["covered"].as_u64().unwrap(), t["total"].as_u64().unwrap())
}

#[test]
fn runs_merge_by_summing_and_every_report_names_the_same_holes() {
    let d = tmp("cov");
    let stim = d.join("matmul.csv");
    run_ok(&[
        "stimulus",
        "lel_matmul",
        "--kind",
        "thesis",
        "--out",
        s(&stim),
    ]);
    let raw = d.join("raw");
    let sim = |cov: Option<&Path>| {
        let mut a: Vec<&str> = vec![];
        if let Some(c) = cov {
            a.extend(["--coverage-dir", s(c)]);
        }
        a.extend([
            "sim",
            "lel_matmul",
            "--stimulus",
            s(&stim),
            "--backend",
            "verilator",
        ]);
        run_ok(&a);
    };
    sim(Some(&raw));
    sim(Some(&raw));
    // A run without coverage writes none (and runs the ordinary model).
    sim(None);
    let b = builds(&raw);
    assert_eq!(b.len(), 1, "one model build: {b:?}");
    assert!(b[0].join("lel_matmul.v").is_file());
    let files = counts_files(&b[0]);
    assert_eq!(files.len(), 2, "{files:?}");

    // One run on its own, and both merged.
    let single = d.join("single");
    let sb = single.join(b[0].file_name().unwrap());
    std::fs::create_dir_all(&sb).unwrap();
    std::fs::copy(b[0].join("lel_matmul.v"), sb.join("lel_matmul.v")).unwrap();
    std::fs::copy(&files[0], sb.join("counts-1.dat")).unwrap();
    let one = d.join("one");
    let both = d.join("both");
    run_ok(&["coverage", "merge", s(&single), "--out", s(&one)]);
    let (stdout, _) = run_ok(&["coverage", "merge", s(&raw), "--out", s(&both)]);
    assert!(
        stdout.contains("lel_matmul") && stdout.contains("coverage.info"),
        "{stdout}"
    );
    let (s1, s2) = (
        read_json(&one.join("summary.json")),
        read_json(&both.join("summary.json")),
    );
    let (d1, d2) = (design(&s1, "lel_matmul"), design(&s2, "lel_matmul"));
    assert_eq!(
        (d1["runs"].as_u64(), d2["runs"].as_u64()),
        (Some(1), Some(2))
    );
    // The same stimulus covers the same points; every count doubles.
    assert_eq!(d1["total"], d2["total"]);
    let build = b[0].file_name().unwrap();
    let c1 = counts(&one.join("data").join(build).join("counts-merged.dat"));
    let c2 = counts(&both.join("data").join(build).join("counts-merged.dat"));
    assert_eq!(c1.len(), c2.len());
    assert!(c1.values().any(|c| *c > 0));
    for (k, c) in &c1 {
        assert_eq!(c2[k], 2 * c, "{k}");
    }
    // Every kind has points; the thesis stimulus toggles most bits but not all.
    for kind in ["line", "branch", "toggle"] {
        let (covered, total) = tally(d2, kind);
        assert!(total > 0 && covered <= total, "{kind}: {covered}/{total}");
    }
    let (tc, tt) = tally(d2, "toggle");
    assert!(tc > 0 && tc < tt, "toggles {tc}/{tt}");

    // lcov agrees with the summary's branches; the HTML marks a line for each line or
    // branch hole (and none when there is none).
    let info = std::fs::read_to_string(both.join("coverage.info")).unwrap();
    let sf = format!("SF:data/{}/lel_matmul.v", build.to_string_lossy());
    assert!(info.contains(&sf), "{info}");
    let (bc, bt) = tally(d2, "branch");
    assert!(
        info.contains(&format!("BRF:{bt}\nBRH:{bc}\n")),
        "BRF/BRH {bt}/{bc}:\n{info}"
    );
    let page = std::fs::read_to_string(
        both.join("html")
            .join(format!("{}.html", build.to_string_lossy())),
    )
    .unwrap();
    let misses = page.matches("<tr class=\"miss\">").count();
    let (lc, lt) = tally(d2, "line");
    assert_eq!(misses > 0, lc < lt || bc < bt, "{misses} lines marked");
    let index = std::fs::read_to_string(both.join("html/index.html")).unwrap();
    assert!(index.contains("lel_matmul"));

    // Verilator's own tool reads the merged counts.
    let vc = d.join("vc.info");
    let out = std::process::Command::new("verilator_coverage")
        .arg("--write-info")
        .arg(&vc)
        .arg(both.join("data").join(build).join("counts-merged.dat"))
        .output();
    match out {
        Ok(o) => {
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            let text = std::fs::read_to_string(&vc).unwrap();
            assert!(text.contains("SF:lel_matmul.v"), "{text}");
        }
        Err(e) => panic!("verilator_coverage (make tools installs it): {e}"),
    }

    // Merging a report again reads its merge, not the runs twice.
    let again = d.join("again");
    run_ok(&["coverage", "merge", s(&both), "--out", s(&again)]);
    assert_eq!(read_json(&again.join("summary.json")), s2);
}

/// A two-job regression (two blocks on Verilator, one on rust-hdl's simulator) with its root
/// made absolute.
fn plan(dir: &Path) -> PathBuf {
    let f = dir.join("plan.toml");
    std::fs::write(
        &f,
        format!(
            "[regress]\nname = \"cov\"\nroot = {:?}\n\n\
             [[job]]\nname = \"loss\"\nkind = \"block\"\nblock = \"lel_loss\"\nstimulus = \"thesis\"\nbackend = \"verilator\"\n\n\
             [[job]]\nname = \"cmp\"\nkind = \"block\"\nblock = \"lel_tree_comparator\"\nstimulus = \"random\"\ncycles = 500\nbackend = \"verilator\"\n\n\
             [[job]]\nname = \"native\"\nkind = \"block\"\nblock = \"lel_loss\"\nstimulus = \"thesis\"\nbackend = \"native\"\n",
            root().display().to_string()
        ),
    )
    .unwrap();
    f
}

#[test]
fn a_regression_and_its_shards_give_the_same_coverage() {
    let d = tmp("covreg");
    let p = plan(&d);
    let whole = d.join("whole");
    let run_whole = || {
        run_ok(&[
            "coverage",
            "--regress",
            s(&p),
            "--out",
            s(&whole),
            "--quiet",
        ])
    };
    let (stdout, _) = run_whole();
    assert!(
        stdout.contains("lel_loss") && stdout.contains("lel_tree_comparator"),
        "{stdout}"
    );
    let sw = read_json(&whole.join("summary.json"));
    assert_eq!(sw.as_array().unwrap().len(), 2, "{sw}");
    assert!(whole.join("html/index.html").is_file());
    assert!(whole.join("regress/junit.xml").is_file());

    // Running again resumes the finished jobs: their counts are not added twice.
    run_whole();
    assert_eq!(read_json(&whole.join("summary.json")), sw);

    // Two shards with `regress run --coverage`, merged by `regress merge`.
    for k in ["1/2", "2/2"] {
        let out = d.join(format!("s{}", &k[..1]));
        let o = edgelearn(&[
            "regress",
            "run",
            s(&p),
            "--shard",
            k,
            "--coverage",
            "--out",
            s(&out),
            "--quiet",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let m = d.join("merged");
    run_ok(&[
        "regress",
        "merge",
        s(&d.join("s1")),
        s(&d.join("s2")),
        "--out",
        s(&m),
    ]);
    let sm = read_json(&m.join("coverage/summary.json"));
    for name in ["lel_loss", "lel_tree_comparator"] {
        let (a, b) = (design(&sw, name), design(&sm, name));
        assert_eq!(a["total"], b["total"], "{name}");
        assert_eq!(a["runs"], b["runs"], "{name}");
    }

    // `--test` picks jobs by name.
    let only = d.join("only");
    run_ok(&[
        "coverage",
        "--regress",
        s(&p),
        "--test",
        "cmp",
        "--out",
        s(&only),
        "--quiet",
    ]);
    let so = read_json(&only.join("summary.json"));
    assert_eq!(so.as_array().unwrap().len(), 1, "{so}");
    assert_eq!(so[0]["design"], "lel_tree_comparator");
}

#[test]
fn bad_input_is_refused() {
    let d = tmp("covbad");
    let p = plan(&d);
    let (_, e) = run_exit(&["coverage", "--out", s(&d.join("o"))], 2);
    assert!(e.contains("--regress FILE and/or --test NAME"), "{e}");
    // A directory the user filled is not written into.
    let mine = d.join("mine");
    std::fs::create_dir_all(&mine).unwrap();
    std::fs::write(mine.join("notes.txt"), "mine").unwrap();
    let (_, e) = run_exit(&["coverage", "--regress", s(&p), "--out", s(&mine)], 2);
    assert!(e.contains("not an `edgelearn coverage` output"), "{e}");
    assert_eq!(
        std::fs::read_to_string(mine.join("notes.txt")).unwrap(),
        "mine"
    );
    // No job ran a Verilator model.
    let (_, e) = run_exit(
        &[
            "coverage",
            "--regress",
            s(&p),
            "--test",
            "native",
            "--out",
            s(&d.join("n")),
            "--quiet",
        ],
        2,
    );
    assert!(e.contains("ran no in-process Verilator model"), "{e}");
    let raw = d.join("raw/lel_loss-0123");
    std::fs::create_dir_all(&raw).unwrap();
    std::fs::write(raw.join("lel_loss.v"), "module lel_loss;\nendmodule\n").unwrap();
    std::fs::write(
        raw.join("counts-1.dat"),
        "# SystemC::Coverage-3\nC 'x' 1\nC 'y' lots\n",
    )
    .unwrap();
    // A damaged counts file is named with its line; a missing directory is named.
    for (dir, want) in [("raw", "counts-1.dat:3"), ("nowhere", "nowhere")] {
        let out = d.join(format!("m-{dir}"));
        let (_, e) = run_exit(&["coverage", "merge", s(&d.join(dir)), "--out", s(&out)], 2);
        assert!(e.contains(want), "{e}");
    }
}

/// `block` on `cycles` of random traffic (written to `stim`) on Verilator, its coverage
/// counted under `raw`.
fn random_run(block: &str, cycles: usize, stim: &Path, raw: &Path) {
    let n = cycles.to_string();
    run_ok(&[
        "stimulus",
        block,
        "--kind",
        "random",
        "--cycles",
        &n,
        "--out",
        s(stim),
    ]);
    run_ok(&[
        "--coverage-dir",
        s(raw),
        "sim",
        block,
        "--stimulus",
        s(stim),
        "--backend",
        "verilator",
    ]);
}

/// The spec FSMs' blocks on random traffic: every state reached, every declared transition
/// taken and none that is not declared (so the declarations in `hdl` are the RTL's).
#[test]
fn the_spec_fsms_take_every_declared_transition_and_no_other() {
    let d = tmp("covfsm");
    let raw = d.join("raw");
    let blocks = [
        ("lel_fc_fsm", "FcState"),
        ("lel_pl_fsm", "PlState"),
        ("cnn_layer_seq", "SeqState"),
    ];
    for (block, _) in blocks {
        let stim = d.join(format!("{block}.csv"));
        random_run(block, 3000, &stim, &raw);
    }
    let out = d.join("out");
    let (stdout, _) = run_ok(&["coverage", "merge", s(&raw), "--out", s(&out)]);
    let summary = read_json(&out.join("summary.json"));
    for (block, kind) in blocks {
        let fsms = design(&summary, block)["fsms"].as_array().unwrap().clone();
        let f = fsms
            .iter()
            .find(|f| f["kind"] == kind)
            .unwrap_or_else(|| panic!("{block}: no {kind} FSM in {fsms:?}"));
        let (states, arcs) = (&f["states"], &f["arcs"]);
        assert!(states["total"].as_u64() > Some(2), "{block}: {f}");
        assert_eq!(states["covered"], states["total"], "{block}: {f}");
        assert_eq!(arcs["covered"], arcs["total"], "{block}: {f}");
        assert_eq!(f["undeclared"], serde_json::json!([]), "{block}: {f}");
        assert_eq!(f["bad_states"], 0, "{block}: {f}");
    }
    assert!(
        stdout.contains("FSM FcState state: states 9/9, transitions 17/17"),
        "{stdout}"
    );
}

/// The bins of a FIFO, an LFSR and the learning-rate table on their blocks' random traffic:
/// a FIFO filled and drained reaches every level, an LFSR is reseeded, the table's entries
/// are each named; and a testplan's `cover` items close on them.
#[test]
fn fifo_levels_lfsr_reseeds_and_lr_table_entries_are_counted() {
    let d = tmp("covbins");
    let raw = d.join("raw");
    for block in ["lel_stream_fifo", "lel_wu_group", "lel_pl_regs"] {
        random_run(block, 3000, &d.join(format!("{block}.csv")), &raw);
    }
    let plans = d.join("plans");
    std::fs::create_dir_all(&plans).unwrap();
    std::fs::write(
        plans.join("fifo.md"),
        "# fifo\n\n## Coverage plan\n\nDesigns: `lel_stream_fifo`, `lel_wu_group`\n\n\
         | item | closed by | waiver |\n|---|---|---|\n\
         | `cover top full` | random traffic | |\n| `cover top 3/4` | random traffic | |\n\
         | `cover *lfsr reseed` | random traffic | |\n| `cover top entry0` | not a table | |\n",
    )
    .unwrap();
    let out = d.join("out");
    let (stdout, _) = run_ok(&[
        "coverage",
        "merge",
        s(&raw),
        "--out",
        s(&out),
        "--testplans",
        s(&plans),
    ]);
    let summary = read_json(&out.join("summary.json"));
    let covers = |block: &str| {
        design(&summary, block)["covers"]
            .as_array()
            .unwrap()
            .clone()
    };
    let bins =
        |c: &Json| -> Vec<(String, u64)> { serde_json::from_value(c["bins"].clone()).unwrap() };
    let fifo = &covers("lel_stream_fifo")[0];
    assert_eq!(
        (&fifo["name"], &fifo["kind"]),
        (&Json::from("top"), &Json::from("fifo"))
    );
    let names: Vec<String> = bins(fifo).into_iter().map(|(b, _)| b).collect();
    assert_eq!(names, ["empty", "1/4", "1/2", "3/4", "full"]);
    assert!(bins(fifo).iter().all(|(_, h)| *h > 0), "{fifo}");
    let lfsr = &covers("lel_wu_group")[0];
    assert_eq!(lfsr["kind"], "lfsr");
    assert!(bins(lfsr)[0].1 > 0, "{lfsr}");
    let table = &covers("lel_pl_regs")[0];
    assert_eq!(
        (&table["name"], &table["kind"]),
        (&Json::from("lr_tab"), &Json::from("table"))
    );
    assert_eq!(bins(table).len(), 16, "{table}");
    assert!(bins(table).iter().any(|(_, h)| *h > 0), "{table}");
    assert!(stdout.contains("top (fifo): empty "), "{stdout}");
    assert!(
        stdout.contains("3 of 4 items closed, 0 waived, 0 open, 1 unknown"),
        "{stdout}"
    );
    assert!(stdout.contains("top has no bin entry0"), "{stdout}");
}

/// A stream block on random traffic: both ports beat, stall, pause and idle, and the table
/// says so.
#[test]
fn stream_ports_are_seen_beating_stalling_and_pausing() {
    let d = tmp("covstream");
    let raw = d.join("raw");
    random_run("lel_stream_up2", 2000, &d.join("up2.csv"), &raw);
    let out = d.join("out");
    let (stdout, _) = run_ok(&["coverage", "merge", s(&raw), "--out", s(&out)]);
    let summary = read_json(&out.join("summary.json"));
    let streams = design(&summary, "lel_stream_up2")["streams"]
        .as_array()
        .unwrap()
        .clone();
    let names: Vec<&str> = streams
        .iter()
        .map(|x| x["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["s_t", "m_t"]);
    for x in &streams {
        let hits: Vec<u64> = x["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h.as_u64().unwrap())
            .collect();
        assert!(hits.iter().all(|h| *h > 0), "{x}");
        // One count per edge after reset, at most.
        assert!(hits.iter().sum::<u64>() <= 2001, "{x}");
    }
    assert!(stdout.contains("stream s_t (in): "), "{stdout}");
    // The repository's testplans parse (the default `--testplans docs/blocks`); none is for
    // this block, so no closure is printed.
    assert!(!stdout.contains("testplan "), "{stdout}");

    // A testplan for the block: closed, open, waived and unknown items, reported by name.
    let plans = d.join("plans");
    std::fs::create_dir_all(&plans).unwrap();
    let plan = "# up2\n\n## Coverage plan\n\nDesigns: `lel_stream_up2`\n\n\
        | item | closed by | waiver |\n|---|---|---|\n\
        | `stream s_t stall` | random traffic | |\n| `stream m_t idle` | random traffic | |\n\
        | `line >= 101` | nothing can | |\n| `branch >= 101` | nothing can | waived: a test of waivers |\n\
        | `fsm PlState PL_INF` | not this block | |\n| `toggle s_tvalid` | random traffic | |\n";
    std::fs::write(plans.join("up2.md"), plan).unwrap();
    let out2 = d.join("out2");
    let (stdout, _) = run_ok(&[
        "coverage",
        "merge",
        s(&raw),
        "--out",
        s(&out2),
        "--testplans",
        s(&plans),
    ]);
    let line = stdout
        .lines()
        .find(|l| l.starts_with("testplan "))
        .unwrap_or_default();
    assert!(
        line.contains("(lel_stream_up2): 3 of 6 items closed, 1 waived, 1 open, 1 unknown"),
        "{stdout}"
    );
    assert!(
        stdout.contains("open: line >= 101 (") && stdout.contains("closed by: nothing can)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("unknown: fsm PlState PL_INF (line 13: no PlState FSM"),
        "{stdout}"
    );
    assert!(
        stdout.contains("waived: branch >= 101 (a test of waivers)"),
        "{stdout}"
    );
    let md = std::fs::read_to_string(out2.join("testplans.md")).unwrap();
    assert!(md.contains("3 of 6 items closed"), "{md}");
    // Every bit that did not toggle both ways, by signal, next to the report.
    let untoggled = std::fs::read_dir(&out2)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter(|n| n.starts_with("untoggled-lel_stream_up2-"))
        .count();
    assert_eq!(untoggled, 1);
    // A malformed testplan is an error naming its file and line.
    std::fs::write(plans.join("up2.md"), plan.replace("m_t idle", "m_t nap")).unwrap();
    let (_, e) = run_exit(
        &[
            "coverage",
            "merge",
            s(&raw),
            "--out",
            s(&d.join("out3")),
            "--testplans",
            s(&plans),
        ],
        2,
    );
    assert!(
        e.contains("up2.md:10") && e.contains("`nap` is not a stream bin"),
        "{e}"
    );
}
