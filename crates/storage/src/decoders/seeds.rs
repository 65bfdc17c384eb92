//! Seed inputs for every target, made by the real encoders: a small database on the
//! simulated file system (leaves, a branch, an overflow chain, root set and pin table,
//! both meta slots, the commits in its WAL) and a WAL written in several batches,
//! plus a few broken variants of each. The replay test runs them on every `cargo
//! test`; `cargo run -p tenantdb-storage --example fuzz_seeds` writes them to
//! `crates/storage/fuzz/corpus/<target>/seed-<name>` for the fuzzer to start from.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use crate::btree::{node_codec, Bytes, Leaf, Node, TreeRoot, Value};
use crate::commit::{Commit, Op};
use crate::database::{Database, Options};
use crate::limits::{INLINE_VALUE_BYTES_MAX, KEY_BYTES_MAX, PAGE_BYTES};
use crate::meta::Meta;
use crate::page::{self, PageType};
use crate::vfs::{SimVfs, Vfs};
use crate::wal::Wal;

type Seeds = Vec<(String, Vec<u8>)>;

/// The seeds of `target` as `(name, input)`. Panics on an unknown target.
pub fn seeds(target: &str) -> Seeds {
    let sample = sample();
    match target {
        "page_slot" => page_slot(sample),
        "btree_node" => btree_node(sample),
        "wal_segments" => wal_segments(sample),
        "commit_payload" => commit_payload(sample),
        "meta_record" => meta_record(sample),
        "space_map" => space_map(sample),
        "checkpoint_journal" => checkpoint_journal(sample),
        _ => panic!("unknown fuzz target {target}"),
    }
}

/// What the seeds are cut from.
struct Sample {
    /// `(page number, slot image)` of each page in the database's page file.
    slots: Vec<(u64, Vec<u8>)>,
    /// The database's WAL segment, without the zeros after its frames.
    database_wal: Vec<u8>,
    /// The frame payloads of that segment.
    payloads: Vec<Vec<u8>>,
    /// A segment of three batches (frames 1-3, 4, 5-6) and where each batch starts.
    batched_wal: Vec<u8>,
    batch_offsets: [usize; 3],
    /// The space map the database's newest meta record names, as its chain holds it.
    space_map: Vec<u8>,
}

fn sample() -> &'static Sample {
    static SAMPLE: OnceLock<Sample> = OnceLock::new();
    SAMPLE.get_or_init(build_sample)
}

fn put(tree: &str, key: &[u8], value: &[u8]) -> Op {
    Op::Put { tree: tree.as_bytes().into(), key: key.into(), value: value.into() }
}

fn commit(meta: &str, ops: Vec<Op>) -> Commit {
    Commit { meta: meta.as_bytes().to_vec(), ops }
}

/// A commit holding every kind of operation.
fn every_op() -> Commit {
    commit(
        "{\"event\":1}",
        vec![
            put("rows", b"k", b"value"),
            Op::Delete { tree: b"rows".to_vec(), key: b"row-0001".to_vec() },
            Op::DropTree { tree: b"gone".to_vec() },
            Op::CopyTree { from: b"rows".to_vec(), to: b"copy".to_vec() },
            Op::CopyTreeFromPin { pin: b"snap".to_vec(), from: b"rows".to_vec(), to: b"old".to_vec() },
            Op::Pin { name: b"snap2".to_vec() },
            Op::Unpin { name: b"snap2".to_vec() },
            Op::PinPrefix { name: b"snap3".to_vec(), prefix: b"ro".to_vec() },
            Op::CompactTree { tree: b"rows".to_vec() },
        ],
    )
}

fn build_sample() -> Sample {
    let vfs = SimVfs::new();
    let dir = Path::new("/seed/db");
    let options = Options { wal_preallocate_bytes: 0, vfs: Arc::new(vfs.clone()) as Arc<dyn Vfs>, ..Options::default() };
    let db = Database::open(dir, options).expect("open the seed database");
    // Enough small rows for two leaves under a branch, and one value over the inline cap.
    let rows = (0..300).map(|i| put("rows", format!("row-{i:04}").as_bytes(), &[i as u8; 8])).collect();
    let big: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8).collect();
    for c in [commit("{}", rows), commit("{}", vec![put("rows", b"big", &big), put("other", b"a", b"1")])] {
        db.commit_sync(c).expect("seed commit");
    }
    db.commit_sync(commit("", vec![Op::Pin { name: b"snap".to_vec() }])).expect("pin");
    db.checkpoint().expect("checkpoint");
    db.commit_sync(every_op()).expect("every op");
    db.close().expect("close the seed database");

    let pages = vfs.read_raw(&dir.join("pages")).expect("the page file");
    let space_map = {
        let file = crate::page::PageFile::open_read(&vfs, dir).expect("open the page file").expect("a page file");
        let (meta, _) = Meta::read_newest(&file).expect("a meta record");
        let (bytes, _) = crate::space::chain::read(&file, meta.space.expect("a checkpointed record names its space map"), meta.page_count).expect("the chain");
        bytes
    };
    let slots = pages.chunks(PAGE_BYTES).enumerate().map(|(i, s)| (i as u64, s.to_vec())).collect();
    let segment = vfs.read_raw(&dir.join("wal").join(format!("{:020}.wal", 1))).expect("the WAL segment");
    let database_wal = trim_zeros(&segment).to_vec();
    let payloads = super::wal_layout::frames(&database_wal).iter().map(|f| f.payload(&database_wal).to_vec()).collect();
    let (batched_wal, batch_offsets) = batched_wal();
    Sample { slots, database_wal, payloads, batched_wal, batch_offsets, space_map }
}

fn batched_wal() -> (Vec<u8>, [usize; 3]) {
    let vfs = SimVfs::new();
    let (wal, _) = Wal::open(Arc::new(vfs.clone()) as Arc<dyn Vfs>, Path::new("/seed/wal"), 0, 0).expect("open a WAL");
    let payloads: Vec<Vec<u8>> = (1..=6u8).map(|i| commit("", vec![put("t", &[i], &vec![i; i as usize * 3])]).encode()).collect();
    let mut offsets = [0; 3];
    let mut lsn = 1;
    for (b, size) in [3, 1, 2].into_iter().enumerate() {
        offsets[b] = wal.bytes() as usize;
        let batch: Vec<(u64, &[u8])> = (lsn..lsn + size).map(|l| (l, &payloads[l as usize - 1][..])).collect();
        wal.append_batch(&batch).expect("append a batch");
        lsn += size;
    }
    drop(wal);
    let segment = vfs.read_raw(&Path::new("/seed/wal/wal").join(format!("{:020}.wal", 1))).expect("the segment");
    (trim_zeros(&segment).to_vec(), offsets)
}

fn trim_zeros(bytes: &[u8]) -> &[u8] {
    &bytes[..bytes.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1)]
}

fn with_header(header: &[u8], body: &[u8]) -> Vec<u8> {
    [header, body].concat()
}

/// The first slot of `page_type` whose payload satisfies `test`.
fn slot_where(sample: &Sample, page_type: PageType, test: impl Fn(&[u8]) -> bool) -> (u64, Vec<u8>, Vec<u8>) {
    sample
        .slots
        .iter()
        .find_map(|(no, slot)| {
            let page = page::decode(*no, slot).ok()?;
            (page.page_type == page_type && test(&page.payload)).then(|| (*no, slot.clone(), page.payload))
        })
        .unwrap_or_else(|| panic!("the seed database has no such {page_type:?} page"))
}

/// A leaf holding a value of `kind` (btree/node_codec.rs: 0 inline, 1 overflow, 2 tree).
fn leaf_with_kind(sample: &Sample, kind: u8) -> (u64, Vec<u8>, Vec<u8>) {
    slot_where(sample, PageType::Leaf, |payload| {
        let count = u16::from_le_bytes([payload[1], payload[2]]);
        count > 0 && payload[5] == kind
    })
}

fn page_slot(sample: &Sample) -> Seeds {
    let slot_input = |flags: u8, slot: &[u8]| with_header(&[flags], trim_zeros(slot));
    let (_, meta, _) = slot_where(sample, PageType::Meta, |_| true);
    let (_, leaf, _) = leaf_with_kind(sample, 0);
    let (_, overflow_ref, _) = leaf_with_kind(sample, 1);
    let (_, root_set, _) = leaf_with_kind(sample, 2);
    let (_, branch, _) = slot_where(sample, PageType::Branch, |_| true);
    let (_, overflow, _) = slot_where(sample, PageType::Overflow, |_| true);
    let raw = page::encode(9, 3, PageType::Raw, b"raw bytes").expect("a raw page");
    let at_limits = page::encode(5, 2, PageType::Leaf, &leaf_at_limits()).expect("a leaf fits its page");
    let mut flipped = leaf.clone();
    flipped[100] ^= 0x20;
    let mut bad_type = leaf.clone();
    bad_type[24] = 9;
    vec![
        ("meta".into(), slot_input(0, &meta)),
        ("leaf".into(), slot_input(0, &leaf)),
        ("leaf-overflow-ref".into(), slot_input(0, &overflow_ref)),
        ("root-set".into(), slot_input(0, &root_set)),
        ("branch".into(), slot_input(0, &branch)),
        ("overflow".into(), slot_input(0, &overflow)),
        ("raw".into(), slot_input(0, &raw)),
        ("leaf-at-limits".into(), slot_input(0, &at_limits)),
        ("broken-flipped-byte".into(), slot_input(0, &flipped)),
        ("broken-misdirected".into(), slot_input(2, &meta)),
        ("broken-zeroed".into(), vec![0]),
        ("sealed-unknown-type".into(), slot_input(1, &bad_type)),
    ]
}

/// A leaf at the limits: a key of `KEY_BYTES_MAX` bytes with an inline value of
/// `INLINE_VALUE_BYTES_MAX`, then an empty tree reference (a shape the sample database
/// has no page of).
fn leaf_at_limits() -> Vec<u8> {
    let mut leaf = Leaf::default();
    leaf.push(&[b'k'; KEY_BYTES_MAX], Value::Bytes(Bytes::from(vec![b'v'; INLINE_VALUE_BYTES_MAX])));
    leaf.push(b"z", Value::Tree(TreeRoot::default()));
    let (page_type, payload) = node_codec::encode(&Node::Leaf(leaf));
    assert_eq!(page_type, PageType::Leaf);
    payload
}

fn btree_node(sample: &Sample) -> Seeds {
    let (_, _, leaf) = leaf_with_kind(sample, 0);
    let (_, _, overflow_ref) = leaf_with_kind(sample, 1);
    let (_, _, root_set) = leaf_with_kind(sample, 2);
    let (_, _, branch) = slot_where(sample, PageType::Branch, |_| true);
    vec![
        ("leaf".into(), with_header(&[0], &leaf)),
        ("leaf-overflow-ref".into(), with_header(&[0], &overflow_ref)),
        ("root-set".into(), with_header(&[0], &root_set)),
        ("branch".into(), with_header(&[1], &branch)),
        ("leaf-at-limits".into(), with_header(&[0], &leaf_at_limits())),
        ("broken-truncated-leaf".into(), with_header(&[0], &leaf[..leaf.len() - 1])),
        ("broken-leaf-as-branch".into(), with_header(&[1], &leaf)),
    ]
}

fn meta_record(sample: &Sample) -> Seeds {
    let (_, _, newest) = slot_where(sample, PageType::Meta, |_| true);
    let first = Meta::initial();
    let second = Meta { generation: 1, ..first.clone() };
    let mut bad_magic = newest.clone();
    bad_magic[0] = b't';
    // The same record as a directory from before the space map holds it (format 1).
    let mut format_1 = newest[..104].to_vec();
    format_1[8..12].copy_from_slice(&1u32.to_le_bytes());
    vec![
        ("format-1".into(), format_1),
        ("checkpointed".into(), newest),
        ("initial-0".into(), first.encode()),
        ("initial-1".into(), second.encode()),
        ("broken-magic".into(), bad_magic),
    ]
}

fn space_map(sample: &Sample) -> Seeds {
    let mut full = crate::space::RangeSet::new();
    full.insert_range(5, 9);
    full.insert(300);
    let mut pending = std::collections::BTreeMap::new();
    let mut held = crate::space::RangeSet::new();
    held.insert_range(20, 23);
    pending.insert(7, held);
    let releasing = vec![
        crate::space::Ref::Node(crate::page::DiskLoc { page: 40, checksum: 9 }),
        crate::space::Ref::Overflow { first_page: 41, len: 5000, hash: 3 },
        crate::space::Ref::SpaceMap(crate::page::DiskLoc { page: 400, checksum: 1 }),
    ];
    let busy = crate::space::SpaceMap::from_parts(500, vec![(10, 2), (11, 3)], full, pending, releasing).expect("a consistent map");
    let busy = crate::space::encode(&busy);
    vec![
        ("database".into(), sample.space_map.clone()),
        ("new".into(), crate::space::encode(&crate::space::SpaceMap::default())),
        ("every-part".into(), busy.clone()),
        ("broken-truncated".into(), busy[..busy.len() - 1].to_vec()),
    ]
}

/// Journals written by the real writer: one page, and the sample's first slots.
fn checkpoint_journal(sample: &Sample) -> Seeds {
    let vfs = SimVfs::new();
    let dir = Path::new("/seed/journal");
    vfs.create_dir_all(dir).expect("a directory");
    let journal = crate::checkpoint::Journal::open(&vfs, dir).expect("a journal");
    let path = dir.join(crate::checkpoint::JOURNAL_FILE_NAME);
    let mut seeds = Seeds::new();
    for (name, count) in [("one-page", 1), ("pages", 4)] {
        let mut writer = journal.begin(9);
        for (page, slot) in sample.slots.iter().skip(2).take(count) {
            writer.page(*page, slot).expect("a journal entry");
        }
        writer.finish(&Meta { generation: 9, ..Meta::initial() }).expect("a finished journal");
        let bytes = vfs.read_raw(&path).expect("the journal file");
        if name == "pages" {
            seeds.push(("broken-truncated".into(), bytes[..bytes.len() - 1].to_vec()));
        }
        seeds.push((name.into(), bytes));
    }
    seeds
}

fn commit_payload(sample: &Sample) -> Seeds {
    let every = every_op().encode();
    let mut seeds: Seeds = sample.payloads.iter().enumerate().map(|(i, p)| (format!("database-frame-{}", i + 1), p.clone())).collect();
    seeds.push(("every-op".into(), every.clone()));
    // A frame written before format version 2, which holds no pin prefix.
    let ops = every_op().ops.into_iter().filter(|op| !matches!(op, Op::PinPrefix { .. })).collect();
    let mut version_1 = commit("{\"event\":1}", ops).encode();
    version_1[0] = 1;
    seeds.push(("version-1".into(), version_1));
    seeds.push(("broken-truncated".into(), every[..every.len() - 1].to_vec()));
    seeds.push(("broken-trailing-byte".into(), [&every[..], &[0]].concat()));
    seeds
}

/// Header of a `wal_segments` input: flags, segment count, damage frame, damage byte
/// (u16), damage xor; then `(first_lsn: u16, len: u16)` for each segment but the last,
/// and the last one's `first_lsn`.
fn wal_input(flags: u8, segments: &[(u16, &[u8])]) -> Vec<u8> {
    let mut out = vec![flags, segments.len() as u8 - 1, 1, 40, 0, 0x10];
    for (i, (first_lsn, bytes)) in segments.iter().enumerate() {
        out.extend_from_slice(&first_lsn.to_le_bytes());
        if i + 1 < segments.len() {
            out.extend_from_slice(&(bytes.len() as u16).to_le_bytes());
        }
    }
    segments.iter().for_each(|(_, bytes)| out.extend_from_slice(bytes));
    out
}

fn wal_segments(sample: &Sample) -> Seeds {
    let wal = &sample.batched_wal;
    let [_, second, third] = sample.batch_offsets;
    let mut synced_damage = wal.clone();
    synced_damage[40] ^= 0x01;
    let preallocated = [&wal[..], &[0u8; 512]].concat();
    vec![
        ("database".into(), wal_input(0, &[(1, &sample.database_wal)])),
        ("three-batches".into(), wal_input(0, &[(1, wal)])),
        ("two-segments".into(), wal_input(0, &[(1, &wal[..second]), (4, &wal[second..])])),
        ("three-segments".into(), wal_input(0, &[(1, &wal[..second]), (4, &wal[second..third]), (5, &wal[third..])])),
        ("preallocated".into(), wal_input(2, &[(1, &preallocated)])),
        ("torn-tail".into(), wal_input(0, &[(1, &wal[..wal.len() - 5])])),
        ("broken-synced-batch".into(), wal_input(0, &[(1, &synced_damage)])),
        ("broken-name".into(), wal_input(0, &[(2, wal)])),
    ]
}
