use std::ops::Deref;
use std::sync::Arc;

use super::node::{MemNode, Node, NodeRef};
use super::node_io::load_node;
use crate::error::Result;
use crate::pager::Pager;

/// A node made available for reading, wherever it lives.
pub enum Loaded {
    Mem(Arc<MemNode>),
    Disk(Arc<Node>),
}

impl Deref for Loaded {
    type Target = Node;
    fn deref(&self) -> &Node {
        match self {
            Loaded::Mem(mem) => &mem.node,
            Loaded::Disk(node) => node,
        }
    }
}

pub fn load(pager: &Pager, node: &NodeRef) -> Result<Loaded> {
    match node {
        NodeRef::Mem(mem) => {
            pager.note_memory_read();
            Ok(Loaded::Mem(mem.clone()))
        }
        NodeRef::Disk(loc) => Ok(Loaded::Disk(load_node(pager, *loc)?)),
    }
}
