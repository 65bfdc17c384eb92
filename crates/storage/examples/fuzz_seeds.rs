//! Writes the fuzz targets' seed inputs (made by the real encoders, see
//! `storage::decoders::seeds`) to `crates/storage/fuzz/corpus/<target>/seed-<name>`.
//! Run after a format change: `cargo run -p tenantdb-storage --example fuzz_seeds`.
//! Files the fuzzer added stay; seeds are overwritten.

use std::fs;
use std::path::PathBuf;

use storage::decoders;

fn main() -> std::io::Result<()> {
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fuzz").join("corpus");
    for target in decoders::TARGETS {
        let dir = corpus.join(target);
        fs::create_dir_all(&dir)?;
        let seeds = decoders::seeds(target);
        for (name, bytes) in &seeds {
            fs::write(dir.join(format!("seed-{name}")), bytes)?;
        }
        println!("{target}: {} seeds in {}", seeds.len(), dir.display());
    }
    Ok(())
}
