//! The order in which AI workers take the turns due (issue 37): the same
//! fairness as the pools' ([`super::FairQueue`]), by each address's recent
//! search as the store keeps it, so that it holds across any number of
//! workers.
//!
//! Each address's search is recorded in milliseconds, fading by half
//! every [`HALF_LIFE_MS`] of time. The turns are taken round by round
//! (each address's oldest turn due, then each one's second…), and within a
//! round the address that searched least lately goes first. An address
//! with no record (a new one) counts the median of those recorded among
//! the addresses waiting (30 s at most), and goes before them at equal
//! search: not ahead of an established one that searched less, however
//! many new ones come (as [`super::FairQueue`] starts a new key).

use std::collections::HashMap;

use crate::storage::DueTurn;

/// A recorded search halves every this many milliseconds.
pub const HALF_LIFE_MS: i64 = 60_000;
/// A new address counts this much search at most (the pools' start of a
/// new key, [`super::FairQueue::NEW_AT_MOST`]): a flood's heavy median is
/// not put on a newcomer.
pub const NEW_AT_MOST_MS: f64 = 30_000.0;

/// `ms` recorded at `at`, faded to `now`.
pub fn faded(ms: f64, at: i64, now: i64) -> f64 {
    let age = (now - at).max(0) as f64;
    ms * (-age / HALF_LIFE_MS as f64).exp2()
}

/// `due` (as the store lists it: by round, then age) in the order a worker
/// takes it: by round, then by the address's faded search (`usage`, by
/// address; missing: new), then as listed. A turn without an address
/// counts as a new address's.
pub fn fair_order(due: Vec<DueTurn>, usage: &HashMap<String, f64>) -> Vec<DueTurn> {
    fair_order_by(due, |t| (t.round, t.client.as_deref()), usage)
}

/// [`fair_order`] of any jobs, each with its round and address as `of`
/// reads them (the board's analyses as the AI's turns).
pub fn fair_order_by<T>(
    mut due: Vec<T>,
    of: impl Fn(&T) -> (u32, Option<&str>),
    usage: &HashMap<String, f64>,
) -> Vec<T> {
    let clients: std::collections::BTreeSet<&str> = due.iter().filter_map(|t| of(t).1).collect();
    let mut known: Vec<f64> = clients
        .iter()
        .filter_map(|c| usage.get(*c))
        .copied()
        .collect();
    known.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    let new = known
        .get(known.len().saturating_sub(1) / 2)
        .map_or(0.0, |m| m.min(NEW_AT_MOST_MS));
    // (round, search, established): at equal search a new address first.
    let rank = |t: &T| {
        let (round, client) = of(t);
        match client.and_then(|c| usage.get(c)) {
            Some(ms) => (round, *ms, true),
            None => (round, new, false),
        }
    };
    // A stable sort: ties keep the store's order (the older first).
    due.sort_by(|a, b| {
        rank(a)
            .partial_cmp(&rank(b))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    due
}

/// `due` (each job's round and address) in the workers' order: round by
/// round, the address that searched least lately first, its search read
/// from `store` (unread: logged, and the rounds in the order listed).
/// The AI's turns, the board's analyses and the reviews are taken so.
pub async fn workers_order<T>(
    store: &dyn crate::storage::Store,
    due: Vec<T>,
    of: impl Fn(&T) -> (u32, &str),
    now: i64,
) -> Vec<T> {
    let usage = match read(store, due.iter().map(|j| of(j).1), now).await {
        Ok(usage) => usage,
        Err(e) => {
            tracing::warn!("cannot read the addresses' searches: {e}");
            Default::default()
        }
    };
    fair_order_by(
        due,
        |j| {
            let (round, client) = of(j);
            (round, Some(client))
        },
        &usage,
    )
}

/// The faded search at `now` of each address of `clients` the store has a
/// record of (the others are new).
pub async fn read<'a>(
    store: &dyn crate::storage::Store,
    clients: impl IntoIterator<Item = &'a str>,
    now: i64,
) -> Result<HashMap<String, f64>, crate::storage::StoreError> {
    let clients: std::collections::BTreeSet<&str> = clients.into_iter().collect();
    let rows = store
        .ai_usage(clients.into_iter().map(String::from).collect())
        .await?;
    Ok(rows
        .into_iter()
        .map(|(c, ms, at)| (c, faded(ms, at, now)))
        .collect())
}

/// Records that address `client` searched `ms` just now (`now`): added to
/// its faded record in the store, for the workers' order. (Two workers
/// charging one address at once may lose one of the two: the order is
/// approximate, never wrong by more than a search.)
pub async fn charge(store: &dyn crate::storage::Store, client: String, ms: f64, now: i64) {
    let before = match store.ai_usage(vec![client.clone()]).await {
        Ok(rows) => rows
            .into_iter()
            .next()
            .map_or(0.0, |(_, ms, at)| faded(ms, at, now)),
        Err(e) => {
            tracing::warn!("the search of {client} not read: {e}");
            return;
        }
    };
    if let Err(e) = store.set_ai_usage(client.clone(), before + ms, now).await {
        tracing::warn!("the search of {client} not recorded: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Ply;

    fn turn(game: &str, client: &str, round: u32) -> DueTurn {
        DueTurn {
            game: game.into(),
            ply: Ply::ZERO,
            client: Some(client.into()),
            round,
        }
    }

    #[test]
    fn a_search_fades_by_half_each_half_life() {
        assert_eq!(faded(1000.0, 0, 0), 1000.0);
        assert_eq!(faded(1000.0, 0, HALF_LIFE_MS), 500.0);
        assert_eq!(faded(1000.0, 0, 3 * HALF_LIFE_MS), 125.0);
        // A record from the future (another machine's clock): not grown.
        assert_eq!(faded(1000.0, 10, 0), 1000.0);
    }

    /// Issue 37, worked by hand: twenty flood addresses F0..F19 searched
    /// 10 s each lately, the innocent I 1 s; new addresses N0..N2 none on
    /// record. The store lists the first round oldest first: the flood's
    /// turns (older), then I's, then the new ones'. The median of the 21
    /// known is 10 s (under the 30 s cap): each new address counts 10 s,
    /// before the flood at equal search. So round one goes I (1 s), N0,
    /// N1, N2, then the flood in their order; round two (I's second, F0's)
    /// after all of it.
    #[test]
    fn the_least_searched_address_goes_first_in_each_round() {
        let mut due = Vec::new();
        let mut usage = HashMap::new();
        for f in 0..20 {
            due.push(turn(&format!("f{f}"), &format!("F{f}"), 1));
            usage.insert(format!("F{f}"), 10_000.0);
        }
        due.push(turn("i", "I", 1));
        usage.insert("I".into(), 1_000.0);
        for n in 0..3 {
            due.push(turn(&format!("n{n}"), &format!("N{n}"), 1));
        }
        due.push(turn("f0b", "F0", 2));
        due.push(turn("ib", "I", 2));
        let order: Vec<String> = fair_order(due, &usage)
            .into_iter()
            .map(|t| t.game)
            .collect();
        let mut want = vec!["i"];
        let flood: Vec<String> = (0..20).map(|f| format!("f{f}")).collect();
        want.extend(["n0", "n1", "n2"]);
        want.extend(flood.iter().map(String::as_str));
        want.extend(["ib", "f0b"]);
        assert_eq!(order, want);
    }

    /// With flooders served and waiting beside him, an innocent who
    /// searched a little goes before the new addresses (they count the
    /// flooders' median, 10 s, and he 300 ms), though their turns are
    /// older.
    #[test]
    fn new_addresses_do_not_pass_an_established_one() {
        let mut usage = HashMap::new();
        usage.insert("I".to_string(), 300.0);
        usage.insert("F0".to_string(), 10_000.0);
        usage.insert("F1".to_string(), 10_000.0);
        let due = vec![
            turn("n0", "N0", 1),
            turn("n1", "N1", 1),
            turn("f0", "F0", 1),
            turn("f1", "F1", 1),
            turn("i", "I", 1),
        ];
        let order: Vec<String> = fair_order(due, &usage)
            .into_iter()
            .map(|t| t.game)
            .collect();
        assert_eq!(order, ["i", "n0", "n1", "f0", "f1"]);
    }
}

#[cfg(test)]
mod cap_tests {
    use super::*;
    use crate::Ply;

    /// A newcomer beside one heavy flooder (ten minutes of search lately)
    /// counts 30 s, not the flooder's ten minutes: he goes first.
    #[test]
    fn a_newcomer_is_not_given_a_flooders_search() {
        let turn = |game: &str, client: &str| DueTurn {
            game: game.into(),
            ply: Ply::ZERO,
            client: Some(client.into()),
            round: 1,
        };
        let usage = HashMap::from([("F".to_string(), 600_000.0)]);
        let order: Vec<String> = fair_order(vec![turn("f", "F"), turn("n", "N")], &usage)
            .into_iter()
            .map(|t| t.game)
            .collect();
        assert_eq!(order, ["n", "f"]);
    }
}
