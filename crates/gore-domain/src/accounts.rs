//! Accounts, optional: a username (a display name, unique up to
//! look-alikes) and a password hashed with argon2id. Signing up, logging in
//! and changing the password each rotate the browser session (a new secret
//! cookie; the old one no longer opens the account); signing up moves the
//! anonymous player's games to the account. Log-in attempts are limited per
//! account and per address, and a log-in refused says the same whether the
//! username exists or not, in about the same time (a hash is checked
//! either way).

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use super::clock::Clock;
use super::names::{keys, Name};
use super::passwords::{Passwords, Ticket};
use super::{new_token, GameError, Said};
use crate::storage::{Store, StoreError, StoredAccount, StoredPlayer};

/// The shortest password.
pub const PASSWORD_MIN_CHARS: usize = 8;
/// The longest password, in bytes (hashing a huge one is a cheap attack).
pub const PASSWORD_MAX_BYTES: usize = 256;
/// Failed log-ins (or current passwords) per (account, address) before
/// that address waits to try that account again: [`BACKOFF_FIRST_MS`]
/// after the last failure, doubling with each failure after.
pub const PAIR_ATTEMPTS: usize = 5;
/// The first wait of an (account, address) that failed [`PAIR_ATTEMPTS`]
/// times: 1 minute.
pub const BACKOFF_FIRST_MS: i64 = 60_000;
/// The longest wait between two tries of an (account, address): 15 minutes.
pub const BACKOFF_MAX_MS: i64 = 15 * 60_000;
/// An (account, address)'s failures are forgotten a day after its last.
pub const PAIR_MEMORY_MS: i64 = 24 * 60 * 60_000;
/// Failed log-ins of one account, from every address, within
/// [`ATTEMPT_WINDOW_MS`] that put it under attack: then an address that has
/// failed on it waits for the window to pass; one that has not (its owner
/// at home) still tries. The account is never locked for everyone.
pub const ACCOUNT_ATTEMPTS: usize = 20;
/// Failed log-ins per address within [`ATTEMPT_WINDOW_MS`], at most.
pub const ADDRESS_ATTEMPTS: usize = 20;
/// Passwords hashed or checked for one address within
/// [`ATTEMPT_WINDOW_MS`], at most (sign-ups, log-ins and password changes
/// together): one address cannot keep the hash workers busy.
pub const ADDRESS_HASHES: usize = 60;
/// The window of the log-in limits: 15 minutes.
pub const ATTEMPT_WINDOW_MS: i64 = 15 * 60_000;

/// A session logged in: its new secret (the cookie to set) and player.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoggedIn {
    /// The new session (the old one is no longer this account's).
    pub session: String,
    /// The account's player.
    pub player: StoredPlayer,
}

/// An account key and an address, throttled together.
type Pair = (String, Option<IpAddr>);

/// What is known of an (account, address).
#[derive(Debug, Default, Clone, Copy)]
struct PairState {
    /// Failures in a row.
    failures: usize,
    /// The last failure's time.
    last: i64,
    /// An attempt is being checked: another one waits for its outcome
    /// (refused meanwhile), so that concurrent guesses cannot all pass
    /// the limit before the first failure is counted.
    trying: bool,
}

/// An attempt of an (account, address) in flight; done when dropped.
struct Attempt {
    accounts: Accounts,
    pair: Pair,
}

impl Drop for Attempt {
    fn drop(&mut self) {
        let mut pairs = self
            .accounts
            .0
            .pairs
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(p) = pairs.get_mut(&self.pair) {
            p.trying = false;
            if p.failures == 0 {
                pairs.remove(&self.pair);
            }
        }
    }
}

/// The accounts, kept in the store. Cheap to clone.
#[derive(Clone)]
pub struct Accounts(Arc<Inner>);

struct Inner {
    store: Arc<dyn Store>,
    clock: Clock,
    /// Failed log-ins, by account key and by address, and hashes by
    /// address: their times.
    failures: Mutex<HashMap<String, VecDeque<i64>>>,
    /// Per (account key, address): failures in a row, attempts in flight.
    pairs: Mutex<HashMap<Pair, PairState>>,
    /// The hash workers every password goes through.
    passwords: Passwords,
}

fn store_error(e: StoreError) -> GameError {
    match e {
        StoreError::Failed(_) => GameError::Unavailable,
        e => {
            tracing::error!("accounts: {e}");
            GameError::Internal("the account could not be read or saved; try again".into())
        }
    }
}

fn bad(field: &'static str, said: Said) -> GameError {
    GameError::Invalid { field, said }
}

/// The key an account's log-in limits count under, whether it exists or
/// not: its name's lowercase skeleton, so that `AMA_3`, `ama_3` and look-
/// alikes count as one.
fn throttle_key(username: &str) -> String {
    let [_, lower] = keys(username);
    format!("a:{lower}")
}

/// The wait after an (account, address)'s `n`-th failure in a row
/// (`n` ≥ [`PAIR_ATTEMPTS`]): 1 minute, doubling, 15 at most.
fn backoff(n: usize) -> i64 {
    let doublings = u32::try_from(n.saturating_sub(PAIR_ATTEMPTS))
        .unwrap_or(u32::MAX)
        .min(16);
    (BACKOFF_FIRST_MS << doublings).min(BACKOFF_MAX_MS)
}

fn taken() -> GameError {
    bad(
        "username",
        Said::new(
            "username_taken",
            "this username is taken, or looks like one that is: choose another",
        ),
    )
}

/// Checks a new password's length.
fn check_password(p: &str, username: &str) -> Result<(), GameError> {
    if p.len() > PASSWORD_MAX_BYTES {
        return Err(bad(
            "password",
            Said::new(
                "password_long",
                format!("a password has at most {PASSWORD_MAX_BYTES} bytes"),
            )
            .with("max", PASSWORD_MAX_BYTES),
        ));
    }
    if p.chars().count() < PASSWORD_MIN_CHARS {
        return Err(bad(
            "password",
            Said::new(
                "password_short",
                format!("a password has at least {PASSWORD_MIN_CHARS} characters"),
            )
            .with("min", PASSWORD_MIN_CHARS),
        ));
    }
    if p.to_lowercase() == username.to_lowercase() {
        return Err(bad(
            "password",
            Said::new("password_is_username", "a password is not the username"),
        ));
    }
    Ok(())
}

impl Accounts {
    /// The accounts of `store`, their passwords hashed by `passwords`.
    pub fn new(store: Arc<dyn Store>, clock: Clock, passwords: Passwords) -> Accounts {
        Accounts(Arc::new(Inner {
            store,
            clock,
            failures: Mutex::new(HashMap::new()),
            pairs: Mutex::new(HashMap::new()),
            passwords,
        }))
    }

    /// The hash workers (their count of hashes).
    pub fn passwords(&self) -> &Passwords {
        &self.0.passwords
    }

    /// Signs up: the session's anonymous player becomes an account named
    /// `username` (his games with it), logged in at a new session.
    pub async fn sign_up(
        &self,
        session: &str,
        anonymous: &StoredPlayer,
        username: &str,
        password: &str,
        ip: Option<IpAddr>,
    ) -> Result<LoggedIn, GameError> {
        if anonymous.account {
            return Err(GameError::Refused(Said::new(
                "logged_in",
                "you are logged in already: log out first",
            )));
        }
        let name = Name::parse(username).map_err(|e| bad("username", e.said()))?;
        check_password(password, name.as_str())?;
        let mut keys: Vec<String> = keys(name.as_str()).to_vec();
        keys.dedup();
        // The cheap checks first: a taken name costs no hash.
        if self
            .0
            .store
            .keys_taken(keys.clone())
            .await
            .map_err(store_error)?
        {
            return Err(taken());
        }
        let ticket = self.hash_ticket(ip, self.0.clock.now_ms())?;
        let hashed = ticket.hash(password.to_string()).await?;
        let now = self.0.clock.now_ms();
        let to = new_token();
        let made = self
            .0
            .store
            .create_account(
                StoredAccount {
                    id: anonymous.id.clone(),
                    username: name.to_string(),
                    password: hashed,
                    bot: false,
                },
                keys,
                session.to_string(),
                to.clone(),
                now,
            )
            .await
            .map_err(store_error)?;
        if !made {
            // Taken meanwhile, by another sign-up.
            return Err(taken());
        }
        tracing::info!("account {} made", anonymous.id);
        Ok(LoggedIn {
            session: to,
            player: StoredPlayer {
                id: anonymous.id.clone(),
                name: name.to_string(),
                account: true,
                bot: false,
            },
        })
    }

    /// Logs in, at a new session; the old one ends, its seats the
    /// account's.
    pub async fn log_in(
        &self,
        session: &str,
        username: &str,
        password: &str,
        ip: Option<IpAddr>,
    ) -> Result<LoggedIn, GameError> {
        // The limits' key exists whether the account does or not.
        let account_key = throttle_key(username.trim());
        let now = self.0.clock.now_ms();
        let attempt = self.throttle(&account_key, ip, now)?;
        let found = if password.len() > PASSWORD_MAX_BYTES {
            None
        } else {
            self.0
                .store
                .account_by_key(keys(username.trim())[0].clone())
                .await
                .map_err(store_error)?
        };
        // An unknown name costs a hash too (a decoy's), so that it takes
        // as long as a wrong password.
        let ticket = self.hash_ticket(ip, now)?;
        let ok = ticket
            .verify(
                password.to_string(),
                found.as_ref().map(|a| a.password.clone()),
            )
            .await;
        let Some(account) = found.filter(|_| ok) else {
            self.failed(&attempt, now);
            return Err(GameError::BadLogin);
        };
        self.succeeded(&attempt);
        let to = new_token();
        self.0
            .store
            .log_in(account.id.clone(), session.to_string(), to.clone(), now)
            .await
            .map_err(store_error)?;
        Ok(LoggedIn {
            session: to,
            player: StoredPlayer {
                id: account.id,
                name: account.username,
                account: true,
                bot: account.bot,
            },
        })
    }

    /// Logs the session out: it ends, so its cookie holds neither the
    /// account nor its seats (the account keeps them, for its next
    /// log-in). The new anonymous session to use (issued), or `None` if
    /// the session was not logged in (an anonymous one keeps its games).
    pub async fn log_out(&self, session: &str) -> Result<Option<String>, GameError> {
        let store = &self.0.store;
        let logged_in = store
            .player(session.to_string())
            .await
            .map_err(store_error)?
            .is_some_and(|p| p.account);
        if !logged_in {
            return Ok(None);
        }
        store
            .log_out(session.to_string())
            .await
            .map_err(store_error)?;
        let fresh = new_token();
        store
            .create_session(fresh.clone(), self.0.clock.now_ms())
            .await
            .map_err(store_error)?;
        Ok(Some(fresh))
    }

    /// Changes the password of the session's account (the current one
    /// checked): every session of it ends (a stolen one loses the account
    /// and its seats), a new one is logged in.
    pub async fn change_password(
        &self,
        session: &str,
        me: &StoredPlayer,
        current: &str,
        new: &str,
        ip: Option<IpAddr>,
    ) -> Result<LoggedIn, GameError> {
        if !me.account {
            return Err(GameError::NeedsAccount(Said::new(
                "login_for_password",
                "log in to change your password",
            )));
        }
        let account = self
            .0
            .store
            .account_by_key(keys(&me.name)[0].clone())
            .await
            .map_err(store_error)?
            .filter(|a| a.id == me.id)
            .ok_or(GameError::BadLogin)?;
        // The cheap checks first; a wrong current password counts as a
        // wrong log-in (a stolen session must not guess it freely).
        check_password(new, &account.username)?;
        let account_key = throttle_key(&account.username);
        let now = self.0.clock.now_ms();
        let attempt = self.throttle(&account_key, ip, now)?;
        if current.len() > PASSWORD_MAX_BYTES
            || !self
                .hash_ticket(ip, now)?
                .verify(current.to_string(), Some(account.password.clone()))
                .await
        {
            self.failed(&attempt, now);
            return Err(bad(
                "current",
                Said::new(
                    "current_password_wrong",
                    "this is not your current password",
                ),
            ));
        }
        self.succeeded(&attempt);
        drop(attempt);
        let hashed = self
            .hash_ticket(ip, self.0.clock.now_ms())?
            .hash(new.to_string())
            .await?;
        let to = new_token();
        self.0
            .store
            .set_password(
                account.id.clone(),
                hashed,
                session.to_string(),
                to.clone(),
                self.0.clock.now_ms(),
            )
            .await
            .map_err(store_error)?;
        Ok(LoggedIn {
            session: to,
            player: me.clone(),
        })
    }

    /// An attempt (a log-in, a current password) of `account_key` from
    /// `ip` now, or [`GameError::TooManyAttempts`]: that address failed
    /// too often on that account and waits its backoff, or failed too
    /// often anywhere ([`ADDRESS_ATTEMPTS`]), or the account is under
    /// attack and that address has failed on it, or that address's
    /// previous attempt on it is still being checked. An address that has
    /// not failed on the account is refused only for its own failures
    /// elsewhere (OWASP ASVS 2.2.1: others cannot lock the owner out).
    fn throttle(
        &self,
        account_key: &str,
        ip: Option<IpAddr>,
        now: i64,
    ) -> Result<Attempt, GameError> {
        let address = ip.map(|ip| format!("i:{ip}"));
        if address
            .as_ref()
            .is_some_and(|k| self.over_limit(k, ADDRESS_ATTEMPTS, now))
        {
            return Err(GameError::TooManyAttempts);
        }
        let under_attack = self.over_limit(account_key, ACCOUNT_ATTEMPTS, now);
        let pair = (account_key.to_string(), ip);
        let mut pairs = self.0.pairs.lock().unwrap_or_else(|e| e.into_inner());
        // Bounded: forgotten pairs go when the map grows large.
        if pairs.len() > 100_000 {
            pairs.retain(|_, p| p.trying || now - p.last < PAIR_MEMORY_MS);
        }
        let p = pairs.entry(pair.clone()).or_default();
        if p.failures > 0 && now - p.last >= PAIR_MEMORY_MS {
            p.failures = 0;
        }
        if p.trying
            || (p.failures >= PAIR_ATTEMPTS && now < p.last + backoff(p.failures))
            || (p.failures > 0 && under_attack)
        {
            if p.failures == 0 && !p.trying {
                pairs.remove(&pair);
            }
            return Err(GameError::TooManyAttempts);
        }
        p.trying = true;
        Ok(Attempt {
            accounts: self.clone(),
            pair,
        })
    }

    /// Counts the failure of `attempt`: for its pair, its account and its
    /// address.
    fn failed(&self, attempt: &Attempt, now: i64) {
        {
            let mut pairs = self.0.pairs.lock().unwrap_or_else(|e| e.into_inner());
            let p = pairs.entry(attempt.pair.clone()).or_default();
            p.failures += 1;
            p.last = now;
        }
        self.fail(&attempt.pair.0, now);
        if let Some(ip) = attempt.pair.1 {
            self.fail(&format!("i:{ip}"), now);
        }
    }

    /// The right password: that address's failures on the account are
    /// forgotten.
    fn succeeded(&self, attempt: &Attempt) {
        let mut pairs = self.0.pairs.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = pairs.get_mut(&attempt.pair) {
            p.failures = 0;
        }
    }

    /// A place among the hash workers for `ip`, within its budget
    /// ([`ADDRESS_HASHES`]); the hash is counted against the budget once
    /// admitted (a hash refused busy costs nothing).
    fn hash_ticket(&self, ip: Option<IpAddr>, now: i64) -> Result<Ticket, GameError> {
        let Some(key) = ip.map(|ip| format!("h:{ip}")) else {
            return self.0.passwords.admit();
        };
        // Checked and counted at once, so that concurrent requests cannot
        // all pass the budget; given back if the workers are busy.
        let mut f = self.0.failures.lock().unwrap_or_else(|e| e.into_inner());
        if f.len() > 100_000 {
            f.retain(|_, t| t.back().is_some_and(|&x| x > now - ATTEMPT_WINDOW_MS));
        }
        let times = f.entry(key).or_default();
        while times.front().is_some_and(|&t| t <= now - ATTEMPT_WINDOW_MS) {
            times.pop_front();
        }
        if times.len() >= ADDRESS_HASHES {
            return Err(GameError::TooManyHashes);
        }
        let ticket = self.0.passwords.admit()?;
        times.push_back(now);
        Ok(ticket)
    }

    fn over_limit(&self, key: &str, limit: usize, now: i64) -> bool {
        let mut f = self.0.failures.lock().unwrap_or_else(|e| e.into_inner());
        match f.get_mut(key) {
            Some(times) => {
                while times.front().is_some_and(|&t| t <= now - ATTEMPT_WINDOW_MS) {
                    times.pop_front();
                }
                times.len() >= limit
            }
            None => false,
        }
    }

    fn fail(&self, key: &str, now: i64) {
        let mut f = self.0.failures.lock().unwrap_or_else(|e| e.into_inner());
        // Bounded: old keys go when the map grows large.
        if f.len() > 100_000 {
            f.retain(|_, t| t.back().is_some_and(|&x| x > now - ATTEMPT_WINDOW_MS));
        }
        f.entry(key.to_string()).or_default().push_back(now);
    }
}
