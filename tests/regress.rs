//! `edgelearn regress` (issue 17): a regression file run as 3 shards and merged gives the
//! verdicts of the unsharded run, with valid JUnit XML; a stopped shard resumes; a missing
//! shard is named; bad regression files are refused naming the job and key; the shipped
//! nightly plan is valid; training checkpoints resume bit-exactly.

use crate::common;

use common::cli::{edgelearn, root, s, tmp};
use edgelearn_verif::datasets::mnist;
use edgelearn_verif::lel::config::PlatformConfig;
use edgelearn_verif::lel::train::{train_with, Checkpoints, Mode, TrainState};
use quick_xml::events::Event;
use serde_json::Value as Json;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Output;

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn code(o: &Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

/// The `weights_sha256` line a training command prints.
fn weights_sha(o: &Output) -> String {
    stdout(o)
        .lines()
        .find_map(|l| l.strip_prefix("weights_sha256 ").map(String::from))
        .unwrap_or_else(|| {
            panic!(
                "no weights_sha256 in the output: {}{}",
                stdout(o),
                stderr(o)
            )
        })
}

fn json(p: &Path) -> Json {
    let text = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&text).unwrap()
}

/// regress/smoke.toml with its root made absolute (so it can live in a tmp dir), plus `extra`.
fn smoke_with(dir: &Path, extra: &str) -> PathBuf {
    let text = std::fs::read_to_string(root().join("regress/smoke.toml")).unwrap();
    let text = text.replacen(
        "root = \"..\"",
        &format!("root = {:?}", root().display().to_string()),
        1,
    );
    let f = dir.join("smoke.toml");
    std::fs::write(&f, text + extra).unwrap();
    f
}

/// A job whose pinned answer is wrong: the regression must fail, and say where.
const WRONG_PIN: &str = r#"
[[job]]
name = "cnn/t-conv1d/golden-wrong-pin"
kind = "cnn"
case = "t-conv1d"
output_sha256 = "0000000000000000000000000000000000000000000000000000000000000000"
"#;

/// Per job: verdict, exit code, and which checks held.
fn verdicts(summary: &Json) -> BTreeMap<String, (String, Json, Vec<bool>)> {
    summary["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let checks = r["checks"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["ok"].as_bool().unwrap())
                .collect();
            (
                r["id"].as_str().unwrap().to_string(),
                (
                    r["verdict"].as_str().unwrap().to_string(),
                    r["exit_code"].clone(),
                    checks,
                ),
            )
        })
        .collect()
}

/// JUnit XML, parsed: testcase name -> "pass", "failure" or "error"; and the root's counts.
fn junit(p: &Path) -> (BTreeMap<String, String>, BTreeMap<String, String>) {
    let xml = std::fs::read_to_string(p).unwrap();
    let mut reader = quick_xml::Reader::from_str(&xml);
    let mut cases = BTreeMap::new();
    let mut top = BTreeMap::new();
    let mut current: Option<String> = None;
    let attr = |e: &quick_xml::events::BytesStart, k: &str| -> String {
        e.try_get_attribute(k)
            .unwrap()
            .map(|a| {
                a.normalized_value(quick_xml::XmlVersion::Explicit1_0)
                    .unwrap()
                    .into_owned()
            })
            .unwrap_or_default()
    };
    let mut depth = 0;
    loop {
        match reader
            .read_event()
            .unwrap_or_else(|e| panic!("{}: not XML: {e}", p.display()))
        {
            Event::Start(e) | Event::Empty(e) => {
                let name = e.name().as_ref().to_string();
                match name.as_str() {
                    "testsuites" => {
                        for k in ["tests", "failures", "errors"] {
                            top.insert(k.to_string(), attr(&e, k));
                        }
                    }
                    "testcase" => {
                        let n = attr(&e, "name");
                        assert!(!attr(&e, "classname").is_empty());
                        assert!(attr(&e, "time").parse::<f64>().is_ok());
                        cases.insert(n.clone(), "pass".to_string());
                        current = Some(n);
                    }
                    "failure" | "error" => {
                        let c = current.clone().expect("failure inside a testcase");
                        cases.insert(c, name.clone());
                    }
                    _ => {}
                }
                depth += 1;
            }
            Event::End(_) => {}
            Event::Eof => break,
            _ => {}
        }
    }
    assert!(depth > 0, "{}: empty", p.display());
    (cases, top)
}

fn run_shard(file: &Path, shard: Option<&str>, out: &Path) -> Output {
    let mut args = vec![
        "regress",
        "run",
        s(file),
        "--out",
        s(out),
        "--jobs",
        "2",
        "--quiet",
    ];
    if let Some(sh) = shard {
        args.extend(["--shard", sh]);
    }
    edgelearn(&args)
}

/// Run a Slurm recipe script as Slurm would (`bash SCRIPT ARGS` with the task's
/// environment), with this build of edgelearn.
fn slurm(script: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
    let exe = common::cli::exe();
    let mut c = std::process::Command::new("bash");
    c.arg(script)
        .args(args)
        .current_dir(root())
        .env("EDGELEARN", exe)
        .env("SLURM_CPUS_PER_TASK", "2")
        .env(
            "EDGELEARN_WORK_DIR",
            PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("edgelearn"),
        );
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run bash")
}

#[test]
fn three_shards_merge_to_the_verdicts_of_the_unsharded_run() {
    let d = tmp("shards");
    let file = smoke_with(&d, WRONG_PIN);

    // The unsharded run: one job fails, so the run exits 1.
    let all = d.join("all");
    let o = run_shard(&file, None, &all);
    assert_eq!(code(&o), 1, "{}{}", stdout(&o), stderr(&o));
    let whole = json(&all.join("summary.json"));
    let want = verdicts(&whole);
    assert_eq!(want.len(), 38);
    let failed: Vec<&String> = want
        .iter()
        .filter(|(_, v)| v.0 != "pass")
        .map(|(k, _)| k)
        .collect();
    assert_eq!(failed, vec!["cnn/t-conv1d/golden-wrong-pin"]);
    // The failure says which check, and what it got (the digest of the real output).
    let bad = whole["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["verdict"] == "fail")
        .unwrap();
    let msg = bad["message"].as_str().unwrap();
    assert!(msg.contains("sha256(report.json#/output)"), "{msg}");
    assert!(msg.contains("d82f290cdd9e01ad"), "{msg}");
    assert!(all.join(bad["log"].as_str().unwrap()).is_file());

    // Three shards, each run by the Slurm recipe as array task I of 3: disjoint, together
    // the whole list; only the one with the bad job fails.
    let slurm_out = d.join("slurm");
    let mut planned = BTreeSet::new();
    let mut dirs = vec![];
    for i in 1..=3 {
        let out = slurm_out.join(format!("shard-{i}"));
        let o = slurm(
            "regress/slurm/shard.sbatch",
            &["3"],
            &[
                ("SLURM_ARRAY_TASK_ID", &i.to_string()),
                ("REGRESS", s(&file)),
                ("OUT", s(&slurm_out)),
            ],
        );
        let sum = json(&out.join("summary.json"));
        let ids: Vec<String> = sum["planned"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        assert!(!ids.is_empty(), "shard {i} has no jobs");
        let has_bad = ids.iter().any(|id| id.ends_with("wrong-pin"));
        assert_eq!(
            code(&o),
            if has_bad { 1 } else { 0 },
            "shard {i}: {}",
            stderr(&o)
        );
        for id in ids {
            assert!(planned.insert(id.clone()), "{id} planned twice");
        }
        dirs.push(out);
    }
    assert_eq!(planned, want.keys().cloned().collect::<BTreeSet<_>>());

    // The recipe's merge job.
    let merged = slurm_out.join("merged");
    let o = slurm("regress/slurm/merge.sbatch", &[], &[("OUT", s(&slurm_out))]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(
        stdout(&o).contains("38 jobs, 37 passed, 1 failed, 0 errors"),
        "{}",
        stdout(&o)
    );
    let m = json(&merged.join("summary.json"));
    assert_eq!(verdicts(&m), want, "merged shards vs the unsharded run");
    // Logs are named relative to the merged report and exist.
    for r in m["results"].as_array().unwrap() {
        assert!(merged.join(r["log"].as_str().unwrap()).is_file(), "{r}");
    }

    // JUnit: valid XML, the same test cases and verdicts either way.
    let (cases, top) = junit(&merged.join("junit.xml"));
    let (cases_all, top_all) = junit(&all.join("junit.xml"));
    assert_eq!(cases, cases_all);
    assert_eq!(cases.len(), 38);
    assert_eq!(cases["cnn/t-conv1d/golden-wrong-pin"], "failure");
    assert_eq!(top, top_all);
    assert_eq!(top["failures"], "1");
    let md = std::fs::read_to_string(merged.join("summary.md")).unwrap();
    assert!(
        md.contains("## Failures") && md.contains("golden-wrong-pin"),
        "{md}"
    );
    assert!(md.contains("| 3/3 |"), "{md}");

    // A shard stopped mid-way resumes: only the jobs without a result run again.
    let again = &dirs[1];
    let sum = json(&again.join("summary.json"));
    let victim = sum["results"][0]["log"]
        .as_str()
        .unwrap()
        .replace("log.txt", "result.json");
    std::fs::remove_file(again.join(&victim)).unwrap();
    let o = run_shard(&file, Some("2/3"), again);
    assert!(stderr(&o).contains("resumed, 1 to run"), "{}", stderr(&o));
    let resumed = json(&again.join("summary.json"));
    let fresh: Vec<&Json> = resumed["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["resumed"] == false)
        .collect();
    assert_eq!(fresh.len(), 1);
    let mut args = vec!["regress", "merge"];
    args.extend(dirs.iter().map(|p| s(p)));
    args.extend(["--out", s(&merged)]);
    let o = edgelearn(&args.iter().copied().chain(["--force"]).collect::<Vec<_>>());
    assert_eq!(code(&o), 1);
    assert_eq!(verdicts(&json(&merged.join("summary.json"))), want);

    // A shard that never reported: its jobs are errors, and the report names the shard.
    let o = edgelearn(&["regress", "merge", s(&dirs[0]), s(&dirs[1])]);
    assert_eq!(code(&o), 1);
    let text = stdout(&o);
    assert!(text.contains("not run: no results of shard 3/3"), "{text}");
    // The same shard twice, or shards of two plans, are not merged.
    let o = edgelearn(&["regress", "merge", s(&dirs[0]), s(&dirs[0])]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("shard 1/3 is given twice"),
        "{}",
        stderr(&o)
    );
    let o = edgelearn(&["regress", "merge", s(&dirs[0]), s(&all)]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("split the plan differently"),
        "{}",
        stderr(&o)
    );
    // The merged report is not overwritten without --force.
    let o = edgelearn(&args);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("use --force"), "{}", stderr(&o));
}

#[test]
fn bad_regression_files_are_refused_naming_the_job_and_key() {
    let d = tmp("bad");
    let head = format!("[regress]\nroot = {:?}\n", root().display().to_string());
    let cases: &[(&str, &str)] = &[
        ("[[job]]\nname = \"x\"\nkind = \"block\"\nblok = \"lel_loss\"\n", "job `x`: unknown field `blok`"),
        ("[[job]]\nname = \"x\"\nkind = \"blocks\"\n", "job `x`: `kind` is `blocks`; one of block"),
        ("[[job]]\nname = \"x\"\nkind = \"block\"\nblock = \"lel_loss\"\nbackend = \"modelsim\"\n", "`backend`: unknown variant `modelsim`"),
        (
            "[[job]]\nname = \"x\"\nkind = \"cli\"\nargs = [\"blocks\"]\n[[job]]\nname = \"x\"\nkind = \"cli\"\nargs = [\"blocks\"]\n",
            "job `x` appears twice",
        ),
        (
            "[[job]]\nname = \"t\"\nkind = \"train\"\nconfig = \"configs/nope.toml\"\ndata = \"data/mnist-10k\"\n",
            "job `t`: `config` names configs/nope.toml, which does not exist",
        ),
        ("[[job]]\nname = \"a/{nope}\"\nkind = \"cli\"\nargs = [\"blocks\"]\n", "uses `{nope}`"),
        ("[[job]]\nname = \"c\"\nkind = \"cnn\"\ncase = \"t-nothing\"\n", "`case` is `t-nothing`, which"),
        ("[[job]]\nname = \"m\"\nkind = \"block\"\nblock = \"lel_loss\"\nmatrix = { seed = [] }\n", "`matrix.seed` is empty"),
        ("[[job]]\nname = \"e\"\nkind = \"cli\"\nargs = [\"blocks\"]\nexpect = \"maybe\"\n", "`expect`: unknown variant `maybe`"),
        ("[[job]]\nname = \"k\"\nkind = \"cli\"\nargs = [\"blocks\"]\nchecks = [{ pointer = \"/a\" }]\n", "give `equals`, `min`"),
        ("[[job]\nname = 1\n", "smoke.toml"),
        ("[regres]\n", "unknown top-level key `regres`"),
        (
            "[[job]]\nname = \"k\"\nkind = \"cli\"\nargs = [\"blocks\"]\nchecks = [{ file = \"../../x.json\", min = 1 }]\n",
            "must be a file of the job's directory",
        ),
    ];
    for (body, want) in cases {
        let f = d.join("smoke.toml");
        std::fs::write(&f, format!("{head}{body}")).unwrap();
        let o = edgelearn(&["regress", "list", s(&f)]);
        assert_eq!(code(&o), 2, "{body}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(want),
            "{body}: want {want:?}, got {}",
            stderr(&o)
        );
        assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    }
    // A shard out of range; an output directory that is someone else's.
    let file = smoke_with(&d, "");
    let o = edgelearn(&[
        "regress",
        "run",
        s(&file),
        "--shard",
        "4/3",
        "--out",
        s(&d.join("o")),
    ]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("write I/N"), "{}", stderr(&o));
    let theirs = d.join("theirs");
    std::fs::create_dir_all(&theirs).unwrap();
    std::fs::write(theirs.join("notes.txt"), "mine").unwrap();
    let o = edgelearn(&["regress", "run", s(&file), "--out", s(&theirs)]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("not a `regress run` output"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read_to_string(theirs.join("notes.txt")).unwrap(),
        "mine"
    );
    let o = edgelearn(&["regress", "merge", s(&theirs)]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("summary.json"), "{}", stderr(&o));
}

#[test]
fn a_job_over_its_time_is_stopped_and_reported_as_an_error() {
    let d = tmp("timeout");
    let f = d.join("t.toml");
    std::fs::write(
        &f,
        format!(
            "[regress]\nname = \"t\"\nroot = {:?}\n[[job]]\nname = \"train/long\"\nkind = \"train\"\nconfig = \"configs/thesis-cifar10.toml\"\ndata = \"data/mnist-10k\"\nepochs = 5\ntimeout = 0.5\n",
            root().display().to_string()
        ),
    )
    .unwrap();
    let out = d.join("o");
    let o = run_shard(&f, None, &out);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let sum = json(&out.join("summary.json"));
    let r = &sum["results"][0];
    assert_eq!(r["verdict"], "error");
    assert!(r["message"].as_str().unwrap().contains("timed out"), "{r}");
    assert!(r["seconds"].as_f64().unwrap() < 20.0, "{r}");
    let (cases, _) = junit(&out.join("junit.xml"));
    assert_eq!(cases["train/long"], "error");
}

#[test]
fn the_nightly_plan_is_valid_and_its_shards_cover_it() {
    let o = edgelearn(&["regress", "list", "regress/nightly.toml", "--shards", "8"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let text = stdout(&o);
    let mut per = BTreeMap::new();
    let mut kinds = BTreeSet::new();
    for l in text.lines().skip(1) {
        let f: Vec<&str> = l.split_whitespace().collect();
        *per.entry(f[3].to_string()).or_insert(0) += 1;
        kinds.insert(f[1].to_string());
    }
    assert_eq!(per.len(), 8, "{per:?}");
    let total: usize = per.values().sum();
    assert!(total > 300, "{total} jobs");
    for k in [
        "block", "cnn", "core", "platform", "train", "finetune", "cli",
    ] {
        assert!(kinds.contains(k), "nightly has no `{k}` job");
    }
    // Its known-answer jobs pass as written (golden model and engine RTL), and so do its
    // refusals.
    let d = tmp("nightly");
    let out = d.join("o");
    let o = edgelearn(&[
        "regress",
        "run",
        "regress/nightly.toml",
        "--filter",
        "t-conv1d/",
        "--out",
        s(&out),
        "--quiet",
    ]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let sum = json(&out.join("summary.json"));
    assert_eq!(sum["results"].as_array().unwrap().len(), 2);
    let out = d.join("refuse");
    let o = edgelearn(&[
        "regress",
        "run",
        "regress/nightly.toml",
        "--filter",
        "refuse/",
        "--out",
        s(&out),
        "--quiet",
    ]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
}

/// MNIST's first `n` training images and first 50 test images.
fn small_mnist(
    n: usize,
) -> (
    edgelearn_verif::datasets::ImageSet,
    edgelearn_verif::datasets::ImageSet,
) {
    let data = mnist::load(&root().join("data/mnist-10k")).unwrap();
    (data.train.truncated(n), data.test.truncated(50))
}

#[test]
fn training_resumes_mid_epoch_bit_exactly() {
    let cfg = PlatformConfig::from_toml(
        &std::fs::read_to_string(root().join("configs/mnist.toml")).unwrap(),
    )
    .unwrap();
    let (train, test) = small_mnist(120);
    let run = |ck: Option<Checkpoints<'_>>| {
        train_with(&cfg, Mode::BitExact, &train, &test, 2, ck, &mut |_| {}).unwrap()
    };
    let (whole, _) = run(None);
    // Every state a checkpointed run hands out.
    let mut states = vec![];
    let mut save = |s: &TrainState| {
        states.push(s.clone());
        Ok(())
    };
    let ck = Checkpoints {
        resume: None,
        every: 25,
        save: &mut save,
    };
    let (same, _) = run(Some(ck));
    assert_eq!(same.weights_sha256, whole.weights_sha256);
    // 4 within each epoch (25, 50, 75, 100) and one at each epoch's end.
    assert_eq!(states.len(), 10);
    assert!(states.iter().any(|s| s.epoch == 2 && s.done == 75));
    // Continue from each: the same weights and test accuracies as the run never stopped.
    for st in &states {
        let mut ignore = |_: &TrainState| Ok(());
        let ck = Checkpoints {
            resume: Some(st.clone()),
            every: 25,
            save: &mut ignore,
        };
        let (r, _) = run(Some(ck));
        assert_eq!(
            r.weights_sha256, whole.weights_sha256,
            "from epoch {} image {}",
            st.epoch, st.done
        );
        for (a, b) in r.epochs.iter().zip(&whole.epochs) {
            assert_eq!(
                a.train_accuracy, b.train_accuracy,
                "from epoch {} image {}",
                st.epoch, st.done
            );
            assert_eq!(a.test_accuracy, b.test_accuracy);
        }
    }
    // A state of another run (another seed) is refused.
    let mut other = cfg.clone();
    other.seed += 1;
    let mut ignore = |_: &TrainState| Ok(());
    let ck = Checkpoints {
        resume: Some(states[3].clone()),
        every: 0,
        save: &mut ignore,
    };
    let e = train_with(
        &other,
        Mode::BitExact,
        &train,
        &test,
        2,
        Some(ck),
        &mut |_| {},
    )
    .unwrap_err();
    assert!(e.0.contains("another run"), "{e}");
}

#[test]
fn a_killed_training_run_resumes_from_its_checkpoint() {
    let d = tmp("ckpt");
    let ck = d.join("train.ckpt");
    let base = [
        "train",
        "--config",
        "configs/mnist.toml",
        "--data",
        "data/mnist-10k",
        "--images",
        "3000",
        "--test-images",
        "20",
        "--quiet",
    ];
    let o = edgelearn(&base);
    assert!(o.status.success(), "{}", stderr(&o));
    let sha = weights_sha;
    let want = sha(&o);
    // Start it, and kill it once it has written a checkpoint.
    let mut args: Vec<&str> = base.to_vec();
    args.extend(["--checkpoint", s(&ck), "--checkpoint-every", "100"]);
    let mut child = std::process::Command::new(common::cli::exe())
        .current_dir(root())
        .args(&args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let t = std::time::Instant::now();
    while !ck.exists() && t.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let state = json(&ck);
    eprintln!("killed at epoch {} image {}", state["epoch"], state["done"]);
    // Started again with the same arguments: it resumes and ends where the uninterrupted
    // run did.
    let o = edgelearn(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("resuming from"), "{}", stderr(&o));
    assert_eq!(sha(&o), want);
    // A checkpoint of this run does not continue another one.
    let mut other = args.clone();
    other.extend(["--seed", "7"]);
    let o = edgelearn(&other);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("belongs to another run"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_rerun_resumes_its_own_checkpoint_and_never_another_jobs() {
    let d = tmp("resume");
    let f = d.join("t.toml");
    let write = |epochs: u32| {
        std::fs::write(
            &f,
            format!(
                "[regress]\nname = \"t\"\nroot = {:?}\n[[job]]\nname = \"train/mnist\"\nkind = \"train\"\nconfig = \"configs/mnist.toml\"\ndata = \"data/mnist-10k\"\nimages = 64\ntest_images = 50\nepochs = {epochs}\n",
                root().display().to_string()
            ),
        )
        .unwrap()
    };
    let out = d.join("o");
    let log = || {
        let sum = json(&out.join("summary.json"));
        std::fs::read_to_string(out.join(sum["results"][0]["log"].as_str().unwrap())).unwrap()
    };
    write(2);
    let o = run_shard(&f, None, &out);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(!log().contains("resuming from"));
    let sha = json(&out.join("summary.json"))["results"][0]["fingerprint"].clone();
    // The attempt was interrupted after its checkpoint, before its result: the job runs
    // again and continues from its own checkpoint.
    let dir = out.join(
        json(&out.join("summary.json"))["results"][0]["log"]
            .as_str()
            .unwrap()
            .replace("/log.txt", ""),
    );
    std::fs::remove_file(dir.join("result.json")).unwrap();
    let o = run_shard(&f, None, &out);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(log().contains("resuming from"), "{}", log());
    assert_eq!(
        json(&out.join("summary.json"))["results"][0]["fingerprint"],
        sha
    );
    // The job changed (1 epoch now): its old directory, with the 2-epoch checkpoint, is
    // discarded, not resumed.
    write(1);
    let o = run_shard(&f, None, &out);
    assert_eq!(code(&o), 0, "{}{}", stderr(&o), log());
    assert!(!log().contains("resuming from"), "{}", log());
}

#[test]
fn a_platform_run_resumes_from_its_epoch_checkpoint_bit_exactly() {
    let d = tmp("platform-ckpt");
    let ck = d.join("platform.ckpt");
    let common = [
        "--config",
        "configs/mnist.toml",
        "--data",
        "data/mnist-10k",
        "--images",
        "16",
        "--test-images",
        "8",
        "--quiet",
    ];
    let sha = weights_sha;
    let run = |extra: &[&str]| {
        let mut args = vec!["platform", "train"];
        args.extend(common);
        args.extend(extra);
        edgelearn(&args)
    };
    // The golden model's weights after 2 epochs.
    let mut g = vec!["train"];
    g.extend(common);
    g.extend(["--epochs", "2"]);
    let golden = edgelearn(&g);
    assert!(golden.status.success(), "{}", stderr(&golden));
    // One epoch on the RTL, checkpointed; then the run is asked for two: it re-INITs the
    // platform with the saved weights and weight-update LFSR states and trains epoch 2,
    // every image checked against the golden model.
    let o = run(&["--epochs", "1", "--checkpoint", s(&ck)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&["--epochs", "2", "--checkpoint", s(&ck), "--check-golden"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("resuming from"), "{}", stderr(&o));
    assert!(
        !stderr(&o).contains("epoch 1:"),
        "epoch 1 ran again: {}",
        stderr(&o)
    );
    assert_eq!(sha(&o), sha(&golden));
    // The checkpoint of this run does not continue another one.
    let o = run(&["--epochs", "2", "--checkpoint", s(&ck), "--seed", "3"]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("belongs to another run"),
        "{}",
        stderr(&o)
    );
}
