//! Recounting the books from the pages themselves: every reference the meta record
//! holds, and every reference held by a page reachable from it. Open uses it to rebuild
//! a space map that is missing (a format-1 directory, a new one) or damaged; `verify`
//! compares it with the space map on disk (`space/mod.rs`, "Counts are exact").

use std::collections::{BTreeSet, HashMap};

use crate::btree::{self, node_references};
use crate::error::{Error, Result};
use crate::limits::META_SLOTS;
use crate::meta::Meta;
use crate::pager::Pager;
use crate::progress::{ProgressStep, WorkStep};
use crate::space::{RangeSet, Ref, SpaceMap};
use crate::space::chain;

/// What a walk found: every slot reached, with the references to it.
#[derive(Debug, Default)]
pub struct Traced<'a> {
    pub counts: HashMap<u64, u32>,
    /// Corruption met on the way (the walk goes around it).
    pub problems: Vec<String>,
    /// Counts each slot reached, for a progress line (`progress.rs`).
    step: Option<&'a ProgressStep<'a>>,
}

impl Traced<'_> {
    /// Counts `target` and, the first time its slot is reached, walks what it holds.
    /// Operating errors (I/O) stop the walk; corruption is noted and gone around.
    fn walk(&mut self, pager: &Pager, target: Ref) -> Result<()> {
        let mut stack = vec![target];
        while let Some(target) = stack.pop() {
            let count = self.counts.entry(target.page()).or_insert(0);
            *count += 1;
            if *count > 1 {
                continue;
            }
            if let Some(step) = self.step {
                step.add(1);
            }
            let owned = match target {
                Ref::Node(loc) => match btree::load_node(pager, loc) {
                    Ok(node) => {
                        stack.extend(node_references(&node));
                        Vec::new()
                    }
                    Err(err) => return self.corruption(err, target),
                },
                Ref::Overflow { first_page, len, hash } => match pager.overflow_chain(first_page, len, hash) {
                    Ok(pages) => pages,
                    Err(err) => return self.corruption(err, target),
                },
                Ref::SpaceMap(loc) => match chain::read(pager.file(), loc, pager.page_count()) {
                    Ok((_, pages)) => pages,
                    Err(err) => return self.corruption(pager.report(err), target),
                },
            };
            // A chain's other slots belong to it alone: one reference each, from the
            // slot before.
            for &page in owned.iter().skip(1) {
                let count = self.counts.entry(page).or_insert(0);
                *count += 1;
                if *count > 1 {
                    self.problems.push(format!("page {page} belongs to a chain and is reached another way too"));
                }
            }
        }
        Ok(())
    }

    fn corruption(&mut self, err: Error, target: Ref) -> Result<()> {
        if !err.is_corruption() {
            return Err(err);
        }
        self.problems.push(format!("page {}: {err}", target.page()));
        Ok(())
    }
}

/// The references the meta record holds.
pub fn meta_references(meta: &Meta) -> Vec<Ref> {
    let root = |tree: &crate::btree::TreeRoot| tree.root.as_ref().and_then(|r| r.disk_loc()).map(Ref::Node);
    [root(&meta.trees), root(&meta.pins), meta.space.map(Ref::SpaceMap)].into_iter().flatten().collect()
}

/// A space map for `meta` rebuilt by walking its trees: every slot reached is in use
/// with the count found, and every other slot is released at the record's generation
/// (so nothing the older record on disk might reach is written before it is replaced).
/// Never fails on what the pages say: a reference to a slot the file does not hold (a
/// meta slot, or past the record's tip) is damage to its referrer, reported and left
/// out, so open goes on and only the rows behind it are unreadable.
pub fn rebuild(pager: &Pager, meta: &Meta) -> Result<(SpaceMap, Vec<String>)> {
    let mut traced = Traced::default();
    for target in meta_references(&Meta { space: None, ..meta.clone() }) {
        traced.walk(pager, target)?;
    }
    let mut problems = traced.problems;
    let mut counts: Vec<(u64, u32)> = Vec::new();
    let mut reached = RangeSet::new();
    for (page, count) in traced.counts {
        if page < META_SLOTS || page >= meta.page_count {
            problems.push(format!("page {page} is referenced but the page file holds no such slot (tip {})", meta.page_count));
            continue;
        }
        reached.insert(page);
        if count != 1 {
            counts.push((page, count));
        }
    }
    let mut unreached = RangeSet::new();
    for page in META_SLOTS..meta.page_count {
        if !reached.contains(page) {
            unreached.insert(page);
        }
    }
    let pending = if unreached.is_empty() { Default::default() } else { [(meta.generation, unreached)].into() };
    // Paired with `from_parts`' checks: every part is within the file and disjoint.
    let map = SpaceMap::from_parts(meta.page_count, counts, RangeSet::new(), pending, Vec::new());
    assert!(map.is_some(), "a traced map of slots within the file is consistent by construction");
    Ok((map.expect("asserted above"), problems))
}

/// What `check` found.
#[derive(Debug, Default)]
pub struct SpaceCheck {
    pub problems: Vec<String>,
}

/// Recounts every reference from `meta` and from the queued releases of `books`, and
/// compares: each slot of `META_SLOTS..tip` must be exactly one of in use (with the
/// count found), free, pending or queued for release.
pub fn check(pager: &Pager, meta: &Meta, books: &SpaceMap) -> Result<SpaceCheck> {
    let step = pager.progress().begin(WorkStep::VerifySpace, books.stats().live);
    let mut traced = Traced { step: Some(&step), ..Traced::default() };
    for target in meta_references(meta) {
        traced.walk(pager, target)?;
    }
    // A queued release still holds the references of the page it names.
    let mut queued: BTreeSet<u64> = BTreeSet::new();
    for &target in books.releasing() {
        let read = match target {
            Ref::Node(loc) => btree::load_node(pager, loc).map(|node| (vec![loc.page], node_references(&node))),
            Ref::Overflow { first_page, len, hash } => pager.overflow_chain(first_page, len, hash).map(|pages| (pages, Vec::new())),
            Ref::SpaceMap(loc) => chain::read(pager.file(), loc, pager.page_count()).map(|(_, pages)| (pages, Vec::new())),
        };
        let (pages, held) = match read {
            Ok(read) => read,
            Err(err) if err.is_corruption() => {
                traced.problems.push(format!("page {} (queued for release): {err}", target.page()));
                (vec![target.page()], Vec::new())
            }
            Err(err) => return Err(err),
        };
        for page in pages {
            if !queued.insert(page) {
                traced.problems.push(format!("page {page} is queued for release twice"));
            }
        }
        // What it holds is still in use, and so is everything under that: walked like
        // what the record reaches (a page reached only from a queued release is no leak).
        for held in held {
            traced.walk(pager, held)?;
        }
    }
    let mut problems = traced.problems;
    let pending = |page: u64| books.pending().values().any(|set| set.contains(page));
    for page in META_SLOTS..books.tip() {
        let found = traced.counts.get(&page).copied().unwrap_or(0);
        let state = if books.free().contains(page) {
            "free"
        } else if pending(page) {
            "pending"
        } else if queued.contains(&page) {
            "queued for release"
        } else {
            let booked = books.count(page);
            if found == 0 {
                problems.push(format!("page {page} is in use (count {booked}) but nothing references it: leaked"));
            } else if found != booked {
                problems.push(format!("page {page} has {found} references but its count says {booked}"));
            }
            continue;
        };
        if found > 0 {
            problems.push(format!("page {page} is {state} but {found} reference(s) still reach it"));
        }
    }
    for page in traced.counts.keys().filter(|&&p| p >= books.tip()) {
        problems.push(format!("page {page} is referenced but lies past the tip {}", books.tip()));
    }
    Ok(SpaceCheck { problems })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::commit::{Commit, Op};
    use crate::database::{Database, Options};
    use crate::vfs::SimVfs;

    fn database() -> Database {
        let vfs = Arc::new(SimVfs::new());
        let db = Database::open(std::path::Path::new("/db"), Options { vfs, ..Options::default() }).unwrap();
        for n in 0..40u32 {
            let ops = (0..50u32)
                .map(|k| Op::Put { tree: Arc::from(&b"t"[..]), key: Arc::from(format!("{n:03}-{k:03}").as_bytes()), value: Arc::from(vec![n as u8; 100 + (k as usize % 3) * 1000]) })
                .collect();
            db.commit_sync(Commit { meta: Vec::new(), ops }).unwrap();
        }
        db.commit_sync(Commit { meta: Vec::new(), ops: vec![Op::Pin { name: b"p".to_vec() }] }).unwrap();
        db.checkpoint().unwrap();
        db
    }

    fn recheck(db: &Database, books: &SpaceMap) -> Vec<String> {
        let inner = db.inner();
        check(&inner.pager, &inner.current_meta(), books).unwrap().problems
    }

    #[test]
    fn the_books_of_a_checkpoint_recount_exactly() {
        let db = database();
        assert_eq!(recheck(&db, &db.inner().pager.space()), Vec::<String>::new());
    }

    #[test]
    fn a_live_slot_booked_free_is_double_use() {
        let db = database();
        let books = db.inner().pager.space();
        let live = (META_SLOTS..books.tip()).find(|&p| books.in_use(p) && books.count(p) == 1).unwrap();
        let mut free = books.free().clone();
        free.insert(live);
        let wrong = SpaceMap::from_parts(books.tip(), books.unusual_counts(), free, books.pending().clone(), books.releasing().iter().copied().collect()).unwrap();
        let problems = recheck(&db, &wrong).join("\n");
        assert!(problems.contains(&format!("page {live} is free but 1 reference(s) still reach it")), "{problems}");
    }

    #[test]
    fn a_slot_in_use_that_nothing_references_is_a_leak() {
        let db = database();
        let books = db.inner().pager.space();
        let tip = books.tip();
        let wrong = SpaceMap::from_parts(tip + 1, books.unusual_counts(), books.free().clone(), books.pending().clone(), Vec::new()).unwrap();
        let problems = recheck(&db, &wrong).join("\n");
        assert!(problems.contains(&format!("page {tip} is in use (count 1) but nothing references it: leaked")), "{problems}");
    }

    #[test]
    fn a_wrong_count_is_found() {
        let db = database();
        let books = db.inner().pager.space();
        let single = (META_SLOTS..books.tip()).find(|&p| books.in_use(p) && books.count(p) == 1).unwrap();
        let mut counts = books.unusual_counts();
        counts.push((single, 2));
        counts.sort_unstable();
        let wrong = SpaceMap::from_parts(books.tip(), counts, books.free().clone(), books.pending().clone(), books.releasing().iter().copied().collect()).unwrap();
        let problems = recheck(&db, &wrong).join("\n");
        assert!(problems.contains(&format!("page {single} has 1 references but its count says 2")), "{problems}");
    }

    #[test]
    fn a_rebuilt_map_counts_what_the_pages_hold() {
        let db = database();
        let inner = db.inner();
        let meta = inner.current_meta();
        let (rebuilt, problems) = rebuild(&inner.pager, &meta).unwrap();
        assert!(problems.is_empty(), "{problems:?}");
        let books = inner.pager.space();
        // The same counts; the space map chain (not traced when rebuilding) and every
        // other unreached slot wait as pending.
        assert_eq!(rebuilt.unusual_counts(), books.unusual_counts());
        assert_eq!(rebuilt.tip(), books.tip());
        let chain = meta.space.unwrap().page;
        assert!(rebuilt.pending().values().any(|set| set.contains(chain)));
    }
}
