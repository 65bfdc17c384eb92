//! The references a node holds, by what they point at: the one definition of what the
//! space map counts for a B-tree page (`space/mod.rs`), used when a node is written
//! (count them), when it is released (drop them) and when `verify` recounts everything.
//! It lives with the tree, not the space map: the space map knows slots, not nodes.

use super::node::{Branch, Node, Value};
use crate::space::Ref;

/// The references a B-tree node holds: a branch's children; a leaf's overflow chains
/// and the roots of the trees it stores as values. The node must be on disk or about
/// to be written (its children and values are on disk).
pub fn node_references(node: &Node) -> Vec<Ref> {
    match node {
        Node::Branch(Branch { children, .. }) => children
            .iter()
            .map(|child| Ref::Node(child.disk_loc().expect("a written node's children are on disk")))
            .collect(),
        Node::Leaf(leaf) => leaf
            .values
            .iter()
            .filter_map(|value| match value {
                Value::Overflow { first_page, len, hash } => Some(Ref::Overflow { first_page: *first_page, len: *len, hash: *hash }),
                Value::Tree(tree) => {
                    tree.root.as_ref().map(|root| Ref::Node(root.disk_loc().expect("a written leaf's trees are on disk")))
                }
                Value::Bytes(_) => None,
            })
            .collect(),
    }
}
