//! How the solver uses several cores without owning threads: it hands
//! independent jobs to a [`Workers`], which the caller implements (the
//! CLI with `std::thread::scope`), or [`Sequential`] runs them in turn.

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
