//! Writes the fuzz targets' seed inputs (made by the real encoders, see
//! `storage::decoders::seeds`) to `crates/storage/fuzz/corpus/<target>/seed-<name>`.
//! Run it after a format change, and after `cargo fuzz cmin` (which renames every
//! file to its hash): `cargo run -p tenantdb-storage --example fuzz_seeds`. Files the
//! fuzzer added stay, except copies of a seed under another name.

use std::collections::HashSet;
use std::fs;
use std::path::PathBuf;

use storage::decoders;

fn main() -> std::io::Result<()> {
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fuzz").join("corpus");
    for target in decoders::TARGETS {
        let dir = corpus.join(target);
        fs::create_dir_all(&dir)?;
        let seeds = decoders::seeds(target);
        let mut names = HashSet::new();
        for (name, bytes) in &seeds {
            let name = format!("seed-{name}");
            fs::write(dir.join(&name), bytes)?;
            names.insert(name);
        }
        let contents: HashSet<&[u8]> = seeds.iter().map(|(_, bytes)| &bytes[..]).collect();
        let mut copies = 0;
        for entry in fs::read_dir(&dir)? {
            let path = entry?.path();
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if !names.contains(&name) && contents.contains(&fs::read(&path)?[..]) {
                fs::remove_file(&path)?;
                copies += 1;
            }
        }
        println!("{target}: {} seeds in {} ({copies} copies under other names removed)", seeds.len(), dir.display());
    }
    Ok(())
}
