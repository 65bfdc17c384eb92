//! Model-based sequence test of tenant operations as the service issues them
//! (docs/architecture.md, "Testing"): several tenants, each a few trees
//! named by its prefix, are created, written, emptied in runs, snapshotted (a pin of
//! the trees under the tenant's prefix, which holds nothing else),
//! unpinned, forked (tree copies, now or from a pin), compacted the way the server does
//! it (a reader leased across the compaction's commit and checkpoint, then the file's
//! compaction), and deleted, across clean restarts and power loss (kill -9 of the
//! machine: unsynced bytes lost or torn). Readers of old versions are held across steps.
//! After every step the space accounting must equal what a trace of the trees computes
//! (`verify`: every slot in use with its exact count, free, pending or queued for
//! release, nothing else) and every tenant's rows must equal the model's.
//!
//! Checkpoints release few queued pages here (`space_release_pages_min`), so releases
//! queued by one checkpoint outlive it, a restart and a crash, as they do with large
//! tenants in production. Budget: `TENANTDB_MODEL_TENANT_SEEDS` seeds (default 6 in
//! `npm test`, 200 with `TENANTDB_SOAK=1`) from `TENANTDB_MODEL_TENANT_SEED` (0), and
//! every operation must have run at least once a seed.

mod common;

use std::collections::BTreeMap;

use common::{commit, db_path, open, put, read_all, sim_options, Model, Rng};
use storage::vfs::{CrashMode, SimVfs};
use storage::{Database, Op, Options, Snapshot};

const TENANTS: [&str; 4] = ["hv", "w1", "acme", "globex"];
const COLLECTIONS: [&str; 2] = ["k", "users"];
const STEPS: usize = 160;

fn tree(tenant: &str, collection: &str) -> String {
    format!("t/{tenant}/rows/{collection}")
}

fn key(id: u64) -> Vec<u8> {
    format!("{id:08}").into_bytes()
}

fn row(rng: &mut Rng, id: u64) -> Vec<u8> {
    let len = match rng.below(40) {
        0 => 1000 + rng.below(3000) as usize, // an overflow chain
        _ => 40 + rng.below(60) as usize,
    };
    let mut value = format!("{{id:{id}}}").into_bytes();
    value.extend(rng.bytes(len));
    value
}

/// The model: the head's trees, each tenant's snapshots (its trees as they were), and
/// which tenants exist.
#[derive(Clone, Default)]
struct State {
    head: Model,
    snapshots: BTreeMap<(String, String), Model>,
    tenants: BTreeMap<String, ()>,
}

impl State {
    fn trees_of(&self, tenant: &str) -> Vec<Vec<u8>> {
        let prefix = format!("t/{tenant}/");
        self.head.keys().filter(|t| t.starts_with(prefix.as_bytes())).cloned().collect()
    }
}

/// The trees holding rows under `prefix` (an emptied tree may stay as a tree of no entries).
fn rows(model: Model, prefix: &str) -> Model {
    model.into_iter().filter(|(t, entries)| t.starts_with(prefix.as_bytes()) && !entries.is_empty()).collect()
}

fn pin_name(tenant: &str, snapshot: &str) -> Vec<u8> {
    format!("{tenant}@{snapshot}").into_bytes()
}

struct Run {
    rng: Rng,
    vfs: SimVfs,
    options: Options,
    db: Database,
    state: State,
    held: Vec<(Snapshot, Model)>,
    counts: BTreeMap<&'static str, u64>,
}

impl Run {
    fn new(seed: u64) -> Run {
        let mut rng = Rng::new(seed);
        let vfs = SimVfs::new();
        let options = Run::options(&mut rng, &vfs);
        let db = open(&db_path(), &options);
        Run { rng, vfs, options, db, state: State::default(), held: Vec::new(), counts: BTreeMap::new() }
    }

    fn options(rng: &mut Rng, vfs: &SimVfs) -> Options {
        let cache = if rng.chance(50) { 64 << 10 } else { 8 << 20 };
        Options {
            space_release_pages_min: 1 + rng.below(16),
            // Compaction goes on around the readers held on purpose here, soon.
            compact_reader_wait: std::time::Duration::from_millis(20),
            // Automatic checkpoints after some batches too, as the server's sync thread does.
            checkpoint_wal_bytes: if rng.chance(50) { 256 << 10 } else { u64::MAX },
            ..sim_options(vfs, cache)
        }
    }

    fn count(&mut self, what: &'static str) {
        *self.counts.entry(what).or_default() += 1;
    }

    fn apply(&mut self, ops: Vec<Op>, context: &str) {
        self.db.commit_sync(commit(ops)).unwrap_or_else(|e| panic!("{context}: {e}"));
    }

    fn existing(&mut self) -> Option<String> {
        let names: Vec<String> = self.state.tenants.keys().cloned().collect();
        (!names.is_empty()).then(|| names[self.rng.below(names.len() as u64) as usize].clone())
    }

    fn step(&mut self, context: &str) {
        let roll = self.rng.below(100);
        match roll {
            0..=9 => {
                let tenant = TENANTS[self.rng.below(TENANTS.len() as u64) as usize];
                if self.state.tenants.insert(tenant.to_string(), ()).is_none() {
                    let id = self.rng.below(1000);
                    let value = row(&mut self.rng, id);
                    let name = tree(tenant, COLLECTIONS[0]);
                    self.state.head.entry(name.clone().into_bytes()).or_default().insert(key(id), value.clone());
                    self.apply(vec![put(&name, &key(id), &value)], context);
                    self.count("create");
                }
            }
            10..=39 => {
                // A write request: inserts and updates, some of them a whole tenant.
                let Some(tenant) = self.existing() else { return };
                let name = tree(&tenant, COLLECTIONS[self.rng.below(2) as usize]);
                let whole = self.rng.chance(20);
                let ids: Vec<u64> = if whole {
                    let present: Vec<u64> = self.state.head.get(name.as_bytes()).map(|t| t.keys().map(|k| String::from_utf8_lossy(k).parse().unwrap()).collect()).unwrap_or_default();
                    if present.is_empty() { (0..1 + self.rng.below(3000)).collect() } else { present }
                } else {
                    let start = self.rng.below(4000);
                    (start..start + 1 + self.rng.below(400)).collect()
                };
                let mut ops = Vec::with_capacity(ids.len());
                for id in ids {
                    let value = row(&mut self.rng, id);
                    self.state.head.entry(name.clone().into_bytes()).or_default().insert(key(id), value.clone());
                    ops.push(put(&name, &key(id), &value));
                }
                self.apply(ops, context);
                self.count("write");
            }
            40..=49 => {
                // Delete rows: every other one of a range (scattered) or a run.
                let Some(tenant) = self.existing() else { return };
                let name = tree(&tenant, COLLECTIONS[self.rng.below(2) as usize]);
                let Some(entries) = self.state.head.get_mut(name.as_bytes()) else { return };
                let stride = if self.rng.chance(50) { 2 } else { 1 };
                let skip = self.rng.below(entries.len().max(1) as u64) as usize;
                let doomed: Vec<Vec<u8>> = entries.keys().skip(skip).step_by(stride).take(1 + self.rng.below(2000) as usize).cloned().collect();
                for k in &doomed {
                    entries.remove(k);
                }
                if entries.is_empty() {
                    self.state.head.remove(name.as_bytes());
                }
                let ops = doomed.into_iter().map(|key| Op::Delete { tree: name.clone().into_bytes(), key }).collect();
                self.apply(ops, context);
                self.count("delete rows");
            }
            50..=56 => {
                let Some(tenant) = self.existing() else { return };
                let snapshot = format!("s{}", self.rng.below(3));
                if self.state.snapshots.contains_key(&(tenant.clone(), snapshot.clone())) {
                    return;
                }
                let pinned: Model = self.state.trees_of(&tenant).into_iter().map(|t| (t.clone(), self.state.head[&t].clone())).collect();
                self.state.snapshots.insert((tenant.clone(), snapshot.clone()), pinned);
                self.apply(vec![Op::PinPrefix { name: pin_name(&tenant, &snapshot), prefix: format!("t/{tenant}/").into_bytes() }], context);
                self.count("snapshot");
            }
            57..=60 => {
                let keys: Vec<(String, String)> = self.state.snapshots.keys().cloned().collect();
                if keys.is_empty() {
                    return;
                }
                let (tenant, snapshot) = keys[self.rng.below(keys.len() as u64) as usize].clone();
                self.state.snapshots.remove(&(tenant.clone(), snapshot.clone()));
                self.apply(vec![Op::Unpin { name: pin_name(&tenant, &snapshot) }], context);
                self.count("drop snapshot");
            }
            61..=66 => {
                // Fork: every tree of the source (now, or as a snapshot holds it) into a
                // tenant that does not exist yet.
                let Some(source) = self.existing() else { return };
                let target = TENANTS[self.rng.below(TENANTS.len() as u64) as usize];
                if self.state.tenants.contains_key(target) {
                    return;
                }
                let from_snapshot = self.state.snapshots.keys().filter(|(t, _)| *t == source).cloned().next().filter(|_| self.rng.chance(50));
                let retarget = |t: &[u8]| format!("t/{target}/{}", &String::from_utf8_lossy(t)[format!("t/{source}/").len()..]).into_bytes();
                let mut ops = Vec::new();
                let trees: Model = match &from_snapshot {
                    Some(key) => self.state.snapshots[key].clone(),
                    None => self.state.trees_of(&source).into_iter().map(|t| (t.clone(), self.state.head[&t].clone())).collect(),
                };
                for (t, entries) in trees {
                    let to = retarget(&t);
                    ops.push(match &from_snapshot {
                        Some((tenant, snapshot)) => Op::CopyTreeFromPin { pin: pin_name(tenant, snapshot), from: t.clone(), to: to.clone() },
                        None => Op::CopyTree { from: t.clone(), to: to.clone() },
                    });
                    self.state.head.insert(to, entries);
                }
                self.state.tenants.insert(target.to_string(), ());
                if ops.is_empty() {
                    let value = row(&mut self.rng, 0);
                    let name = tree(target, COLLECTIONS[0]);
                    self.state.head.entry(name.clone().into_bytes()).or_default().insert(key(0), value.clone());
                    ops.push(put(&name, &key(0), &value));
                }
                self.apply(ops, context);
                self.count("fork");
            }
            67..=74 => {
                // Compact a tenant as the server does (src/tenants/ops.ts): a lease across
                // the commit and the checkpoint, then the file's compaction.
                let Some(tenant) = self.existing() else { return };
                let lease = self.db.snapshot();
                let ops: Vec<Op> = self.state.trees_of(&tenant).into_iter().map(|tree| Op::CompactTree { tree }).collect();
                if !ops.is_empty() {
                    self.apply(ops, context);
                }
                self.db.checkpoint().unwrap_or_else(|e| panic!("{context}: checkpoint: {e}"));
                drop(lease);
                self.db.compact_space().unwrap_or_else(|e| panic!("{context}: compact_space: {e}"));
                self.count("compact");
            }
            75..=79 => {
                // Delete a tenant: its trees and its snapshots.
                let Some(tenant) = self.existing() else { return };
                let mut ops: Vec<Op> = self.state.trees_of(&tenant).into_iter().map(|tree| Op::DropTree { tree }).collect();
                for t in self.state.trees_of(&tenant) {
                    self.state.head.remove(&t);
                }
                let snapshots: Vec<(String, String)> = self.state.snapshots.keys().filter(|(t, _)| *t == tenant).cloned().collect();
                for key in snapshots {
                    ops.push(Op::Unpin { name: pin_name(&key.0, &key.1) });
                    self.state.snapshots.remove(&key);
                }
                self.state.tenants.remove(&tenant);
                if !ops.is_empty() {
                    self.apply(ops, context);
                }
                self.count("delete tenant");
            }
            80..=85 => {
                self.db.checkpoint().unwrap_or_else(|e| panic!("{context}: checkpoint: {e}"));
                self.count("checkpoint");
            }
            86..=89 => {
                if self.held.len() < 3 {
                    self.held.push((self.db.snapshot(), self.state.head.clone()));
                } else {
                    self.held.remove(self.rng.below(3) as usize);
                }
                self.count("reader");
            }
            90..=94 => {
                self.held.clear();
                self.db.close().unwrap_or_else(|e| panic!("{context}: close: {e}"));
                self.db = open(&db_path(), &self.options);
                self.count("restart");
            }
            _ => {
                // Power loss: every acknowledged commit must survive it.
                self.held.clear();
                let db = std::mem::replace(&mut self.db, open_scratch());
                drop(db);
                self.vfs = self.vfs.crash(CrashMode::Chaos { seed: self.rng.next() });
                self.options = Options { vfs: std::sync::Arc::new(self.vfs.clone()), ..self.options.clone() };
                self.db = open(&db_path(), &self.options);
                self.count("kill -9");
            }
        }
    }

    fn check(&mut self, context: &str) {
        let report = self.db.verify().unwrap_or_else(|e| panic!("{context}: verify: {e}"));
        assert!(report.problems.is_empty(), "{context}: the space map differs from the trace of the trees: {:?}", report.problems);
        let snapshot = self.db.snapshot();
        let got = rows(read_all(&snapshot), "t/");
        assert_eq!(got, rows(self.state.head.clone(), "t/"), "{context}: the tenants' rows differ from the model");
        for ((tenant, name), pinned) in &self.state.snapshots {
            let pin = snapshot.pin(&pin_name(tenant, name)).unwrap().unwrap_or_else(|| panic!("{context}: snapshot {tenant}@{name} is gone"));
            let prefix = format!("t/{tenant}/");
            let all = read_all(&pin);
            assert!(all.keys().all(|t| t.starts_with(prefix.as_bytes())), "{context}: snapshot {tenant}@{name} holds another tenant's trees");
            assert_eq!(rows(all, ""), rows(pinned.clone(), &prefix), "{context}: snapshot {tenant}@{name} differs from the model");
        }
        if let Some((reader, then)) = self.held.first() {
            let got = rows(read_all(reader), "t/");
            assert_eq!(got, rows(then.clone(), "t/"), "{context}: a reader's version changed under it");
        }
    }
}

/// A database in a scratch file system, to stand in while the real one is crashed.
fn open_scratch() -> Database {
    let vfs = SimVfs::new();
    open(&db_path(), &sim_options(&vfs, 1 << 20))
}

fn run(seed: u64) -> BTreeMap<&'static str, u64> {
    let mut run = Run::new(seed);
    for step in 0..STEPS {
        let context = format!("seed {seed} step {step}");
        run.step(&context);
        run.check(&context);
    }
    run.held.clear();
    run.db.close().unwrap();
    run.counts
}

#[test]
fn model_tenant_operations_keep_the_books_and_the_rows() {
    let seeds = common::soak::budget("TENANTDB_MODEL_TENANT_SEEDS", 6, 200);
    let mut totals: BTreeMap<&'static str, u64> = BTreeMap::new();
    let first: u64 = std::env::var("TENANTDB_MODEL_TENANT_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    for counts in common::parallel::share_out(seeds as usize, |i| run(first + i as u64)) {
        for (what, n) in counts {
            *totals.entry(what).or_default() += n;
        }
    }
    eprintln!("tenant model: {seeds} seeds x {STEPS} steps: {totals:?}");
    // The minimum the short budget must still reach: every operation ran.
    for what in ["create", "write", "delete rows", "snapshot", "drop snapshot", "fork", "compact", "delete tenant", "restart", "kill -9", "reader"] {
        assert!(totals.get(what).copied().unwrap_or(0) >= seeds, "{what} ran {:?} times over {seeds} seeds", totals.get(what));
    }
}
