//! Deterministic sharding: every shard computes the same partition of the whole job list
//! and keeps its own part, so the shards of one plan never talk to each other.

use super::plan::PlanError;
use std::fmt;
use std::str::FromStr;

/// Shard `index` of `count` (1-based, as `sbatch --array=1-N` and CI matrices count).
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Shard {
    /// 1..=count.
    pub index: usize,
    /// Shards in all.
    pub count: usize,
}

impl Shard {
    /// The whole list.
    pub const ALL: Shard = Shard { index: 1, count: 1 };
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = PlanError;

    fn from_str(s: &str) -> Result<Shard, PlanError> {
        let bad = || {
            PlanError(format!(
                "shard `{s}`: write I/N with 1 <= I <= N (e.g. 2/3)"
            ))
        };
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count) = (
            i.trim().parse::<usize>().map_err(|_| bad())?,
            n.trim().parse::<usize>().map_err(|_| bad())?,
        );
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

/// The shard (0-based) of every job, balancing estimated cost: longest job first, each to
/// the shard with the least cost so far (ties to the lowest shard; equal costs in list
/// order). The same costs give the same partition on every machine.
pub fn partition(costs: &[f64], count: usize) -> Vec<usize> {
    assert!(count >= 1, "at least one shard");
    let mut order: Vec<usize> = (0..costs.len()).collect();
    order.sort_by(|&a, &b| costs[b].total_cmp(&costs[a]).then(a.cmp(&b)));
    let mut load = vec![0.0f64; count];
    let mut shard = vec![0; costs.len()];
    for j in order {
        let s = (0..count)
            .min_by(|&x, &y| load[x].total_cmp(&load[y]).then(x.cmp(&y)))
            .expect("count >= 1");
        load[s] += costs[j].max(0.0);
        shard[j] = s;
    }
    shard
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn shard_syntax() {
        assert_eq!(
            "2/3".parse::<Shard>().unwrap(),
            Shard { index: 2, count: 3 }
        );
        for bad in ["0/3", "4/3", "3", "a/b", "1/0", ""] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    #[test]
    fn one_long_job_gets_a_shard_of_its_own() {
        let p = partition(&[100.0, 1.0, 1.0, 1.0, 1.0], 2);
        assert_eq!(p, vec![0, 1, 1, 1, 1]);
    }

    proptest! {
        #[test]
        fn shards_cover_every_job_once_and_balance(
            costs in proptest::collection::vec(0.0f64..100.0, 0..60),
            n in 1usize..8,
        ) {
            let p = partition(&costs, n);
            prop_assert_eq!(p.len(), costs.len());
            prop_assert!(p.iter().all(|&s| s < n));
            // Greedy longest-first: no shard exceeds the mean by more than the longest job.
            let mut load = vec![0.0; n];
            for (j, &s) in p.iter().enumerate() {
                load[s] += costs[j];
            }
            let total: f64 = costs.iter().sum();
            let longest = costs.iter().cloned().fold(0.0, f64::max);
            for l in load {
                prop_assert!(l <= total / n as f64 + longest + 1e-9);
            }
            // Deterministic.
            prop_assert_eq!(partition(&costs, n), p);
        }
    }
}
