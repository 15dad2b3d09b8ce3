//! (review: to be written.)
