//! Damage zones and behaviour words (docs/formats/biz2.md, "SPECIAL words") on models
//! generated from the notes (tests/common/chunks.rs), not from the project's writer: words at
//! object and patch level, several words per string or one per string, mixed case, a zone
//! with no triangles, two LODs, 200 zones in one file and strings of odd bytes. Every zone's
//! patches and triangles, every behaviour word's patches and every unknown word are computed
//! here from the grammar, and checked in `info --json`, the scene (hiding a zone removes
//! exactly its triangles; BLINK blinks), the export (a node per zone under its object), the
//! census and diff.

mod common;

#[path = "common/chunks.rs"]
mod chunks;
use chunks::*;

use relicview::archive::{self, Archive, ArchiveIndex, MemorySource};
use serde_json::Value;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// The notes' vertex block with positions only.
const XYZ: u16 = 0x0080;
const SV_SPECIAL_1994: u16 = 0x0037;
const BEHAVIOURS: [&str; 7] = [
    "PUNCH",
    "BLINK",
    "WIREFRAME",
    "ADDITIVE",
    "ADDITIVE_LODS",
    "GEOMETRIZE",
    "SCROLL",
];

/// A patch as generated: its SPECIAL strings (as bytes: some are not UTF-8) and triangles.
#[derive(Clone)]
struct PatchDef {
    name: String,
    specials: Vec<Vec<u8>>,
    triangles: usize,
}

#[derive(Clone)]
struct ObjectDef {
    name: String,
    specials: Vec<Vec<u8>>,
    /// LOD 0, and the LODs after it (none: a 1994 file with patches straight under OBJECT).
    lods: Vec<Vec<PatchDef>>,
    era_1994: bool,
}

fn patch_chunk(p: &PatchDef, ns: u16) -> Chunk {
    let mut c = vec![leaf(NAME & ns, cstr(&p.name))];
    c.extend(p.specials.iter().map(|s| {
        leaf(
            if ns == !0 {
                SV_SPECIAL
            } else {
                SV_SPECIAL_1994
            },
            [s.as_slice(), &[0]].concat(),
        )
    }));
    if p.triangles > 0 {
        let positions: Vec<f32> = (0..p.triangles * 3)
            .flat_map(|i| {
                [
                    (i / 3) as f32,
                    (i % 3 == 1) as u8 as f32,
                    (i % 3 == 2) as u8 as f32,
                ]
            })
            .collect();
        let indices: Vec<u8> = (0..p.triangles as i32 * 3)
            .flat_map(|i| i.to_le_bytes())
            .collect();
        c.push(node(
            PMESH,
            vec![leaf(XYZ, floats(&positions)), leaf(CONN, indices)],
        ));
    }
    node(PATCH, c)
}

fn model_bytes(objects: &[ObjectDef]) -> Vec<u8> {
    let mut chunks = vec![node(HEADER, vec![])];
    for o in objects {
        let ns = if o.era_1994 { !0x2000 } else { !0 };
        let mut c = vec![leaf(NAME & ns, cstr(&o.name))];
        c.extend(o.specials.iter().map(|s| {
            leaf(
                if o.era_1994 {
                    SV_SPECIAL_1994
                } else {
                    SV_SPECIAL
                },
                [s.as_slice(), &[0]].concat(),
            )
        }));
        if o.era_1994 {
            c.extend(o.lods[0].iter().map(|p| patch_chunk(p, ns)));
        } else {
            for (k, lod) in o.lods.iter().enumerate() {
                let mut l = vec![leaf(
                    LOD_DISTANCE,
                    floats(&[k as f32 * 100.0, (k as f32 + 1.0) * 100.0]),
                )];
                l.extend(lod.iter().map(|p| patch_chunk(p, ns)));
                c.push(node(LOD, l));
            }
        }
        chunks.push(node(OBJECT, c));
    }
    file(b"DIV-BIZ2", &chunks).0
}

/// What the grammar says a patch is: its zones (lower case, first written first), its
/// behaviour words (upper case) and its unknown words (verbatim), each once.
#[derive(Default, Debug, Clone, PartialEq)]
struct Expected {
    zones: Vec<String>,
    behaviours: BTreeSet<String>,
    unknown: Vec<String>,
}

fn expected_words(strings: &[Vec<u8>]) -> Expected {
    let mut e = Expected::default();
    for s in strings {
        let text = String::from_utf8_lossy(&s[..s.iter().position(|&b| b == 0).unwrap_or(s.len())])
            .into_owned();
        let words: Vec<&str> = text.split_ascii_whitespace().collect();
        let mut i = 0;
        while i < words.len() {
            let w = words[i];
            i += 1;
            if w.len() > 3 && w[..3].eq_ignore_ascii_case("dz_") {
                let z = w.to_lowercase();
                if !e.zones.contains(&z) {
                    e.zones.push(z);
                }
            } else if let Some(b) = BEHAVIOURS.iter().find(|b| b.eq_ignore_ascii_case(w)) {
                e.behaviours.insert(b.to_string());
                // The generator writes GEOMETRIZE with a hex argument, SCROLL with four numbers.
                i += match *b {
                    "GEOMETRIZE" => 1,
                    "SCROLL" => 4,
                    _ => 0,
                };
            } else if !e.unknown.iter().any(|u| u == w) {
                e.unknown.push(w.to_string());
            }
        }
    }
    e
}

fn patch_words(o: &ObjectDef, p: &PatchDef) -> Expected {
    expected_words(
        &o.specials
            .iter()
            .chain(&p.specials)
            .cloned()
            .collect::<Vec<_>>(),
    )
}

/// Per zone (patches, triangles); per behaviour word and per unknown word, patches.
type Counted = (
    BTreeMap<String, (usize, usize)>,
    BTreeMap<String, usize>,
    BTreeMap<String, usize>,
);

/// `info --json`'s zones, behaviours and unknown words for `objects`, from the grammar.
fn expected_info(objects: &[ObjectDef]) -> Counted {
    let (mut zones, mut behaviours, mut unknown) =
        (BTreeMap::new(), BTreeMap::new(), BTreeMap::new());
    for o in objects {
        for p in &o.lods[0] {
            let e = patch_words(o, p);
            for z in e.zones {
                let entry: &mut (usize, usize) = zones.entry(z).or_default();
                entry.0 += 1;
                entry.1 += p.triangles;
            }
            for b in e.behaviours {
                *behaviours.entry(b).or_default() += 1;
            }
            for u in e.unknown {
                *unknown.entry(u).or_default() += 1;
            }
        }
    }
    (zones, behaviours, unknown)
}

/// The generated files: the cross product of where the words are (object and patch, or
/// patch only), how they are written (one string per patch, or one per word), their case,
/// and the era (1994: one implicit LOD; 1996: two LODs, the second's words not counted);
/// then 200 zones in one file, and strings of odd bytes.
fn generated() -> Vec<(String, Vec<ObjectDef>)> {
    let mut out = Vec::new();
    let patches: [(&str, &[&str], usize); 6] = [
        ("larm", &["dz_larm"], 2),
        ("shoulder", &["dz_larm", "dz_rgun", "BLINK"], 3),
        ("aerial", &["WIREFRAME", "wobble", "Wobble"], 1),
        ("lamp", &["dz_searchlight"], 0),
        (
            "gun",
            &["dz_rgun", "GEOMETRIZE 0x8000001a", "ADDITIVE_LODS", "PUNCH"],
            4,
        ),
        ("hull", &[], 5),
    ];
    for object_words in [false, true] {
        for one_string in [false, true] {
            for mixed_case in [false, true] {
                for era_1994 in [false, true] {
                    let case = |w: &str| {
                        if mixed_case {
                            w.chars()
                                .enumerate()
                                .map(|(i, c)| {
                                    if i % 2 == 0 {
                                        c.to_ascii_uppercase()
                                    } else {
                                        c.to_ascii_lowercase()
                                    }
                                })
                                .collect()
                        } else {
                            w.to_string()
                        }
                    };
                    let strings = |words: &[&str]| -> Vec<Vec<u8>> {
                        let words: Vec<String> = words
                            .iter()
                            .map(|w| w.split(' ').map(case).collect::<Vec<_>>().join(" "))
                            .collect();
                        if words.is_empty() {
                            Vec::new()
                        } else if one_string {
                            vec![format!(" {} ", words.join("  ")).into_bytes()]
                        } else {
                            words.into_iter().map(String::into_bytes).collect()
                        }
                    };
                    let lod0: Vec<PatchDef> = patches
                        .iter()
                        .map(|(n, w, t)| PatchDef {
                            name: n.to_string(),
                            specials: strings(w),
                            triangles: *t,
                        })
                        .collect();
                    let mut lods = vec![lod0];
                    if !era_1994 {
                        lods.push(vec![PatchDef {
                            name: "far".into(),
                            specials: strings(&["dz_larm", "dz_far", "BLINK"]),
                            triangles: 1,
                        }]);
                    }
                    let object = ObjectDef {
                        name: "mech".into(),
                        specials: if object_words {
                            strings(&["dz_utorso", "PUNCH"])
                        } else {
                            Vec::new()
                        },
                        lods,
                        era_1994,
                    };
                    let other = ObjectDef {
                        name: "pod".into(),
                        specials: Vec::new(),
                        lods: vec![vec![PatchDef {
                            name: "pod hull".into(),
                            specials: strings(&["dz_larm"]),
                            triangles: 7,
                        }]],
                        era_1994,
                    };
                    out.push((
                        format!(
                            "G{}{}{}{}.BGF",
                            object_words as u8, one_string as u8, mixed_case as u8, era_1994 as u8
                        ),
                        vec![object, other],
                    ));
                }
            }
        }
    }
    let many: Vec<PatchDef> = (0..200)
        .map(|i| PatchDef {
            name: format!("p{i}"),
            specials: vec![format!("dz_zone{i:03}").into_bytes()],
            triangles: i % 3,
        })
        .collect();
    out.push((
        "MANY.BGF".into(),
        vec![ObjectDef {
            name: "many".into(),
            specials: Vec::new(),
            lods: vec![many],
            era_1994: false,
        }],
    ));
    let odd: Vec<PatchDef> = vec![
        PatchDef {
            name: "odd".into(),
            specials: vec![
                b"dz_\xffodd \x01BLINK\x7f dz_ok".to_vec(),
                b"\xe2\x82 dz_ \tdz_OK".to_vec(),
            ],
            triangles: 2,
        },
        PatchDef {
            name: "quote".into(),
            specials: vec![b"<b>dz_\"q\"</b> &amp;".to_vec()],
            triangles: 1,
        },
    ];
    out.push((
        "ODD.BGF".into(),
        vec![ObjectDef {
            name: "odd model".into(),
            specials: Vec::new(),
            lods: vec![odd],
            era_1994: false,
        }],
    ));
    out
}

fn info_json(path: &Path) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_relicview"))
        .args(["info", "--json"])
        .arg(path)
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)))
}

/// A scratch folder of this test's own, removed when the test ends (tests/common).
fn temp_dir(name: &str) -> common::Scratch {
    common::scratch(&format!("zones-{name}"))
}

#[test]
fn info_json_counts_every_zone_behaviour_and_unknown_word_as_the_grammar_says() {
    let dir = temp_dir("info");
    for (name, objects) in generated() {
        std::fs::write(dir.join(&name), model_bytes(&objects)).unwrap();
        let info = info_json(&dir.join(&name));
        let (zones, behaviours, unknown) = expected_info(&objects);
        let got_zones: BTreeMap<String, (usize, usize)> = info["zones"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    (
                        v["patches"].as_u64().unwrap() as usize,
                        v["triangles"].as_u64().unwrap() as usize,
                    ),
                )
            })
            .collect();
        assert_eq!(got_zones, zones, "{name}");
        let counts = |v: &Value| -> BTreeMap<String, usize> {
            v.as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| (k.clone(), v.as_u64().unwrap() as usize))
                .collect()
        };
        assert_eq!(counts(&info["behaviours"]), behaviours, "{name}");
        assert_eq!(counts(&info["unknown_words"]), unknown, "{name}");
        if name == "MANY.BGF" {
            assert_eq!(zones.len(), 200);
        }
        if name.starts_with('G') {
            assert_eq!(
                zones["dz_searchlight"],
                (1, 0),
                "{name}: a zone with no triangles is still a zone"
            );
            assert!(
                !zones.contains_key("dz_far"),
                "{name}: LOD 1's words are not counted"
            );
        }
    }
}

fn open_scene(files: &[(String, Vec<u8>)], path: &str) -> relicview::scene::Scene {
    let source = MemorySource::new(files.to_vec());
    let archive = RefCell::new(Archive::new(ArchiveIndex::new(
        files.iter().map(|(p, _)| p.clone()),
    )));
    let opened = pollster::block_on(archive::open_file(&archive, &source, path))
        .unwrap_or_else(|e| panic!("{path}: {e}"));
    opened.scene.unwrap_or_else(|| panic!("{path}: no scene"))
}

fn glb_json(glb: &[u8]) -> Value {
    let len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    serde_json::from_slice(&glb[20..20 + len]).unwrap()
}

/// Triangles of every node under `n` (its own included).
fn triangles_under(j: &Value, n: usize) -> usize {
    let own: usize = j["nodes"][n]["mesh"].as_u64().map_or(0, |m| {
        j["meshes"][m as usize]["primitives"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                j["accessors"][p["indices"].as_u64().unwrap() as usize]["count"]
                    .as_u64()
                    .unwrap() as usize
                    / 3
            })
            .sum()
    });
    own + j["nodes"][n]["children"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| triangles_under(j, c.as_u64().unwrap() as usize))
        .sum::<usize>()
}

#[test]
fn hiding_a_zone_removes_exactly_its_triangles_blink_blinks_and_the_export_has_a_node_per_zone() {
    let generated = generated();
    let files: Vec<(String, Vec<u8>)> = generated
        .iter()
        .map(|(n, o)| (n.clone(), model_bytes(o)))
        .collect();
    for (name, objects) in &generated {
        let scene = open_scene(&files, name);
        let (zones, behaviours, _) = expected_info(objects);
        let total: usize = objects
            .iter()
            .flat_map(|o| &o.lods[0])
            .map(|p| p.triangles)
            .sum();
        assert_eq!(scene.triangle_count(0), total, "{name}");
        // Every zone of every LOD is a zone layer of the scene.
        let all_zones: BTreeSet<String> = objects
            .iter()
            .flat_map(|o| {
                o.lods
                    .iter()
                    .flatten()
                    .flat_map(move |p| patch_words(o, p).zones)
            })
            .collect();
        let scene_zones: BTreeSet<String> = scene
            .zones
            .iter()
            .map(|&l| scene.layers[l as usize].clone())
            .collect();
        assert_eq!(scene_zones, all_zones, "{name}");
        for (zone, &(_, triangles)) in &zones {
            let layer = scene.layers.iter().position(|l| l == zone).unwrap() as u32;
            assert_eq!(
                scene.triangle_count_in(0, &[layer]),
                total - triangles,
                "{name}: hiding {zone}"
            );
        }
        let every: Vec<u32> = scene.zones.clone();
        let zoneless: usize = objects
            .iter()
            .flat_map(|o| o.lods[0].iter().map(move |p| (o, p)))
            .filter(|(o, p)| patch_words(o, p).zones.is_empty())
            .map(|(_, p)| p.triangles)
            .sum();
        assert_eq!(
            scene.triangle_count_in(0, &every),
            zoneless,
            "{name}: all destroyed leaves the zoneless patches"
        );
        // BLINK: shown for the first half of each second, hidden for the second.
        let blinking: usize = objects
            .iter()
            .flat_map(|o| o.lods[0].iter().map(move |p| (o, p)))
            .filter(|(o, p)| patch_words(o, p).behaviours.contains("BLINK"))
            .count();
        assert_eq!(behaviours.get("BLINK").copied().unwrap_or(0), blinking);
        let hidden_at = |t: f64| {
            scene
                .pose(t)
                .iter()
                .filter(|tr| tr.scale == [0.0; 3])
                .count()
        };
        if blinking > 0 {
            assert_eq!(hidden_at(0.25), 0, "{name}");
            assert!(
                hidden_at(0.75) >= blinking,
                "{name}: {} hidden at 0.75 s",
                hidden_at(0.75)
            );
            assert_eq!(hidden_at(1.25), 0, "{name}");
        }
        // The export: under each object a node per zone of LOD 0, holding the patches whose
        // first zone it is (a zone only ever named second is an empty node); every triangle
        // exported once.
        let j = glb_json(&relicview::gltf::export_glb(&scene, Default::default()).unwrap());
        let nodes = j["nodes"].as_array().unwrap();
        for o in objects {
            let object = nodes
                .iter()
                .position(|n| n["name"] == o.name.as_str())
                .unwrap();
            assert!(
                nodes[object]["children"].is_array(),
                "{name}: {} has no children: {}",
                o.name,
                serde_json::to_string(nodes).unwrap()
            );
            let mut first: BTreeMap<String, usize> = BTreeMap::new();
            for p in &o.lods[0] {
                let zones = patch_words(o, p).zones;
                for z in &zones {
                    first.entry(z.clone()).or_default();
                }
                if let Some(z) = zones.first() {
                    *first.entry(z.clone()).or_default() += p.triangles;
                }
            }
            let got: BTreeMap<String, usize> = nodes[object]["children"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_u64().unwrap() as usize)
                .filter(|&c| nodes[c]["extras"]["zone"].is_string())
                .map(|c| {
                    (
                        nodes[c]["name"].as_str().unwrap().to_string(),
                        triangles_under(&j, c),
                    )
                })
                .collect();
            assert_eq!(got, first, "{name}: {}", o.name);
        }
        let exported: usize = j["scenes"][0]["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| triangles_under(&j, r.as_u64().unwrap() as usize))
            .sum();
        assert_eq!(exported, total, "{name}");
    }
}

#[test]
fn census_says_which_models_carry_a_zone_and_diff_names_a_zone_renamed_added_or_removed() {
    let dir = temp_dir("census");
    let generated = generated();
    for (name, objects) in &generated {
        std::fs::write(dir.join(name), model_bytes(objects)).unwrap();
    }
    let out = Command::new(env!("CARGO_BIN_EXE_relicview"))
        .args(["census", "--json"])
        .arg(&dir)
        .output()
        .unwrap();
    let census: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut files_with: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (name, objects) in &generated {
        for z in expected_info(objects).0.into_keys() {
            files_with.entry(z).or_default().insert(name.clone());
        }
    }
    let searchlight = &census["zones"]["dz_searchlight"];
    assert_eq!(
        searchlight["files"].as_u64().unwrap() as usize,
        files_with["dz_searchlight"].len()
    );
    let listed: BTreeSet<String> = searchlight["in_files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().to_string())
        .collect();
    assert!(
        listed.is_subset(&files_with["dz_searchlight"])
            && listed.len() == files_with["dz_searchlight"].len().min(10),
        "{listed:?}"
    );
    assert_eq!(census["zones"].as_object().unwrap().len(), files_with.len());
    assert_eq!(census["behaviours"]["BLINK"]["files"].as_u64().unwrap(), 16);

    // One patch's string changed three ways.
    let with = |special: &str| {
        let p = PatchDef {
            name: "arm".into(),
            specials: vec![special.as_bytes().to_vec()],
            triangles: 1,
        };
        model_bytes(&[ObjectDef {
            name: "m".into(),
            specials: Vec::new(),
            lods: vec![vec![p]],
            era_1994: false,
        }])
    };
    let diff = |a: &str, b: &str| -> Vec<(String, String, String)> {
        std::fs::write(dir.join("A.BGF"), with(a)).unwrap();
        std::fs::write(dir.join("B.BGF"), with(b)).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_relicview"))
            .args(["diff", "--json"])
            .arg(dir.join("A.BGF"))
            .arg(dir.join("B.BGF"))
            .output()
            .unwrap();
        let j: Value = serde_json::from_slice(&out.stdout).unwrap();
        j["changed"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|c| c["fields"].as_array().unwrap().clone())
            .filter(|f| f["name"] == "zone")
            .map(|f| {
                (
                    f["name"].as_str().unwrap().into(),
                    f["a"].as_str().unwrap().into(),
                    f["b"].as_str().unwrap().into(),
                )
            })
            .collect()
    };
    assert_eq!(
        diff("dz_larm BLINK", "dz_rarm BLINK"),
        [("zone".into(), "dz_larm".into(), "dz_rarm".into())]
    );
    assert_eq!(
        diff("dz_larm dz_rgun", "dz_rgun"),
        [("zone".into(), "dz_larm".into(), String::new())]
    );
    assert_eq!(
        diff("BLINK dz_rgun", "dz_HIP BLINK dz_rgun"),
        [("zone".into(), String::new(), "dz_hip".into())]
    );
}

#[test]
fn a_world_lists_each_placed_models_parts_and_destroying_a_zone_takes_it_from_every_placement() {
    let (_, objects) = generated()
        .into_iter()
        .find(|(n, _)| n == "G1010.BGF")
        .unwrap();
    let mut files = vec![
        ("W/VIDEO/MECH.BGF".to_string(), model_bytes(&objects)),
        ("W/MODELS/MECH.MOD".to_string(), b"[video]\r\nobject=mech.bgf\r\n".to_vec()),
        ("W/MAPS/YARD.MAP".to_string(), b"[mech]\r\ntype=model\r\nmodelfile=mech.mod\r\n[yard]\r\ntype=map\r\ninstance=mech 0 0 0 0 0 0\r\ninstance=mech 20 0 0 0 0 0\r\n".to_vec()),
    ];
    files.sort();
    let scene = open_scene(&files, "W/MAPS/YARD.MAP");
    let (zones, _, _) = expected_info(&objects);
    let total: usize = objects
        .iter()
        .flat_map(|o| &o.lods[0])
        .map(|p| p.triangles)
        .sum();
    assert_eq!(scene.triangle_count(0), 2 * total, "two placements");
    let parts = relicview::view::parts::parts(&scene, 0, &[], &[]);
    let names: BTreeSet<String> = parts.zones.iter().map(|z| z.name.clone()).collect();
    let all_zones: BTreeSet<String> = objects
        .iter()
        .flat_map(|o| {
            o.lods
                .iter()
                .flatten()
                .flat_map(move |p| patch_words(o, p).zones)
        })
        .collect();
    assert_eq!(names, all_zones);
    for z in &parts.zones {
        let (patches, triangles) = zones.get(&z.name).copied().unwrap_or_default();
        assert_eq!(
            (z.patches, z.triangles),
            (2 * patches, 2 * triangles),
            "{}: counted in both placements",
            z.name
        );
    }
    // Each part is listed with the placement it is in.
    let placed: BTreeSet<String> = parts
        .parts
        .iter()
        .filter_map(|p| p.placed_in.clone())
        .collect();
    assert_eq!(
        placed.len(),
        1,
        "both placements are of section [mech]: {placed:?}"
    );
    assert_eq!(
        parts.parts_total,
        2 * objects
            .iter()
            .flat_map(|o| o.lods[0].iter().map(move |p| (o, p)))
            .filter(|(o, p)| !patch_words(o, p).zones.is_empty()
                || !patch_words(o, p).behaviours.is_empty()
                || !patch_words(o, p).unknown.is_empty())
            .count()
    );
    let larm = parts.zones.iter().find(|z| z.name == "dz_larm").unwrap();
    assert_eq!(
        scene.triangle_count_in(0, &[larm.layer]),
        2 * (total - zones["dz_larm"].1)
    );
}

/// Opening a model of `n` patches, each its own zone, and everything the view and the
/// export do with its zones: every zone destroyed, the layer and parts lists, the export.
fn zones_work(n: usize) -> (f64, usize) {
    let patches: Vec<PatchDef> = (0..n)
        .map(|i| PatchDef {
            name: format!("p{i}"),
            specials: vec![format!("dz_zone{i} BLINK").into_bytes()],
            triangles: 30,
        })
        .collect();
    let files = vec![(
        "MANY.BGF".to_string(),
        model_bytes(&[ObjectDef {
            name: "many".into(),
            specials: Vec::new(),
            lods: vec![patches],
            era_1994: false,
        }]),
    )];
    let t = std::time::Instant::now();
    let scene = open_scene(&files, "MANY.BGF");
    let all = scene.zones.clone();
    let left = scene.triangle_count_in(0, &all);
    let listed = relicview::view::layers::layers(&scene, &all)
        .iter()
        .filter(|l| l.zone && !l.shown)
        .count();
    let parts = relicview::view::parts::parts(&scene, 0, &all, &[]);
    let named = relicview::view::layers::layers_named(&scene, &scene.layers);
    let glb = relicview::gltf::export_glb(&scene, Default::default()).unwrap();
    // (The model stops growing at twice its file's size: not every patch is built.)
    let zones = scene.zones.len();
    assert!(zones > n / 2, "{zones} of {n} zones built");
    assert_eq!(
        (left, listed, parts.zones.len(), named.len()),
        (0, zones, zones, scene.layers.len())
    );
    assert!(glb.len() > zones * 20);
    (t.elapsed().as_secs_f64(), scene.zones.len())
}

#[test]
fn fifty_thousand_zones_and_a_string_of_a_hundred_thousand_words_cost_linear_time() {
    let ((small, zs), (large, zl)) = (zones_work(5_000), zones_work(50_000));
    assert!(zl >= 9 * zs, "{zl} zones against {zs}");
    eprintln!(
        "# zones: {zl} in {large:.3} s, {zs} in {small:.3} s ({:.1}×)",
        large / small
    );
    assert!(
        large / small < 30.0,
        "ten times the zones took {:.1}× the time ({large:.3} s vs {small:.3} s)",
        large / small
    );
    let string = |n: usize| {
        (0..n)
            .map(|i| {
                if i % 2 == 0 {
                    format!("dz_z{i}")
                } else {
                    format!("w{i}")
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let time = |s: &str| {
        let t = std::time::Instant::now();
        let w = relicview::formats::pods::biz2::special::Words::read([s]);
        assert_eq!(w.zones.len() + w.unknown.len(), s.split(' ').count());
        t.elapsed().as_secs_f64()
    };
    let (short, long) = (string(10_000), string(100_000));
    let (ts, tl) = (time(&short), time(&long));
    assert!(
        tl / ts < 30.0,
        "ten times the words took {:.1}× the time ({tl:.3} s vs {ts:.3} s)",
        tl / ts
    );
}
