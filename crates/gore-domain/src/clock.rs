//! Clocks of games between people (RULES.md, "Games between people"):
//! the time controls, the time each player has left, and when the game
//! must end if the player to act does nothing. Pure arithmetic on the
//! times the actions were committed: the server's [`Clock`] is read by the
//! service, never here, so every figure below follows from its inputs.
//!
//! A game's clocks start once each player has made an action: until then
//! the player to act has [`FIRST_ACTION`] (a Fischer clock) or the days per
//! action (correspondence) to make his first, or the game is aborted, as
//! lichess does. After that, a Fischer clock runs for the player to act and
//! gains its increment after each of his actions; a correspondence game
//! gives each action its days. Whoever is still to act at the deadline
//! loses on time.
//!
//! ```
//! use std::time::Duration;
//! use gore_core::Player;
//! use gore_domain::clock::{clocks, Due, TimeControl};
//!
//! let tc: TimeControl = "3+2".parse().unwrap();
//! // A at 0 s and B at 1 s (their first actions, free), then A at 11 s.
//! let played = [(Player::A, 0), (Player::B, 1_000), (Player::A, 11_000)];
//! let c = clocks(tc, 0, &played, Some(Player::B), 15_000);
//! assert_eq!(c.left, [180_000 - 10_000 + 2_000, 180_000 - 4_000]);
//! assert_eq!(c.running, Some(Player::B));
//! assert_eq!(c.deadline, Some((11_000 + 180_000, Due::Flag(Player::B))));
//! ```

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use gore_core::Player;
use serde::{Deserialize, Serialize};

/// The time a player has for his first action in a game with a Fischer
/// clock, before the game is aborted (lichess gives about as much).
pub const FIRST_ACTION: Duration = Duration::from_secs(30);

/// The paces the app offers in one click (the home page's clocks, the
/// lobby's quick pairing): lichess's common ones for Goré's ~50 decisions
/// a side, and correspondence at 1 and 3 days an action. Each parses as a
/// [`TimeControl`] (a test checks).
pub const PACES: &[&str] = &["3+2", "5+3", "10+5", "15+10", "1d", "3d"];

/// A day, in milliseconds.
const DAY_MS: i64 = 86_400_000;

/// Limits of what a time control may ask: base minutes, increment seconds,
/// days per action.
pub const MAX_BASE_MINUTES: u32 = 180;
/// See [`MAX_BASE_MINUTES`].
pub const MAX_INCREMENT_SECONDS: u32 = 180;
/// See [`MAX_BASE_MINUTES`].
pub const MAX_DAYS: u8 = 14;

/// A game's clock: Fischer (a base and an increment per action) or
/// correspondence (days per action). Written `5+3` (5 minutes, 3 seconds
/// an action) or `3d` (3 days an action).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimeControl {
    /// Base time for each player, plus the increment after each action.
    Fischer {
        /// Each player's time at the start.
        base: Duration,
        /// Added after each of his actions.
        increment: Duration,
    },
    /// So many days for each action.
    Correspondence {
        /// Days per action.
        days: u8,
    },
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeControl::Fischer { base, increment } => {
                write!(f, "{}+{}", base.as_secs() / 60, increment.as_secs())
            }
            TimeControl::Correspondence { days } => write!(f, "{days}d"),
        }
    }
}

impl FromStr for TimeControl {
    type Err = String;

    /// `M+S` (1 to 180 minutes, 0 to 180 seconds) or `Nd` (1 to 14 days);
    /// the error says which part is wrong.
    fn from_str(s: &str) -> Result<TimeControl, String> {
        let s = s.trim();
        if let Some(days) = s.strip_suffix('d') {
            return match days.parse::<u8>() {
                Ok(d) if (1..=MAX_DAYS).contains(&d) => Ok(TimeControl::Correspondence { days: d }),
                _ => Err(format!(
                    "`{s}`: days per action are 1 to {MAX_DAYS}, as `3d`"
                )),
            };
        }
        let Some((m, i)) = s.split_once('+') else {
            return Err(format!(
                "`{s}`: expected minutes+seconds (`5+3`) or days (`3d`)"
            ));
        };
        let minutes = m
            .parse::<u32>()
            .ok()
            .filter(|m| (1..=MAX_BASE_MINUTES).contains(m))
            .ok_or_else(|| format!("`{s}`: the base is 1 to {MAX_BASE_MINUTES} minutes"))?;
        let seconds = i
            .parse::<u32>()
            .ok()
            .filter(|i| *i <= MAX_INCREMENT_SECONDS)
            .ok_or_else(|| {
                format!("`{s}`: the increment is 0 to {MAX_INCREMENT_SECONDS} seconds")
            })?;
        Ok(TimeControl::Fischer {
            base: Duration::from_secs(u64::from(minutes) * 60),
            increment: Duration::from_secs(u64::from(seconds)),
        })
    }
}

impl Serialize for TimeControl {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for TimeControl {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<TimeControl, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// What happens at a game's deadline if the player to act has not acted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Due {
    /// He loses on time.
    Flag(Player),
    /// A player had not made his first action: the game is aborted.
    Abort,
}

/// The clocks of a game at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clocks {
    /// Milliseconds each player has left (A, B), never below 0. In a
    /// correspondence game, the time left for the action of the player to
    /// act, the whole days for the other.
    pub left: [i64; 2],
    /// Whose clock is running (`None` before both players have acted in a
    /// Fischer game, and once the game is over).
    pub running: Option<Player>,
    /// When the game ends if the player to act does nothing, and how.
    pub deadline: Option<(i64, Due)>,
}

/// The clocks of a game under `tc` that started (both seats taken) at
/// `started_at`, after `played` (who acted, when: Unix milliseconds, in
/// order), with `to_act` to act (`None`: the game is over), at `now`.
pub fn clocks(
    tc: TimeControl,
    started_at: i64,
    played: &[(Player, i64)],
    to_act: Option<Player>,
    now: i64,
) -> Clocks {
    clocks_with(tc, [false; 2], started_at, played, to_act, now)
}

/// [`clocks`] where A's and B's `berserk` players (an arena's berserk,
/// RULES.md "Tournaments") have half the base and no increment; a
/// correspondence clock has no berserk.
pub fn clocks_with(
    tc: TimeControl,
    berserk: [bool; 2],
    started_at: i64,
    played: &[(Player, i64)],
    to_act: Option<Player>,
    now: i64,
) -> Clocks {
    let mut acted = [false; 2];
    let mut prev = started_at;
    match tc {
        TimeControl::Fischer { base, increment } => {
            let (base, inc) = (base.as_millis() as i64, increment.as_millis() as i64);
            let mut left = berserk.map(|b| if b { base / 2 } else { base });
            let inc = berserk.map(|b| if b { 0 } else { inc });
            for &(p, at) in played {
                if acted == [true, true] {
                    let i = p.index();
                    left[i] = (left[i] - (at - prev)).max(0) + inc[i];
                }
                acted[p.index()] = true;
                prev = at;
            }
            match to_act {
                Some(q) if acted == [true, true] => {
                    let deadline = prev + left[q.index()];
                    left[q.index()] = (deadline - now).clamp(0, left[q.index()]);
                    Clocks {
                        left,
                        running: Some(q),
                        deadline: Some((deadline, Due::Flag(q))),
                    }
                }
                Some(_) => Clocks {
                    left,
                    running: None,
                    deadline: Some((prev + FIRST_ACTION.as_millis() as i64, Due::Abort)),
                },
                None => Clocks {
                    left,
                    running: None,
                    deadline: None,
                },
            }
        }
        TimeControl::Correspondence { days } => {
            let per = i64::from(days) * DAY_MS;
            for &(p, at) in played {
                acted[p.index()] = true;
                prev = at;
            }
            match to_act {
                Some(q) => {
                    let deadline = prev + per;
                    let mut left = [per; 2];
                    left[q.index()] = (deadline - now).clamp(0, per);
                    let due = if acted == [true, true] {
                        Due::Flag(q)
                    } else {
                        Due::Abort
                    };
                    Clocks {
                        left,
                        running: Some(q),
                        deadline: Some((deadline, due)),
                    }
                }
                None => Clocks {
                    left: [per; 2],
                    running: None,
                    deadline: None,
                },
            }
        }
    }
}

/// The server's time, in Unix milliseconds: the system's, or (tests) a
/// manual one that moves only when told, so that a flag on time is tested
/// without waiting. Cheap to clone; clones share the time.
#[derive(Debug, Clone, Default)]
pub struct Clock(Option<Arc<AtomicI64>>);

impl Clock {
    /// The system's clock.
    pub fn system() -> Clock {
        Clock(None)
    }

    /// A clock standing at `start_ms` until moved.
    pub fn manual(start_ms: i64) -> Clock {
        Clock(Some(Arc::new(AtomicI64::new(start_ms))))
    }

    /// Now, in Unix milliseconds.
    pub fn now_ms(&self) -> i64 {
        match &self.0 {
            None => super::now_ms(),
            Some(t) => t.load(Ordering::SeqCst),
        }
    }

    /// Now as an [`std::time::Instant`], for what counts elapsed time (the
    /// rate limiter): the system's monotonic clock, or a manual clock's
    /// time from a fixed instant, so that a test's requests are as far
    /// apart as the test says, however slow the machine.
    pub fn instant(&self) -> std::time::Instant {
        static BASE: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        match &self.0 {
            None => std::time::Instant::now(),
            Some(t) => {
                let base = *BASE.get_or_init(std::time::Instant::now);
                let ms = u64::try_from(t.load(Ordering::SeqCst)).unwrap_or(0);
                base.checked_add(Duration::from_millis(ms)).unwrap_or(base)
            }
        }
    }

    /// Moves a manual clock forward (the system's is not moved).
    pub fn advance(&self, by: Duration) {
        if let Some(t) = &self.0 {
            t.fetch_add(by.as_millis() as i64, Ordering::SeqCst);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use Player::{A, B};

    const MIN: i64 = 60_000;

    #[test]
    fn time_controls_read_what_they_write_and_name_the_wrong_part() {
        for s in [
            "1+0", "3+2", "5+3", "10+5", "15+10", "180+180", "1d", "3d", "14d",
        ] {
            let tc: TimeControl = s.parse().unwrap();
            assert_eq!(tc.to_string(), s);
        }
        assert_eq!(
            "5+3".parse::<TimeControl>(),
            Ok(TimeControl::Fischer {
                base: Duration::from_secs(300),
                increment: Duration::from_secs(3)
            })
        );
        for (bad, part) in [
            ("0+5", "base"),
            ("181+0", "base"),
            ("x+1", "base"),
            ("5+181", "increment"),
            ("5+-1", "increment"),
            ("0d", "days"),
            ("15d", "days"),
            ("5", "minutes+seconds"),
            ("", "minutes+seconds"),
        ] {
            let e = bad.parse::<TimeControl>().unwrap_err();
            assert!(e.contains(part), "{bad:?}: {e}");
        }
    }

    /// Before both have acted nothing runs: the player to act has 30 s,
    /// counted from the start or from the opponent's first action, then
    /// the game is aborted.
    #[test]
    fn the_first_actions_are_free_and_bounded() {
        let tc: TimeControl = "1+0".parse().unwrap();
        let c = clocks(tc, 1_000, &[], Some(A), 5_000);
        assert_eq!(c.left, [MIN, MIN]);
        assert_eq!(c.running, None);
        assert_eq!(c.deadline, Some((31_000, Due::Abort)));
        // A took 20 s for his first action: not counted.
        let c = clocks(tc, 1_000, &[(A, 21_000)], Some(B), 22_000);
        assert_eq!(c.left, [MIN, MIN]);
        assert_eq!(c.deadline, Some((51_000, Due::Abort)));
    }

    /// Hand arithmetic: 1+2. A 0 s and B 5 s (free). A takes 10 s
    /// (60-10+2 = 52), B 20 s (60-20+2 = 42), A 30 s (52-30+2 = 24); B to
    /// act since 65 s, 7 s gone: 35 left, flag at 65+42 = 107 s.
    #[test]
    fn fischer_clocks_by_hand() {
        let tc: TimeControl = "1+2".parse().unwrap();
        let s = 1_000; // each step is from s
        let played = [
            (A, s),
            (B, s + 5_000),
            (A, s + 15_000),
            (B, s + 35_000),
            (A, s + 65_000),
        ];
        let c = clocks(tc, 0, &played, Some(B), s + 72_000);
        assert_eq!(c.left, [24_000, 35_000]);
        assert_eq!(c.running, Some(B));
        assert_eq!(c.deadline, Some((s + 107_000, Due::Flag(B))));
        // Past the deadline: nothing left, never negative.
        let c = clocks(tc, 0, &played, Some(B), s + 500_000);
        assert_eq!(c.left[B.index()], 0);
        // Over: nothing runs and nothing is due.
        let c = clocks(tc, 0, &played, None, s + 72_000);
        assert_eq!((c.running, c.deadline), (None, None));
        assert_eq!(c.left, [24_000, 42_000]);
    }

    /// An action twice in a row by one player (the answer to an offer,
    /// then his turn) is timed twice, each with its increment.
    #[test]
    fn an_answer_and_the_turn_after_it_are_two_timed_actions() {
        let tc: TimeControl = "1+5".parse().unwrap();
        let played = [(A, 0), (B, 0), (A, 10_000), (B, 13_000), (B, 20_000)];
        let c = clocks(tc, 0, &played, Some(A), 20_000);
        // A: 60-10+5 = 55. B: 60-3+5 = 62, then 62-7+5 = 60.
        assert_eq!(c.left, [55_000, 60_000]);
    }

    /// Correspondence: each action has its days from the last one; a
    /// missing first action aborts, a later one loses on time.
    #[test]
    fn correspondence_days_per_action() {
        let tc: TimeControl = "2d".parse().unwrap();
        let two = 2 * DAY_MS;
        let c = clocks(tc, 0, &[], Some(A), DAY_MS);
        assert_eq!(c.left, [DAY_MS, two]);
        assert_eq!(c.deadline, Some((two, Due::Abort)));
        let c = clocks(tc, 0, &[(A, 5), (B, 7)], Some(A), 7 + 3_600_000);
        assert_eq!(c.left, [two - 3_600_000, two]);
        assert_eq!(c.running, Some(A));
        assert_eq!(c.deadline, Some((7 + two, Due::Flag(A))));
    }

    /// Hand arithmetic: 1+2 with A berserk (30 s, no increment). A 0 s
    /// and B 5 s (free). A takes 10 s (30-10 = 20), B 20 s (60-20+2 =
    /// 42); A to act since 35 s: his flag at 35+20 = 55 s, half of B's
    /// time and without increments.
    #[test]
    fn a_berserk_player_has_half_the_base_and_no_increment() {
        let tc: TimeControl = "1+2".parse().unwrap();
        let c = clocks_with(tc, [true, false], 0, &[], Some(A), 0);
        assert_eq!(c.left, [30_000, MIN]);
        let played = [(A, 0), (B, 5_000), (A, 15_000), (B, 35_000)];
        let c = clocks_with(tc, [true, false], 0, &played, Some(A), 40_000);
        assert_eq!(c.left, [15_000, 42_000]);
        assert_eq!(c.deadline, Some((55_000, Due::Flag(A))));
        // Without berserk: 60-10+2 = 52 for A, flag at 35+52 = 87 s.
        let c = clocks(tc, 0, &played, Some(A), 40_000);
        assert_eq!(c.deadline, Some((87_000, Due::Flag(A))));
    }

    #[test]
    fn the_paces_offered_are_time_controls_from_fast_to_correspondence() {
        use crate::rating::Pace;
        let paces: Vec<Pace> = PACES
            .iter()
            .map(|p| p.parse::<TimeControl>().unwrap().pace())
            .collect();
        // 3+2: 3 min + 50 × 2 s = 4:40; 5+3: 7:30 (fast); 10+5: 14:10.
        assert_eq!(
            paces,
            [
                Pace::Fast,
                Pace::Fast,
                Pace::Slow,
                Pace::Slow,
                Pace::Correspondence,
                Pace::Correspondence
            ]
        );
    }

    #[test]
    fn a_manual_clock_moves_only_when_told() {
        let c = Clock::manual(1_000);
        let shared = c.clone();
        assert_eq!(c.now_ms(), 1_000);
        shared.advance(Duration::from_millis(2_500));
        assert_eq!(c.now_ms(), 3_500);
        assert!(Clock::system().now_ms() > 1_700_000_000_000);
    }

    proptest! {
        /// Whatever the moves: the running clock's time left is its
        /// deadline minus now; a player's time only goes down while his
        /// clock runs; and the sum of what each has left plus what they
        /// used equals the bases plus the increments earned (a naive count,
        /// independent of the loop above).
        #[test]
        fn fischer_time_is_conserved(
            gaps in proptest::collection::vec((0..2usize, 0i64..20_000), 2..40),
            wait in 0i64..30_000,
        ) {
            let tc: TimeControl = "1+3".parse().unwrap();
            let mut t = 0;
            let mut played = Vec::new();
            for (p, gap) in &gaps {
                t += gap;
                played.push((Player::ALL[*p], t));
            }
            // The naive model, assuming no one ran out.
            let first = |p: Player| played.iter().position(|x| x.0 == p);
            let (Some(fa), Some(fb)) = (first(A), first(B)) else { return Ok(()) };
            let timed_from = fa.max(fb) + 1;
            let mut used = [0i64; 2];
            let mut earned = [0i64; 2];
            let mut ran_out = false;
            for k in timed_from..played.len() {
                let (p, at) = played[k];
                used[p.index()] += at - played[k - 1].1;
                // Out of time before this action's increment came.
                ran_out |= MIN + earned[p.index()] - used[p.index()] < 0;
                earned[p.index()] += 3_000;
            }
            let to_act = Player::ALL[gaps.len() % 2];
            let now = t + wait;
            let c = clocks(tc, 0, &played, Some(to_act), now);
            if !ran_out {
                for i in 0..2 {
                    let running = if Player::ALL[i] == to_act { now - t } else { 0 };
                    prop_assert_eq!(c.left[i], (MIN + earned[i] - used[i] - running).max(0));
                }
            }
            let (deadline, due) = c.deadline.unwrap();
            prop_assert_eq!(due, Due::Flag(to_act));
            prop_assert_eq!(c.left[to_act.index()], (deadline - now).max(0));
        }
    }
}
