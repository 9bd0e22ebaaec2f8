//! `edgelearn formal`: SymbiYosys proofs of the stream blocks and the AXI4-Lite slave, and
//! of their seeded mutants (`edgelearn_fpga::formal`).

use super::regress::default_jobs;
use crate::cli::FormalArgs;
use anyhow::Context;
use edgelearn_fpga::formal::{self, Outcome, Props, Target, Verdict};
use std::process::ExitCode;

pub fn run(a: FormalArgs) -> anyhow::Result<ExitCode> {
    let all = formal::targets();
    if a.list {
        list(&all);
        return Ok(ExitCode::SUCCESS);
    }
    let targets: Vec<Target> = match a.all {
        true => all,
        false => a
            .targets
            .iter()
            .map(|n| formal::target(n))
            .collect::<Result<_, _>>()?,
    };
    let tools = formal::Tools::find()?;
    formal::prepare_out(&a.out)?;
    let jobs = formal::jobs(&targets, a.mutants);
    let threads = a.jobs.map_or_else(default_jobs, |j| j as usize);
    eprintln!(
        "formal: {} proofs on {} threads into {}",
        jobs.len(),
        threads.min(jobs.len()),
        a.out.display()
    );
    let done = |r: &Result<Outcome, formal::FormalError>| {
        if let Ok(o) = r {
            eprintln!("  {}", line(o));
        }
    };
    let depth = a.depth.map(|d| d as usize);
    let results = formal::prove_all(&jobs, depth, &a.out, &tools, threads, &done);
    let mut outcomes = Vec::new();
    for r in results {
        outcomes.push(r?);
    }
    println!("{}", table(&outcomes));
    let path = a.out.join("summary.json");
    let json = serde_json::to_string_pretty(&summary(&outcomes))?;
    std::fs::write(&path, json + "\n")
        .with_context(|| format!("cannot write {}", path.display()))?;
    let bad = outcomes.iter().filter(|o| !o.ok()).count();
    if bad > 0 {
        eprintln!(
            "formal: {bad} of {} failed (a proof with a counterexample, or a mutant no property caught)",
            outcomes.len()
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

fn list(targets: &[Target]) {
    for t in targets {
        let kind = match t.props {
            Props::Stream(_) => "AXI-Stream rules, beat order, counts",
            Props::AxiLite { .. } => {
                "AXI4-Lite slave rules, one response per request, byte strobes"
            }
        };
        println!("{:<14} {} [{kind}; depth {}]", t.name, t.summary, t.depth);
        for m in t.mutants {
            println!("  mutant {:<20} {}", m.name, m.breaks);
        }
    }
}

fn name(o: &Outcome) -> String {
    match &o.mutant {
        Some(m) => format!("{} mutant {m}", o.target),
        None => o.target.clone(),
    }
}

fn result(o: &Outcome) -> String {
    match (&o.verdict, &o.mutant) {
        (Verdict::Proved, None) => format!("proved ({}-induction)", o.depth),
        (Verdict::Bounded, None) => format!(
            "bounded: no counterexample in {} cycles (the induction does not close)",
            o.depth
        ),
        (Verdict::Failed { property, trace }, None) => format!(
            "FAILED: {property}{}",
            trace
                .as_ref()
                .map(|t| format!(" (trace {})", t.display()))
                .unwrap_or_default()
        ),
        (Verdict::Failed { property, .. }, Some(_)) => format!("killed: {property}"),
        (_, Some(_)) => format!("SURVIVED: no property failed in {} cycles", o.depth),
    }
}

fn line(o: &Outcome) -> String {
    format!("{}: {} [{:.1} s]", name(o), result(o), o.seconds)
}

fn table(outcomes: &[Outcome]) -> String {
    let mut s = String::from("| proof | result | depth | seconds |\n|---|---|---:|---:|\n");
    for o in outcomes {
        s += &format!(
            "| {} | {} | {} | {:.1} |\n",
            name(o),
            result(o),
            o.depth,
            o.seconds
        );
    }
    s
}

fn summary(outcomes: &[Outcome]) -> serde_json::Value {
    let rows: Vec<serde_json::Value> = outcomes
        .iter()
        .map(|o| {
            let (verdict, property) = match &o.verdict {
                Verdict::Proved => ("proved", None),
                Verdict::Bounded => ("bounded", None),
                Verdict::Failed { property, .. } => ("failed", Some(property.clone())),
            };
            serde_json::json!({
                "target": o.target,
                "mutant": o.mutant,
                "verdict": verdict,
                "property": property,
                "ok": o.ok(),
                "depth": o.depth,
                "seconds": o.seconds,
                "dir": o.dir,
            })
        })
        .collect();
    serde_json::json!({ "generator": "edgelearn formal", "proofs": rows })
}
