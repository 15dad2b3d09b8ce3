//! (analysis: to be written.)
