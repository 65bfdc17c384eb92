//! Releasing references whose count reached zero (`space/mod.rs`, step 3): read the
//! page, verified as its referrer recorded it, drop every reference it holds, and
//! record its slots as released. A page that fails verification is reported as
//! corruption and its slot released, but the references it held are kept: a damaged
//! page can never make the books free a slot something else still uses (it can only
//! keep some slots from ever being freed, which `verify` then shows).

use crate::btree::{load_node, node_references};
use crate::error::Result;
use crate::pager::Pager;
use crate::space::{Ref, SpaceMap};
use crate::space::chain;

/// Releases queued references, oldest first, until at least `budget` slots were
/// released or the queue is empty. Returns the slots released.
pub fn release(pager: &Pager, books: &mut SpaceMap, generation: u64, budget: u64) -> Result<u64> {
    let mut released = 0u64;
    while released < budget {
        let Some(target) = books.next_release() else { break };
        let pages = match target {
            Ref::Node(loc) => match load_node(pager, loc) {
                Ok(node) => {
                    for held in node_references(&node) {
                        books.dereference(held);
                    }
                    vec![loc.page]
                }
                Err(err) if err.is_corruption() => vec![loc.page],
                Err(err) => return Err(err),
            },
            Ref::Overflow { first_page, len, hash } => match pager.overflow_chain(first_page, len, hash) {
                Ok(pages) => pages,
                Err(err) if err.is_corruption() => vec![first_page],
                Err(err) => return Err(err),
            },
            Ref::SpaceMap(loc) => match chain::read(pager.file(), loc, pager.page_count()) {
                Ok((_, pages)) => pages,
                Err(err) if err.is_corruption() => {
                    pager.report(err);
                    vec![loc.page]
                }
                Err(err) => return Err(err),
            },
        };
        // Paired with `Ref::page`: a reference is counted on, and released from, its first slot.
        assert_eq!(pages.first(), Some(&target.page()), "a release frees the slot its reference is counted on");
        released += pages.len() as u64;
        books.released(&pages, generation);
    }
    Ok(released)
}
