//! How the solver uses several cores without owning threads: it hands
//! independent jobs to a [`Workers`], which the caller chooses: [`Threads`]
//! runs them on scoped threads (the CLI's and the Python package's),
//! [`Sequential`] in turn, or the caller implements its own.

use std::sync::Mutex;
use std::thread;

/// Runs independent jobs, in parallel or not; returns when all are done.
pub trait Workers: Sync {
    /// How many jobs can usefully run at once (the solver splits its work
    /// into about this many parts).
    fn threads(&self) -> usize;

    /// Runs every job once and returns when all have finished.
    fn run<'a>(&self, jobs: Vec<Box<dyn FnOnce() + Send + 'a>>);
}

/// Runs the jobs one after the other on the calling thread.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sequential;

impl Workers for Sequential {
    fn threads(&self) -> usize {
        1
    }

    fn run<'a>(&self, jobs: Vec<Box<dyn FnOnce() + Send + 'a>>) {
        for job in jobs {
            job();
        }
    }
}

/// Runs the jobs on this many scoped threads (at least one), each taking
/// the next job until none is left; returns when all are done.
#[derive(Debug, Clone, Copy)]
pub struct Threads(pub usize);

impl Workers for Threads {
    fn threads(&self) -> usize {
        self.0.max(1)
    }

    fn run<'a>(&self, jobs: Vec<Box<dyn FnOnce() + Send + 'a>>) {
        let queue = Mutex::new(jobs.into_iter());
        thread::scope(|s| {
            for _ in 0..self.threads() {
                s.spawn(|| loop {
                    // The lock is held only to take a job.
                    let job = queue.lock().unwrap_or_else(|e| e.into_inner()).next();
                    match job {
                        Some(job) => job(),
                        None => break,
                    }
                });
            }
        });
    }
}
