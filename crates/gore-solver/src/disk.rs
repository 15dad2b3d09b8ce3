//! The database on disk (feature `disk`): one file per layer,
//! `DIR/no-trades/layer-07.gsol` (or `DIR/no-trades,skip-origin/…`), in the
//! format of [`crate::format`], written atomically and memory-mapped for
//! probing.
//!
//! A layer file is written under a temporary name, synced, renamed into
//! place and its directory synced, so a file present is a whole file and
//! an interrupted solve resumes at the first layer missing. Files are
//! never changed in place once written, which is what makes mapping them
//! sound in practice (see [`Database::open`]).

use std::fs::{self, File};
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};

use memmap2::Mmap;

use crate::format::{rules_name, Decoder, Encoder, FormatError, LayerView};
use crate::index::MAX_SEEDS;
use crate::probe::{probe, Probe, ProbeError};
use crate::retro::LayerStats;
use crate::solve::Store;
use crate::values::{Lookup, SolvedLayer, Values};
use std::sync::OnceLock;

/// Why a database or one of its files cannot be used.
#[derive(Debug)]
pub enum DbError {
    /// Reading or writing a file failed.
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// A layer file is damaged or of another database.
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        error: FormatError,
    },
}

impl core::fmt::Display for DbError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            DbError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            DbError::Format { path, error } => write!(f, "{}: {error}", path.display()),
        }
    }
}

impl std::error::Error for DbError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DbError::Io { source, .. } => Some(source),
            DbError::Format { error, .. } => Some(error),
        }
    }
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> DbError + '_ {
    move |source| DbError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The directory of a rule set's files inside the database directory.
pub fn rules_dir(dir: &Path, skip_origin: bool) -> PathBuf {
    dir.join(rules_name(skip_origin))
}

/// The file of layer `n`.
pub fn layer_path(dir: &Path, skip_origin: bool, n: usize) -> PathBuf {
    rules_dir(dir, skip_origin).join(format!("layer-{n:02}.gsol"))
}

/// One mapped, checked layer file.
struct MappedLayer {
    map: Mmap,
    decoder: Decoder,
}

/// The layers `0..layers()` of one rule set, mapped and checked.
pub struct Database {
    dir: PathBuf,
    skip_origin: bool,
    layers: Vec<MappedLayer>,
    /// Whether files are checked whole when mapped.
    full: bool,
}

impl core::fmt::Debug for Database {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Database")
            .field("dir", &self.dir)
            .field("rules", &rules_name(self.skip_origin))
            .field("layers", &self.layers.len())
            .finish()
    }
}

impl Database {
    /// Opens the files of the rules `no-trades` (with `skip-origin` when
    /// `skip_origin`) under `dir`: layers 0, 1, … up to the first one
    /// missing, each mapped and checked whole (header, length, checksums).
    /// A directory without files is an empty database; a file that is
    /// there but damaged or of other rules is an error naming it.
    pub fn open(dir: &Path, skip_origin: bool) -> Result<Database, DbError> {
        let mut db = Database {
            dir: dir.to_path_buf(),
            skip_origin,
            layers: Vec::new(),
            full: true,
        };
        db.extend()?;
        Ok(db)
    }

    /// Opens like [`Database::open`] but checks only each file's header
    /// and length, not its values (a whole database is 2.8 GB to read):
    /// for a probe that reads a few layers, which [`Database::check`]
    /// then checks whole. Lookups in a damaged, unchecked layer give
    /// nonsense, never a panic.
    pub fn open_unchecked(dir: &Path, skip_origin: bool) -> Result<Database, DbError> {
        let mut db = Database {
            dir: dir.to_path_buf(),
            skip_origin,
            layers: Vec::new(),
            full: false,
        };
        db.extend()?;
        Ok(db)
    }

    /// Checks layer `n`'s values whole (the payload's checksum and its
    /// exceptions table), as [`Database::open`] does at open.
    ///
    /// # Panics
    /// If the database does not hold layer `n`.
    pub fn check(&self, n: usize) -> Result<(), DbError> {
        let l = &self.layers[n];
        LayerView::parse_header(&l.map, self.skip_origin, n)
            .and_then(|v| v.check_payload())
            .map_err(|error| DbError::Format {
                path: layer_path(&self.dir, self.skip_origin, n),
                error,
            })
    }

    /// Maps the layer files written since the database was opened (the
    /// next layers present); returns how many layers it now holds.
    pub fn extend(&mut self) -> Result<usize, DbError> {
        while self.layers.len() <= MAX_SEEDS {
            match map_layer(&self.dir, self.skip_origin, self.layers.len(), self.full)? {
                Some(layer) => self.layers.push(layer),
                None => break,
            }
        }
        Ok(self.layers.len())
    }

    /// How many layers it holds: `0..layers()`.
    pub fn layers(&self) -> usize {
        self.layers.len()
    }

    /// Its top layer, if it holds any.
    pub fn max_layer(&self) -> Option<usize> {
        self.layers.len().checked_sub(1)
    }

    /// Whether its rules are `no-trades,skip-origin`.
    pub fn skip_origin(&self) -> bool {
        self.skip_origin
    }

    /// The directory it was opened from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The decoder (header, encoding) of layer `n`, if present.
    pub fn decoder(&self, n: usize) -> Option<Decoder> {
        self.layers.get(n).map(|l| l.decoder)
    }

    /// Probes a position of the database's rules ([`probe`]); a position
    /// of the other rule set (`skip-origin` or not) is refused.
    pub fn probe(&self, p: &gore_core::Position) -> Result<Probe, ProbeError> {
        let skip = p.variant().skip_origin;
        if skip != self.skip_origin {
            return Err(ProbeError::Rules {
                position: rules_name(skip),
                database: rules_name(self.skip_origin),
            });
        }
        match self.max_layer() {
            Some(max_n) => probe(self, max_n, p),
            None => Err(ProbeError::Empty),
        }
    }
}

/// Maps and checks layer `n`'s file (whole, or its header and length
/// only), `None` if there is none.
fn map_layer(
    dir: &Path,
    skip_origin: bool,
    n: usize,
    full: bool,
) -> Result<Option<MappedLayer>, DbError> {
    let path = layer_path(dir, skip_origin, n);
    let file = match File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_err(&path)(e)),
    };
    // SAFETY: the map is read-only and the files are never written
    // in place (new layers are renamed into place whole), so the
    // bytes do not change under the map unless someone edits a
    // file by hand while it is open, which the docs warn against.
    #[allow(unsafe_code)]
    let map = unsafe { Mmap::map(&file) }.map_err(io_err(&path))?;
    let parsed = if full {
        LayerView::parse(&map, skip_origin, n)
    } else {
        LayerView::parse_header(&map, skip_origin, n)
    };
    let decoder = parsed
        .map_err(|error| DbError::Format {
            path: path.clone(),
            error,
        })?
        .decoder();
    Ok(Some(MappedLayer { map, decoder }))
}

/// A database being built ([`crate::solve::Store`]): any layers present
/// (the two parities are solved side by side, so a build may stop with
/// layer 31 written and 30 not), each layer mapped as soon as it is
/// written, readable by both chains at once.
pub struct Building {
    dir: PathBuf,
    skip_origin: bool,
    layers: [OnceLock<MappedLayer>; MAX_SEEDS + 1],
}

impl core::fmt::Debug for Building {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let present: Vec<usize> = (0..=MAX_SEEDS).filter(|&n| self.has(n)).collect();
        f.debug_struct("Building")
            .field("dir", &self.dir)
            .field("rules", &rules_name(self.skip_origin))
            .field("layers", &present)
            .finish()
    }
}

impl Building {
    /// Maps and checks every layer file present under `dir` for the rules.
    pub fn open(dir: &Path, skip_origin: bool) -> Result<Building, DbError> {
        let b = Building {
            dir: dir.to_path_buf(),
            skip_origin,
            layers: std::array::from_fn(|_| OnceLock::new()),
        };
        for n in 0..=MAX_SEEDS {
            if let Some(layer) = map_layer(dir, skip_origin, n, true)? {
                let _ = b.layers[n].set(layer);
            }
        }
        Ok(b)
    }
}

impl Lookup for Building {
    #[inline]
    fn values(&self, n: usize, rank: u64) -> Values {
        let l = self.layers[n]
            .get()
            .expect("a layer is read only once solved");
        l.decoder.values(&l.map, rank)
    }
}

impl Store for Building {
    fn has(&self, n: usize) -> bool {
        self.layers[n].get().is_some()
    }

    fn save(&self, layer: SolvedLayer, _: &LayerStats) -> Result<(), String> {
        let n = layer.n;
        write_layer(&self.dir, &layer, self.skip_origin).map_err(|e| e.to_string())?;
        drop(layer);
        let mapped = map_layer(&self.dir, self.skip_origin, n, true)
            .map_err(|e| e.to_string())?
            .ok_or_else(|| format!("layer {n}: written but not found"))?;
        self.layers[n]
            .set(mapped)
            .map_err(|_| format!("layer {n} is solved twice"))
    }
}

impl Lookup for Database {
    #[inline]
    fn values(&self, n: usize, rank: u64) -> Values {
        let l = &self.layers[n];
        l.decoder.values(&l.map, rank)
    }
}

/// Writes layer `layer.n`'s file under `dir` atomically: a temporary file
/// in the same directory, synced, renamed into place, the directory
/// synced. Returns the file's path.
pub fn write_layer(dir: &Path, layer: &SolvedLayer, skip_origin: bool) -> Result<PathBuf, DbError> {
    let rdir = rules_dir(dir, skip_origin);
    fs::create_dir_all(&rdir).map_err(io_err(&rdir))?;
    let path = layer_path(dir, skip_origin, layer.n);
    let tmp = path.with_extension("gsol.tmp");
    let encoder = Encoder::new(layer, skip_origin);
    {
        let file = File::create(&tmp).map_err(io_err(&tmp))?;
        let mut w = BufWriter::with_capacity(1 << 20, file);
        encoder.write_to(&mut w).map_err(io_err(&tmp))?;
        let file = w.into_inner().map_err(|e| io_err(&tmp)(e.into_error()))?;
        file.sync_all().map_err(io_err(&tmp))?;
    }
    fs::rename(&tmp, &path).map_err(io_err(&path))?;
    File::open(&rdir)
        .and_then(|d| d.sync_all())
        .map_err(io_err(&rdir))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::naive;

    fn write_all(dir: &Path, max_n: usize, skip: bool) -> crate::Memory {
        let mem = naive::memory(max_n, skip);
        for l in &mem.layers {
            write_layer(dir, l, skip).unwrap();
        }
        mem
    }

    #[test]
    fn written_layers_read_back() {
        let tmp = tempfile::tempdir().unwrap();
        let mem = write_all(tmp.path(), 8, true);
        let db = Database::open(tmp.path(), true).unwrap();
        assert_eq!(db.max_layer(), Some(8));
        for l in &mem.layers {
            for (r, &x) in l.values.iter().enumerate() {
                assert_eq!(db.values(l.n, r as u64), x);
            }
        }
        // The other rule set is another directory: empty here.
        let other = Database::open(tmp.path(), false).unwrap();
        assert_eq!(other.max_layer(), None);
        // No temporary files left.
        let names: Vec<_> = fs::read_dir(rules_dir(tmp.path(), true))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert!(names.iter().all(|n| n.ends_with(".gsol")), "{names:?}");
        assert_eq!(names.len(), 9);
    }

    #[test]
    fn layers_stop_at_the_first_missing_and_extend() {
        let tmp = tempfile::tempdir().unwrap();
        let mem = naive::memory(5, false);
        for n in [0, 1, 2, 4] {
            write_layer(tmp.path(), &mem.layers[n], false).unwrap();
        }
        let mut db = Database::open(tmp.path(), false).unwrap();
        assert_eq!(db.layers(), 3);
        write_layer(tmp.path(), &mem.layers[3], false).unwrap();
        assert_eq!(db.extend().unwrap(), 5);
    }

    #[test]
    fn damaged_or_misplaced_files_are_refused() {
        let tmp = tempfile::tempdir().unwrap();
        write_all(tmp.path(), 4, false);
        let path = layer_path(tmp.path(), false, 3);
        let good = fs::read(&path).unwrap();
        let mut bad = good.clone();
        let last = bad.len() - 1;
        bad[last] ^= 1;
        fs::write(&path, &bad).unwrap();
        let e = Database::open(tmp.path(), false).unwrap_err();
        assert!(matches!(
            e,
            DbError::Format {
                error: FormatError::PayloadChecksum,
                ..
            }
        ));
        assert!(e.to_string().contains("layer-03.gsol"), "{e}");
        // Layer 4's file in layer 3's place.
        fs::copy(layer_path(tmp.path(), false, 4), &path).unwrap();
        let e = Database::open(tmp.path(), false).unwrap_err().to_string();
        assert!(e.contains("holds layer 4, expected layer 3"), "{e}");
        // A skip-origin file among the no-trades ones.
        write_layer(tmp.path(), &naive::memory(3, true).layers[3], true).unwrap();
        fs::copy(layer_path(tmp.path(), true, 3), &path).unwrap();
        let e = Database::open(tmp.path(), false).unwrap_err().to_string();
        assert!(
            e.contains("rules no-trades,skip-origin, expected no-trades"),
            "{e}"
        );
        // Truncated.
        fs::write(&path, &good[..good.len() / 2]).unwrap();
        let e = Database::open(tmp.path(), false).unwrap_err().to_string();
        assert!(e.contains("truncated"), "{e}");
        fs::write(&path, b"").unwrap();
        let e = Database::open(tmp.path(), false).unwrap_err().to_string();
        assert!(e.contains("truncated"), "{e}");
    }

    #[test]
    fn unchecked_opens_leave_the_values_to_check() {
        let tmp = tempfile::tempdir().unwrap();
        write_all(tmp.path(), 4, false);
        let path = layer_path(tmp.path(), false, 3);
        let mut bad = fs::read(&path).unwrap();
        let last = bad.len() - 1;
        bad[last] ^= 1;
        fs::write(&path, &bad).unwrap();
        assert!(Database::open(tmp.path(), false).is_err());
        let db = Database::open_unchecked(tmp.path(), false).unwrap();
        assert_eq!(db.layers(), 5);
        assert!(db.check(2).is_ok() && db.check(4).is_ok());
        let e = db.check(3).unwrap_err().to_string();
        assert!(e.contains("layer-03.gsol") && e.contains("damaged"), "{e}");
        // Its header is still checked at open.
        fs::write(&path, &bad[..bad.len() - 1]).unwrap();
        let e = Database::open_unchecked(tmp.path(), false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("truncated"), "{e}");
    }

    #[test]
    fn probes_check_the_rules() {
        use gore_core::{Position, Variant};
        let tmp = tempfile::tempdir().unwrap();
        write_all(tmp.path(), 5, false);
        let db = Database::open(tmp.path(), false).unwrap();
        let mut v = Variant::STANDARD;
        v.no_trades = true;
        let p = Position::from_gpn("0,0,1,3/1,0,0,0 AAAA/BBBB 22-21 A -", v).unwrap();
        assert_eq!(
            db.probe(&p).unwrap().lines()[0],
            "position V 23-25 lo 23-25 hi 23-25 exact"
        );
        v.skip_origin = true;
        let q = Position::from_gpn("0,0,1,3/1,0,0,0 AAAA/BBBB 22-21 A -", v).unwrap();
        assert_eq!(
            db.probe(&q).unwrap_err(),
            ProbeError::Rules {
                position: "no-trades,skip-origin",
                database: "no-trades"
            }
        );
        let empty = Database::open(&tmp.path().join("nothing"), false).unwrap();
        assert_eq!(empty.probe(&p).unwrap_err(), ProbeError::Empty);
    }
}
