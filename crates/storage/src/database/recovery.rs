//! What opening a directory repairs and records: a checkpoint an interruption left
//! between its journal and its record, a space map rebuilt from the pages when its chain
//! is damaged, and corruption written to the persisted log as it is found.

use crate::corruption_log::CorruptionLog;
use crate::error::{Error, Result};
use crate::checkpoint::Journal;
use crate::meta::Meta;
use crate::page::PageFile;
use crate::pager::Pager;
use crate::space::SpaceMap;
use crate::meta::trace;
use crate::space::chain;

/// The space map of `meta`: read from its chain, or rebuilt by tracing the live pages
/// when the record has none (a format-1 directory, a new one) or the chain is damaged.
/// Damage is recorded as corruption and returned (as a sentence for `verify`); the
/// rebuilt map is exact, since it is counted from the pages themselves.
pub(super) fn load_space(pager: &Pager, meta: &Meta, corruption: &CorruptionLog, rebuild: bool) -> Result<(SpaceMap, Option<String>)> {
    let mut damage = None;
    if rebuild {
        // `tenantdb repair`: the books are recounted from the trees whatever they say.
        let (map, problems) = trace::rebuild(pager, meta)?;
        let found = if problems.is_empty() { String::new() } else { format!("; {}", problems.join("; ")) };
        return Ok((map, Some(format!("space map rebuilt from the pages on request{found}"))));
    }
    if let Some(first) = meta.space {
        match chain::load(pager.file(), first, meta.page_count) {
            Ok(map) => return Ok((map, None)),
            Err(err) if err.is_corruption() => {
                damage = Some(format!("space map: {}; rebuilt from the pages at open", record(corruption, err)));
            }
            Err(err) => return Err(err),
        }
    }
    let (map, problems) = trace::rebuild(pager, meta)?;
    let damage = match (damage, problems.is_empty()) {
        (Some(d), false) => Some(format!("{d}; {}", problems.join("; "))),
        (damage, _) => damage,
    };
    Ok((map, damage))
}

/// Records a corruption error in the persisted log and passes it on.
pub(super) fn record(log: &CorruptionLog, err: Error) -> Error {
    let _ = match &err {
        Error::Corrupted { page, kind } => log.record(format!("page:{page}"), err.file().expect("names its file"), Some(*page), kind.as_str()),
        Error::WalCorrupted { segment, offset } => {
            log.record(format!("wal:{segment}@{offset}"), err.file().expect("names its file"), None, "wal_frame")
        }
        _ => Ok(()),
    };
    err
}

/// Finishes a checkpoint an interruption left between its journal and its record
/// (`checkpoint/journal.rs`): a complete journal newer than the newest valid record is written
/// again, slots and record. Otherwise a slot holding an older record (a crash between
/// the two writes of a publish, `meta/record.rs`) gets the newest, so both slots mirror it
/// again. Read-only, nothing is written: the journal's pages are read in place of the
/// slots' and its record is the one used.
pub(super) fn recover_checkpoint(pages: PageFile, meta: Meta, stale: bool, journal: Option<&Journal>, read_only: bool) -> Result<(PageFile, Meta)> {
    let complete = match journal {
        Some(journal) => journal.read()?.filter(|c| c.meta.generation > meta.generation).map(|c| (journal, c)),
        None => None,
    };
    let Some((journal, complete)) = complete else {
        if stale && !read_only {
            meta.publish(&pages)?;
        }
        return Ok((pages, meta));
    };
    if read_only {
        let mut overlay = std::collections::HashMap::with_capacity(complete.offsets.len());
        for (&page, &offset) in &complete.offsets {
            overlay.insert(page, journal.read_slot(offset)?);
        }
        return Ok((pages.with_overlay(overlay), complete.meta));
    }
    for (&page, &offset) in &complete.offsets {
        pages.write_slot(page, &journal.read_slot(offset)?)?;
    }
    pages.sync()?;
    complete.meta.publish(&pages)?;
    journal.clear()?;
    Ok((pages, complete.meta))
}
