//! Wire ids are stable: every id in `wire_ids.txt` still names the same op. New ops are appended
//! (`RYNAMO_BLESS=1` adds their lines; it never rewrites an existing one).

use crate::Op;

const FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src/tests/wire_ids.txt");

#[test]
fn wire_ids_never_change() {
    let text = std::fs::read_to_string(FILE).expect("wire_ids.txt is readable");
    let mut listed = 0usize;
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let (id, name) = line.split_once(' ').expect("lines are `id name`");
        let id: u16 = id.parse().expect("ids are numbers");
        let op =
            Op::from_id(id).unwrap_or_else(|| panic!("wire id {id} ({name}) no longer exists"));
        assert_eq!(op.name(), name, "wire id {id} changed meaning");
        assert_eq!(op.id(), id);
        assert_eq!(Op::ALL[listed], op, "wire_ids.txt lists ids in table order");
        listed += 1;
    }
    let new: Vec<String> = Op::ALL[listed..]
        .iter()
        .map(|op| format!("{} {}\n", op.id(), op.name()))
        .collect();
    if new.is_empty() {
        return;
    }
    if std::env::var("RYNAMO_BLESS").is_ok_and(|v| v == "1") {
        let mut text = text;
        text.extend(new);
        std::fs::write(FILE, text).expect("wire_ids.txt is writable");
    } else {
        panic!(
            "ops without a line in wire_ids.txt (RYNAMO_BLESS=1 appends them):\n{}",
            new.concat()
        );
    }
}

#[test]
fn ids_increase_in_table_order() {
    // Dense within each block; a block reserved for a parallel branch may leave a gap.
    for (i, &op) in Op::ALL.iter().enumerate() {
        if i > 0 {
            assert!(Op::ALL[i - 1].id() < op.id(), "{op}");
        }
        assert_eq!(Op::from_id(op.id()), Some(op));
    }
    assert_eq!(Op::from_id(Op::ALL[Op::ALL.len() - 1].id() + 1), None);
}
