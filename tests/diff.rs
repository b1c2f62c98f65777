//! `relicview diff`: pairs made by editing real structure, the expected offsets computed
//! here from each edit and the format notes (docs/formats/biz2.md: a chunk is a tag word, a
//! 1-, 2- or 4-byte length, then its payload; XYZ_N_UV vertices are 8 floats, position
//! first), never read back through our reader.
mod common;

use relicview::demo::large_model;
use relicview::formats::pods::biz2::writer::{write_file, WriteOptions};
use relicview::formats::pods::biz2::Biz2File;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// These tests open 7z archives as the CLI does: under its allocator (containers' ceiling.rs).
#[global_allocator]
static ALLOCATOR: relicview::containers::ceiling::CeilingAllocator =
    relicview::containers::ceiling::CeilingAllocator;

/// A scratch folder of this test's own, removed when the test ends (tests/common).
fn temp_dir(name: &str) -> common::Scratch {
    common::scratch(&format!("diff-{name}"))
}

fn diff(a: &Path, b: &Path) -> (i32, Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_relicview"))
        .args(["diff", "--json"])
        .arg(a)
        .arg(b)
        .output()
        .unwrap();
    let json = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    (out.status.code().unwrap(), json)
}

fn write(dir: &Path, name: &str, model: &Biz2File) -> (PathBuf, Vec<u8>) {
    let bytes = write_file(model, WriteOptions::default());
    let path = dir.join(name);
    std::fs::write(&path, &bytes).unwrap();
    (path, bytes)
}

fn find(hay: &[u8], needle: &[u8], nth: usize) -> usize {
    hay.windows(needle.len())
        .enumerate()
        .filter(|(_, w)| *w == needle)
        .nth(nth)
        .map(|(i, _)| i)
        .expect("present")
}

/// Where the vertex chunk of a large_model patch starts, found by its first two vertices
/// (position, normal (0, 1, 0) and uv (0, 0), then the next position, as written) and
/// framed as the notes say: a 34,848-byte payload (1,089 vertices of 32 bytes) takes a
/// 2-byte length after the 2-byte tag word.
fn vertex_chunk(bytes: &[u8], positions: &[[f32; 3]]) -> usize {
    let floats = [
        positions[0][0],
        positions[0][1],
        positions[0][2],
        0.0,
        1.0,
        0.0,
        0.0,
        0.0,
        positions[1][0],
        positions[1][1],
        positions[1][2],
    ];
    let needle: Vec<u8> = floats.iter().flat_map(|f| f.to_le_bytes()).collect();
    let payload = find(bytes, &needle, 0);
    assert_eq!(
        u16::from_le_bytes([bytes[payload - 2], bytes[payload - 1]]),
        1089 * 32,
        "the length before the payload"
    );
    payload - 4
}

fn vertices(m: &mut Biz2File, patch: usize) -> &mut Vec<[f32; 3]> {
    &mut m.objects[0].lods[0].patches[patch].primitives[0]
        .vertices
        .positions
}

fn counts(j: &Value) -> [u64; 4] {
    let r = &j["records"];
    ["same", "changed", "added", "removed"].map(|k| r[k].as_u64().unwrap())
}

#[test]
fn an_identical_copy_is_the_same_and_exits_0() {
    let dir = temp_dir("same");
    let (a, _) = write(&dir, "A.BGF", &large_model(2));
    let (b, _) = write(&dir, "B.BGF", &large_model(2));
    let (code, j) = diff(&a, &b);
    assert_eq!(code, 0, "{j}");
    assert_eq!(j["same"], true);
    let [same, changed, added, removed] = counts(&j);
    assert!(same > 0);
    assert_eq!([changed, added, removed], [0, 0, 0]);
    assert_eq!(
        (j["kind_a"].as_str(), j["kind_b"].as_str()),
        (Some("geometry"), Some("geometry"))
    );
    assert_eq!(j["geometry"]["vertices_moved"], 0);
}

#[test]
fn a_vertex_moved_and_two_edits_in_different_patches_are_changed_records_at_their_offsets() {
    let dir = temp_dir("moved");
    let original = large_model(3);
    let (a, bytes_a) = write(&dir, "A.BGF", &original);
    let mut edited = original.clone();
    vertices(&mut edited, 1)[5][1] += 0.25;
    let (b, bytes_b) = write(&dir, "B.BGF", &edited);
    let (code, j) = diff(&a, &b);
    assert_eq!(code, 1, "{j}");
    assert_eq!(j["same"], false);
    let [_, changed, added, removed] = counts(&j);
    assert_eq!([changed, added, removed], [1, 0, 0], "{j}");
    let at = vertex_chunk(
        &bytes_a,
        &original.objects[0].lods[0].patches[1].primitives[0]
            .vertices
            .positions,
    );
    assert_eq!(
        vertex_chunk(
            &bytes_b,
            &original.objects[0].lods[0].patches[1].primitives[0]
                .vertices
                .positions
        ),
        at
    );
    let c = &j["changed"][0];
    assert_eq!(
        (c["offset_a"].as_u64(), c["offset_b"].as_u64()),
        (Some(at as u64), Some(at as u64))
    );
    assert!(
        c["path_a"]
            .as_str()
            .unwrap()
            .starts_with("OBJECT[0]/LOD[0]/PATCH[1]/"),
        "{c}"
    );
    // The bytes that differ are the moved vertex's y, inside that record.
    let first = bytes_a
        .iter()
        .zip(&bytes_b)
        .position(|(x, y)| x != y)
        .unwrap();
    assert!(
        (at + 4 + 5 * 32 + 4..at + 4 + 5 * 32 + 8).contains(&first),
        "{first} vs {at}"
    );
    let g = &j["geometry"];
    assert!(g["vertices_moved"].as_u64().unwrap() >= 1, "{g}");
    assert!(
        (g["max_displacement"].as_f64().unwrap() - 0.25).abs() < 1e-5,
        "{g}"
    );
    assert_eq!(g["triangles_a"], g["triangles_b"]);

    // Two edits, in patches 0 and 2: two changed records, each at its own patch's vertices.
    let mut twice = original.clone();
    vertices(&mut twice, 0)[7][1] -= 1.0;
    vertices(&mut twice, 2)[9][0] += 0.5;
    let (b2, _) = write(&dir, "B2.BGF", &twice);
    let (code, j) = diff(&a, &b2);
    assert_eq!(code, 1);
    assert_eq!(counts(&j)[1..], [2, 0, 0], "{j}");
    let offsets: Vec<u64> = j["changed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["offset_a"].as_u64().unwrap())
        .collect();
    let expected: Vec<u64> = [0, 2]
        .iter()
        .map(|&p| {
            vertex_chunk(
                &bytes_a,
                &original.objects[0].lods[0].patches[p].primitives[0]
                    .vertices
                    .positions,
            ) as u64
        })
        .collect();
    assert_eq!(offsets, expected);
}

#[test]
fn two_versions_inside_a_solid_7z_compare_as_they_do_loose() {
    // 7-Zip packs both into one solid block: each is decoded from the block's start.
    let dir = temp_dir("7z");
    let original = large_model(3);
    let (a, _) = write(&dir, "A.BGF", &original);
    let mut edited = original.clone();
    vertices(&mut edited, 1)[5][1] += 0.25;
    let (b, _) = write(&dir, "B.BGF", &edited);
    let sevenz = dir.join("VERSIONS.7z");
    let made = Command::new("7zz")
        .current_dir(&dir)
        .args(["a", "-bso0", "-bsp0", "-t7z", "-m0=LZMA2", "-ms=on"])
        .arg(&sevenz)
        .args(["A.BGF", "B.BGF"])
        .status();
    assert!(made
        .expect("7zz runs (scripts/setup.sh installs it)")
        .success());
    let (loose_code, loose) = diff(&a, &b);
    let (packed_code, packed) = diff(&sevenz.join("A.BGF"), &sevenz.join("B.BGF"));
    assert_eq!((packed_code, loose_code), (1, 1));
    for key in [
        "same", "changed", "added", "removed", "geometry", "kind_a", "kind_b",
    ] {
        assert_eq!(packed[key], loose[key], "{key}");
    }
    let (code, j) = diff(&sevenz.join("A.BGF"), &a);
    assert_eq!(
        (code, &j["same"]),
        (0, &Value::Bool(true)),
        "the copy inside the 7z is the loose file: {j}"
    );
}

#[test]
fn a_material_reference_removed_is_a_removed_record_and_the_rest_still_aligns() {
    let dir = temp_dir("material");
    let original = large_model(3);
    let (a, bytes_a) = write(&dir, "A.BGF", &original);
    let mut edited = original.clone();
    edited.objects[0].lods[0].patches[1].front = None;
    let (b, _) = write(&dir, "B.BGF", &edited);
    let (code, j) = diff(&a, &b);
    assert_eq!(code, 1);
    let [same, changed, added, removed] = counts(&j);
    assert_eq!([changed, added, removed], [0, 0, 1], "{j}");
    // The second patch's material name, after a 2-byte tag word, a 1-byte length and the
    // reference's type byte (1: named).
    let at = find(&bytes_a, b"demo:hull_mtl", 1) - 4;
    assert_eq!(bytes_a[at + 3], 1);
    assert_eq!(j["removed"][0]["offset_a"].as_u64(), Some(at as u64), "{j}");
    assert!(j["removed"][0]["path"]
        .as_str()
        .unwrap()
        .starts_with("OBJECT[0]/LOD[0]/PATCH[1]/"));
    // Everything else, the vertices of the patch after it included, is the same.
    let (_, whole) = diff(&a, &a);
    assert_eq!(same + 1, counts(&whole)[0]);
}

#[test]
fn a_map_with_a_line_changed_one_added_and_one_removed() {
    let dir = temp_dir("map");
    let lines: Vec<String> = (0..12)
        .map(|i| format!("instance=crate {i} 0 {} 0 0 0", i * 8))
        .collect();
    let mut a_lines = vec!["[arena1]".to_string()];
    a_lines.extend(lines.iter().cloned());
    let mut b_lines = a_lines.clone();
    b_lines[3] = "instance=crate 2 0 99 0 0 0".into(); // changed
    b_lines.insert(6, "instance=tower 5 0 5 0 0 0".into()); // added after A's line 6
    b_lines.remove(10); // A's line 10 (index 9) removed
    let text = |l: &[String]| l.iter().map(|x| format!("{x}\r\n")).collect::<String>();
    let (ta, tb) = (text(&a_lines), text(&b_lines));
    let start = |l: &[String], i: usize| l[..i].iter().map(|x| x.len() + 2).sum::<usize>() as u64;
    std::fs::write(dir.join("A.MAP"), &ta).unwrap();
    std::fs::write(dir.join("B.MAP"), &tb).unwrap();
    let (code, j) = diff(&dir.join("A.MAP"), &dir.join("B.MAP"));
    assert_eq!(code, 1, "{j}");
    assert_eq!(counts(&j), [a_lines.len() as u64 - 2, 1, 1, 1], "{j}");
    let c = &j["changed"][0];
    assert_eq!(
        (c["offset_a"].as_u64(), c["offset_b"].as_u64()),
        (Some(start(&a_lines, 3)), Some(start(&b_lines, 3)))
    );
    assert_eq!(c["fields"][0]["a"], a_lines[3].as_str());
    assert_eq!(c["fields"][0]["b"], "instance=crate 2 0 99 0 0 0");
    assert_eq!(j["added"][0]["offset_b"].as_u64(), Some(start(&b_lines, 6)));
    assert_eq!(j["added"][0]["path"], "line 7");
    assert_eq!(
        j["removed"][0]["offset_a"].as_u64(),
        Some(start(&a_lines, 9))
    );
    assert_eq!(j["removed"][0]["path"], "line 10");
}

#[test]
fn two_worlds_compare_by_placements_moved_added_and_removed() {
    let dir = temp_dir("worlds");
    let sections = "[crate]\r\ntype=model\r\nmodelfile=crate.mod\r\n[tower]\r\ntype=model\r\nmodelfile=tower.mod\r\n";
    let world = |row: &str, arena: &str| {
        format!("{sections}[row]\r\ntype=map\r\n{row}[arena1]\r\ntype=map\r\n{arena}")
    };
    let a = world(
        "instance=crate 0 0 0 0 0 0\r\ninstance=crate 5 0 0 0 0 0\r\n",
        "instance=row 100 0 0 0 0 0\r\ninstance=crate 1 0 1 0 0 0\r\ninstance=crate 2 0 2 0 0 0\r\ninstance=tower 3 0 3 0 0 0\r\n",
    );
    // The second crate moves from z 2 to 9; the row loses its second crate; a third crate
    // is placed at the end.
    let b = world(
        "instance=crate 0 0 0 0 0 0\r\n",
        "instance=row 100 0 0 0 0 0\r\ninstance=crate 1 0 1 0 0 0\r\ninstance=crate 2 0 9 0 0 0\r\ninstance=tower 3 0 3 0 0 0\r\ninstance=crate 4 0 4 0 0.5 0\r\n",
    );
    std::fs::write(dir.join("ARENA1.MAP"), &a).unwrap();
    std::fs::create_dir_all(dir.join("B")).unwrap();
    std::fs::write(dir.join("B/ARENA1.MAP"), &b).unwrap();
    let (code, j) = diff(&dir.join("ARENA1.MAP"), &dir.join("B/ARENA1.MAP"));
    assert_eq!(code, 1);
    let p = &j["placements"];
    // row[0], row[0]/crate[0], crate[0] and tower[0] stay; crate[1] moved.
    assert_eq!(
        p["counts"],
        serde_json::json!({"same": 4, "moved": 1, "added": 1, "removed": 1}),
        "{p}"
    );
    assert_eq!(p["moved"][0]["path"], "crate[1]");
    assert_eq!(p["moved"][0]["model"], "crate.mod");
    assert_eq!(
        p["moved"][0]["position_a"],
        serde_json::json!([2.0, 0.0, 2.0])
    );
    assert_eq!(
        p["moved"][0]["position_b"],
        serde_json::json!([2.0, 0.0, 9.0])
    );
    // The nested crate is placed under the row: its world position adds the row's.
    assert_eq!(p["removed"][0]["path"], "row[0]/crate[1]");
    assert_eq!(
        p["removed"][0]["position_a"],
        serde_json::json!([105.0, 0.0, 0.0])
    );
    assert_eq!(p["added"][0]["path"], "crate[2]");
    assert_eq!(
        p["added"][0]["rotation_b"],
        serde_json::json!([0.0, 0.5, 0.0])
    );
    // The lines say the same edits as records.
    assert_eq!(counts(&j)[1..], [1, 1, 1], "{j}");
    assert!(
        j.get("geometry").is_none(),
        "a world is compared by its placements"
    );
}

#[test]
fn two_unrelated_models_differ_the_same_way_in_both_directions() {
    let dir = temp_dir("unrelated");
    relicview::demo::write_demo(&dir).unwrap();
    let (a, b) = (
        dir.join("DEMO/VIDEO/CUBE.BGF"),
        dir.join("DEMO/VIDEO/HEXPOD.BGF"),
    );
    let (code, ab) = diff(&a, &b);
    let (_, ba) = diff(&b, &a);
    assert_eq!(code, 1);
    let ([s1, c1, a1, r1], [s2, c2, a2, r2]) = (counts(&ab), counts(&ba));
    assert_eq!(
        (s1, c1, a1, r1),
        (s2, c2, r2, a2),
        "what A→B adds, B→A removes"
    );
    assert!(a1 + r1 + c1 > 0);
    // A different kind: compared by bytes, with a note saying so.
    let (code, j) = diff(&a, &dir.join("DEMO/MAPS/ARENA1.MAP"));
    assert_eq!(code, 1);
    assert!(
        j["notes"][0]
            .as_str()
            .unwrap()
            .contains("compared by bytes"),
        "{j}"
    );
    // A file that cannot be read: exit 2, and the error names it.
    let (code, j) = diff(&a, &dir.join("NOT_THERE.BGF"));
    assert_eq!(code, 2);
    assert!(
        j["error"]["message"]
            .as_str()
            .unwrap()
            .contains("NOT_THERE.BGF"),
        "{j}"
    );
}

/// Both files opened as the page opens them (from memory, with the demo archive beside).
fn open_pair(
    extra: Vec<(String, Vec<u8>)>,
    a: &str,
    b: &str,
) -> (relicview::archive::Opened, relicview::archive::Opened) {
    let mut files = relicview::demo::demo_files();
    files.extend(extra);
    let source = relicview::archive::MemorySource::new(files);
    let archive = std::cell::RefCell::new(source.archive());
    let open =
        |p: &str| pollster::block_on(relicview::archive::open_file(&archive, &source, p)).unwrap();
    (open(a), open(b))
}

#[test]
fn the_page_sees_the_moved_vertex_as_one_changed_row_its_float_as_the_bytes_and_its_colour_in_the_difference_view(
) {
    let original = large_model(3);
    let mut edited = original.clone();
    vertices(&mut edited, 1)[5][1] += 0.25;
    let (bytes_a, bytes_b) = (
        write_file(&original, WriteOptions::default()),
        write_file(&edited, WriteOptions::default()),
    );
    let at = vertex_chunk(
        &bytes_a,
        &original.objects[0].lods[0].patches[1].primitives[0]
            .vertices
            .positions,
    );
    let (oa, ob) = open_pair(
        vec![("A.BGF".into(), bytes_a.clone()), ("B.BGF".into(), bytes_b)],
        "A.BGF",
        "B.BGF",
    );
    let scenes = (oa.scene.as_ref().unwrap(), ob.scene.as_ref().unwrap());
    let (sa, sb) = (oa.side(), ob.side());
    let (c, alignment) = relicview::diff::compare_in_full(&sa, &sb);
    // One row changed, at the vertex chunk on both sides; its patch and the containers above
    // it say something inside differs; every other row is the same.
    let changed: Vec<_> = alignment
        .rows
        .iter()
        .filter(|r| r.status == relicview::diff::RowStatus::Changed)
        .collect();
    assert_eq!(changed.len(), 1);
    assert_eq!(
        (
            changed[0].range.a.unwrap()[0],
            changed[0].range.b.unwrap()[0]
        ),
        (at, at)
    );
    let inner = alignment
        .rows
        .iter()
        .filter(|r| r.status == relicview::diff::RowStatus::Inner)
        .count();
    assert!(inner >= 3, "OBJECT, LOD and PATCH hold the change: {inner}");
    assert_eq!(
        alignment.rows.len(),
        oa.described().inspector().unwrap().chunks.len(),
        "both trees have the same rows, one row each"
    );
    // The bytes that differ: within the moved vertex's y (its 4 bytes: 8 floats a vertex,
    // position first, after the chunk's 2-byte tag and 2-byte length).
    let y = at + 4 + 5 * 32 + 4;
    assert_eq!(alignment.bytes.a, alignment.bytes.b);
    assert_eq!(alignment.bytes.a.len(), 1);
    let [s, e] = alignment.bytes.a[0];
    assert!(s >= y && e <= y + 4 && e > s, "{s}..{e} in {y}..{}", y + 4);
    // The difference view: the moved vertices at the far end of the scale, the rest grey.
    let d = relicview::diff::difference_scene(&sa, &sb, &alignment)
        .unwrap()
        .scene;
    let colors: Vec<[u8; 4]> = d
        .meshes
        .iter()
        .flat_map(|m| &m.primitives)
        .flat_map(|p| p.colors.clone().unwrap())
        .collect();
    let moved = colors
        .iter()
        .filter(|&&c| c != relicview::diff::UNCHANGED)
        .count();
    assert_eq!(moved, c.geometry.as_ref().unwrap().vertices_moved);
    assert!(colors
        .iter()
        .filter(|&&c| c != relicview::diff::UNCHANGED)
        .all(|&c| c == relicview::diff::MOVED_MOST));
    assert_eq!(d.triangle_count(0), scenes.0.triangle_count(0));
}

#[test]
fn the_difference_view_of_two_worlds_shows_each_placement_by_what_became_of_it() {
    let files = relicview::demo::demo_files();
    let arena = files
        .iter()
        .find(|(p, _)| p.ends_with("MAPS/ARENA1.MAP"))
        .unwrap();
    let text = String::from_utf8(arena.1.clone()).unwrap();
    // The first crate moves from z -6 to -12, the well goes, a crate is added after the
    // others (placements pair by their order among the placements of their section).
    let mut b = text
        .replace(
            "instance=crate 6 0 -6 0 0.3 0",
            "instance=crate 6 0 -12 0 0.3 0",
        )
        .replace("instance=well -22 0 22 0 0 0\r\n", "")
        .replace("instance=well -22 0 22 0 0 0\n", "");
    assert!(
        text.trim_end().ends_with("instance=crate 0 0 10 0 0 0"),
        "the arena section comes last"
    );
    b = format!("{}\ninstance=crate 0 0 0 0 0 0\n", b.trim_end());
    assert_ne!(b, text);
    let a_path = arena.0.clone();
    let b_path = a_path.replace("ARENA1.MAP", "ARENA2.MAP");
    let (oa, ob) = open_pair(vec![(b_path.clone(), b.into_bytes())], &a_path, &b_path);
    let scenes = (oa.scene.as_ref().unwrap(), ob.scene.as_ref().unwrap());
    let (sa, sb) = (oa.side(), ob.side());
    let (c, alignment) = relicview::diff::compare_in_full(&sa, &sb);
    let p = c.placements.as_ref().unwrap();
    assert_eq!(
        (p.counts.moved, p.counts.removed, p.counts.added),
        (1, 1, 1),
        "{p:?}"
    );
    let d = relicview::diff::difference_scene(&sa, &sb, &alignment)
        .unwrap()
        .scene;
    // Every node of A keeps its place; each placement's models take its colour.
    let colour_under = |placement: &relicview::formats::Placement| -> Vec<[u8; 4]> {
        let root = placement.node.unwrap() as usize;
        let mut under = vec![false; d.nodes.len()];
        let mut out = Vec::new();
        for (i, n) in d.nodes.iter().enumerate() {
            under[i] = i == root || n.parent.is_some_and(|p| under[p as usize]);
            if let (true, Some(m)) = (under[i], n.mesh) {
                out.extend(
                    d.meshes[m as usize]
                        .primitives
                        .iter()
                        .flat_map(|p| p.colors.clone().unwrap()),
                );
            }
        }
        out
    };
    let a_places = oa.described().placements();
    let of = |path: &str| {
        a_places
            .iter()
            .find(|p| p.path == path)
            .unwrap_or_else(|| panic!("{path}"))
    };
    let moved = colour_under(of(&p.moved[0].path));
    assert!(!moved.is_empty() && moved.iter().all(|&c| c == relicview::diff::MOVED_FROM));
    let removed = colour_under(of(&p.removed[0].path));
    assert!(!removed.is_empty() && removed.iter().all(|&c| c == relicview::diff::ONLY_IN_A));
    assert!(colour_under(of("hall[0]"))
        .iter()
        .all(|&c| c == relicview::diff::UNCHANGED));
    // B's side: the moved crate where B put it, the added crate, on their own layers.
    let world = d.world(&d.pose(0.0));
    let on_layer = |name: &str| -> Vec<usize> {
        let l = d
            .layers
            .iter()
            .position(|x| x == name)
            .unwrap_or_else(|| panic!("no layer {name}: {:?}", d.layers)) as u32;
        let root = d.nodes.iter().position(|n| n.layer == Some(l)).unwrap() as u32;
        d.nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.parent == Some(root) && n.mesh.is_some())
            .map(|(i, _)| i)
            .collect()
    };
    let moved_b = on_layer(relicview::diff::LAYER_MOVED_IN_B);
    assert!(!moved_b.is_empty());
    for &i in &moved_b {
        let at = world[i].transform_point3(glam::Vec3::ZERO);
        // The crate model sits at its placement (its own nodes may offset it a little).
        assert!(
            (at.z - -12.0).abs() < 3.0 && (at.x - 6.0).abs() < 3.0,
            "{at}"
        );
    }
    assert!(!on_layer(relicview::diff::LAYER_ONLY_IN_B).is_empty());
    assert!(
        d.triangle_count(0) > scenes.0.triangle_count(0),
        "B's moved and added crates are drawn beside A"
    );
}
