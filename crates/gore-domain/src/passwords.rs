//! Password hashing (argon2id, OWASP's cost: 19 MiB, 2 passes), bounded
//! for the whole server: a hash runs only with one of a few workers
//! (at most the cores), a short queue waits for them, and beyond it a hash
//! is refused [`GameError::Busy`] at once. Each hash needs 19 MiB: with
//! the workers bounded and their memory reused (one buffer per worker,
//! never freed, never more), a flood of sign-ups or log-ins cannot grow
//! the server's memory nor keep an innocent waiting behind hundreds of
//! hashes.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use argon2::password_hash::{rand_core::OsRng, Output, ParamsString, PasswordHash, SaltString};
use argon2::{Algorithm, Argon2, Block, Params, Version};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::{new_token, GameError};

/// The hash workers, shared by every account operation. Cheap to clone.
#[derive(Clone)]
pub struct Passwords(Arc<Inner>);

struct Inner {
    /// Admission: one ticket per worker and per queue place; a hash
    /// without one is refused busy rather than waiting without bound.
    admitted: Arc<Semaphore>,
    /// The workers: an admitted hash waits here for one.
    workers: Arc<Semaphore>,
    /// The argon2 memory of the workers, reused from hash to hash: at most
    /// one buffer per worker, so that the memory is bounded and stays
    /// the process's (the allocator is not asked for 19 MiB per hash).
    buffers: Mutex<Vec<Vec<Block>>>,
    /// Hashes computed (made or checked) since the start.
    hashes: AtomicU64,
    /// Hashes admitted at most (workers and queue).
    capacity: usize,
}

/// An admitted hash: a place among the workers or in their queue, kept
/// until the hash is done.
pub struct Ticket {
    pool: Passwords,
    admitted: OwnedSemaphorePermit,
}

impl Passwords {
    /// `workers` hashes at once (at least 1), `queue` more waiting.
    pub fn new(workers: usize, queue: usize) -> Passwords {
        let workers = workers.max(1);
        Passwords(Arc::new(Inner {
            admitted: Arc::new(Semaphore::new(workers + queue)),
            workers: Arc::new(Semaphore::new(workers)),
            buffers: Mutex::new(Vec::new()),
            hashes: AtomicU64::new(0),
            capacity: workers + queue,
        }))
    }

    /// A place for one hash, or [`GameError::Busy`] when the workers and
    /// their queue are full. Cheap: take it before the work that needs it.
    pub fn admit(&self) -> Result<Ticket, GameError> {
        let admitted = self.0.admitted.clone().try_acquire_owned().map_err(|_| {
            GameError::Busy("the server is busy checking passwords: try again in a moment".into())
        })?;
        Ok(Ticket {
            pool: self.clone(),
            admitted,
        })
    }

    /// Hashes admitted now: being computed or waiting for a worker.
    pub fn in_flight(&self) -> usize {
        self.0
            .capacity
            .saturating_sub(self.0.admitted.available_permits())
    }

    /// Hashes computed (made or checked) since the server started: what a
    /// test counts to know whether a request cost a hash.
    pub fn hashes(&self) -> u64 {
        self.0.hashes.load(Ordering::Relaxed)
    }
}

impl Ticket {
    /// The PHC string of `password`, salted anew.
    pub async fn hash(self, password: String) -> Result<String, GameError> {
        self.run(move |buf| make(buf, password.as_bytes()))
            .await?
            .map_err(|e| GameError::Internal(format!("hashing failed: {e}")))
    }

    /// Whether `password` matches the PHC string `stored`; with `None`, a
    /// hash no password matches is checked (so that an unknown username
    /// costs what a wrong password costs) and the answer is `false`.
    pub async fn verify(self, password: String, stored: Option<String>) -> bool {
        self.run(move |buf| match &stored {
            Some(s) => check(buf, password.as_bytes(), s).unwrap_or(false),
            None => {
                let d = decoy(buf);
                let _ = check(buf, password.as_bytes(), d);
                false
            }
        })
        .await
        .unwrap_or(false)
    }

    /// Runs `f` on a blocking thread once a worker is free, with a
    /// worker's memory. The ticket and the worker are held by the thread,
    /// so that a request given up mid-hash still counts until its hash
    /// ends.
    async fn run<T: Send + 'static>(
        self,
        f: impl FnOnce(&mut Vec<Block>) -> T + Send + 'static,
    ) -> Result<T, GameError> {
        let worker = self
            .pool
            .0
            .workers
            .clone()
            .acquire_owned()
            .await
            .map_err(|e| GameError::Internal(format!("hashing failed: {e}")))?;
        tokio::task::spawn_blocking(move || {
            let _held = (self.admitted, worker);
            let inner = &self.pool.0;
            inner.hashes.fetch_add(1, Ordering::Relaxed);
            let mut buf = inner
                .buffers
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .pop()
                .unwrap_or_default();
            let out = f(&mut buf);
            inner
                .buffers
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(buf);
            out
        })
        .await
        .map_err(|e| GameError::Internal(format!("hashing failed: {e}")))
    }
}

/// A hash no password matches (of a random token), made once.
fn decoy(buf: &mut Vec<Block>) -> &'static str {
    static DECOY: OnceLock<String> = OnceLock::new();
    if let Some(d) = DECOY.get() {
        return d;
    }
    let made = make(buf, new_token().as_bytes()).unwrap_or_default();
    DECOY.get_or_init(|| made)
}

/// argon2id at the crate's default parameters, in `buf`: the same PHC
/// string as `Argon2::default().hash_password`, without allocating the
/// 19 MiB anew.
fn make(buf: &mut Vec<Block>, password: &[u8]) -> argon2::password_hash::Result<String> {
    let params = Params::default();
    let salt = SaltString::generate(&mut OsRng);
    let mut raw = [0u8; 64];
    let salt_bytes = salt.as_salt().decode_b64(&mut raw)?;
    let mut out = [0u8; Params::DEFAULT_OUTPUT_LEN];
    buf.resize(params.block_count(), Block::default());
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params.clone())
        .hash_password_into_with_memory(password, salt_bytes, &mut out, &mut buf[..])?;
    let phc = PasswordHash {
        algorithm: Algorithm::Argon2id.ident(),
        version: Some(Version::V0x13.into()),
        params: ParamsString::try_from(&params)?,
        salt: Some(salt.as_salt()),
        hash: Some(Output::new(&out)?),
    };
    Ok(phc.to_string())
}

/// Whether `password` matches `stored` (any argon2 variant and parameters
/// the PHC string names), computed in `buf`; the comparison is
/// constant-time (`Output`'s equality).
fn check(
    buf: &mut Vec<Block>,
    password: &[u8],
    stored: &str,
) -> argon2::password_hash::Result<bool> {
    let h = PasswordHash::new(stored)?;
    let algorithm = Algorithm::try_from(h.algorithm)?;
    let version = h
        .version
        .map(Version::try_from)
        .transpose()?
        .unwrap_or_default();
    let params = Params::try_from(&h)?;
    let (Some(salt), Some(expected)) = (h.salt, h.hash) else {
        return Ok(false);
    };
    let mut raw = [0u8; 64];
    let salt_bytes = salt.decode_b64(&mut raw)?;
    let mut out = vec![0u8; expected.len()];
    buf.resize(params.block_count(), Block::default());
    Argon2::new(algorithm, version, params).hash_password_into_with_memory(
        password,
        salt_bytes,
        &mut out,
        &mut buf[..],
    )?;
    Ok(Output::new(&out)? == expected)
}

#[cfg(test)]
mod tests {
    use super::*;
    use argon2::password_hash::PasswordHasher;
    use argon2::PasswordVerifier;

    /// Our hashes are argon2's own: each side verifies the other's.
    #[test]
    fn the_same_phc_strings_as_the_crate() {
        let mut buf = Vec::new();
        let ours = make(&mut buf, b"correct horse").unwrap();
        assert!(
            ours.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{ours}"
        );
        let parsed = PasswordHash::new(&ours).unwrap();
        assert!(Argon2::default()
            .verify_password(b"correct horse", &parsed)
            .is_ok());
        assert!(Argon2::default()
            .verify_password(b"correct horsf", &parsed)
            .is_err());
        let salt = SaltString::generate(&mut OsRng);
        let theirs = Argon2::default()
            .hash_password(b"mango season", &salt)
            .unwrap()
            .to_string();
        assert_eq!(check(&mut buf, b"mango season", &theirs), Ok(true));
        assert_eq!(check(&mut buf, b"mango seasons", &theirs), Ok(false));
        assert!(check(&mut buf, b"x", "not a hash").is_err());
        // The buffer is one hash's memory, reused: 19 MiB of 1 KiB blocks.
        assert_eq!(buf.len(), 19 * 1024);
    }

    /// One worker, no queue: a second hash while one is admitted is
    /// refused at once; the place is free again when the ticket goes.
    #[tokio::test]
    async fn beyond_the_workers_and_queue_busy() {
        let p = Passwords::new(1, 0);
        let held = p.admit().unwrap();
        assert!(matches!(p.admit(), Err(GameError::Busy(_))));
        drop(held);
        let t = p.admit().unwrap();
        let h = t.hash("a passphrase".into()).await.unwrap();
        assert!(
            p.admit()
                .unwrap()
                .verify("a passphrase".into(), Some(h.clone()))
                .await
        );
        assert!(
            !p.admit()
                .unwrap()
                .verify("a passphrasf".into(), Some(h))
                .await
        );
        assert!(!p.admit().unwrap().verify("".into(), None).await);
        assert_eq!(p.hashes(), 4);
    }
}
