//! The DIV-BIZ2 writer: builds chunk trees and serialises them. Used for the demo archive,
//! test fixtures and round-trip property tests.

use super::model::{
    Biz2File, Connectivity, FileKind, Header, LightPoint, Lod, MaterialDef, MaterialRef, Object,
    Patch, Primitive, PrimitiveKind, RampDef, TextureDef, VertexBlock,
};
use super::raw::{MAGIC_GEOMETRY, MAGIC_MATERIALS};
use super::tags;

/// One chunk to write. `id` is the resolved id (0x2000 set for attributes); the writer
/// always writes the namespace bit, as 1996 files do.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Leaf { id: u16, payload: Vec<u8> },
    Container { id: u16, children: Vec<Node> },
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WriteOptions {
    /// Write every length as 4 bytes (the width real files never use, but readers must take).
    pub wide_lengths: bool,
}

impl Node {
    pub fn leaf(id: u16, payload: impl Into<Vec<u8>>) -> Node {
        Node::Leaf {
            id,
            payload: payload.into(),
        }
    }
    pub fn container(id: u16, children: Vec<Node>) -> Node {
        Node::Container { id, children }
    }
    /// A NUL-terminated string leaf.
    pub fn string(id: u16, s: &str) -> Node {
        let mut p = s.as_bytes().to_vec();
        p.push(0);
        Node::leaf(id, p)
    }
    pub fn floats(id: u16, v: &[f32]) -> Node {
        Node::leaf(
            id,
            v.iter().flat_map(|f| f.to_le_bytes()).collect::<Vec<u8>>(),
        )
    }

    fn write(&self, out: &mut Vec<u8>, opts: WriteOptions) {
        let (id, payload) = match self {
            Node::Leaf { id, payload } => (*id, payload.clone()),
            Node::Container { id, children } => {
                let mut p = Vec::new();
                for c in children {
                    c.write(&mut p, opts);
                }
                (*id, p)
            }
        };
        let len = payload.len();
        let (width_bits, len_bytes): (u16, Vec<u8>) =
            if opts.wide_lengths || len > u16::MAX as usize {
                (0x8000, (len as u32).to_le_bytes().to_vec())
            } else if len > u8::MAX as usize {
                (0x4000, (len as u16).to_le_bytes().to_vec())
            } else {
                (0, vec![len as u8])
            };
        out.extend((id | width_bits).to_le_bytes());
        out.extend(len_bytes);
        out.extend(payload);
    }
}

/// Magic, the given top-level chunks, then the BIZ_DONE trailer.
pub fn write_nodes(magic: &[u8; 8], nodes: &[Node], opts: WriteOptions) -> Vec<u8> {
    let mut out = magic.to_vec();
    for n in nodes {
        n.write(&mut out, opts);
    }
    // The trailer is always written narrow: it has no payload.
    Node::leaf(tags::BIZ_DONE, Vec::new()).write(&mut out, WriteOptions::default());
    out
}

/// Serialise a model. Reading the result gives back the same model (chunk indices aside).
pub fn write_file(file: &Biz2File, opts: WriteOptions) -> Vec<u8> {
    let magic = match file.kind {
        FileKind::Geometry => MAGIC_GEOMETRY,
        FileKind::Materials => MAGIC_MATERIALS,
    };
    let mut nodes = vec![header_node(&file.header)];
    if let Some(b) = &file.bounds {
        let mut c = Vec::new();
        if let Some([min, max]) = b.bbox {
            c.push(Node::floats(tags::BBOX, &[min, max].concat()));
        }
        if let Some((centre, radius)) = b.bsphere {
            c.push(Node::floats(
                tags::BSPHERE,
                &[centre[0], centre[1], centre[2], radius],
            ));
        }
        nodes.push(Node::container(tags::BOUND, c));
    }
    nodes.extend(file.comments.iter().map(|c| Node::string(tags::COMMENT, c)));
    nodes.extend(file.textures.iter().map(texture_node));
    nodes.extend(file.ramps.iter().map(ramp_node));
    nodes.extend(file.materials.iter().map(material_node));
    nodes.extend(file.objects.iter().map(object_node));
    write_nodes(magic, &nodes, opts)
}

fn header_node(h: &Header) -> Node {
    let mut c = Vec::new();
    string_leaf(&mut c, tags::VERSION, &h.version);
    string_leaf(&mut c, tags::DATE, &h.date);
    string_leaf(&mut c, tags::TIME, &h.time);
    floats_leaf(
        &mut c,
        tags::SCALE,
        h.scale.as_ref().map(std::slice::from_ref),
    );
    byte_leaf(&mut c, tags::PRECISION, h.precision);
    byte_leaf(&mut c, tags::FILETYPE, h.filetype);
    byte_leaf(&mut c, tags::UNIT, h.unit);
    Node::container(tags::HEADER, c)
}

fn byte_leaf(c: &mut Vec<Node>, id: u16, v: Option<u8>) {
    if let Some(v) = v {
        c.push(Node::leaf(id, vec![v]));
    }
}

fn string_leaf(c: &mut Vec<Node>, id: u16, v: &Option<String>) {
    if let Some(v) = v {
        c.push(Node::string(id, v));
    }
}

fn floats_leaf(c: &mut Vec<Node>, id: u16, v: Option<&[f32]>) {
    if let Some(v) = v {
        c.push(Node::floats(id, v));
    }
}

fn material_node(m: &MaterialDef) -> Node {
    let mut c = Vec::new();
    string_leaf(&mut c, tags::NAME, &m.name);
    byte_leaf(&mut c, tags::SCOPE, m.scope);
    if let Some(t) = &m.texture {
        let mut p = vec![t.mode];
        if let Some(name) = &t.name {
            p.extend(name.as_bytes());
            p.push(0);
        }
        c.push(Node::leaf(tags::MATERIAL_TEXTURE, p));
    }
    floats_leaf(&mut c, tags::AMBIENT, m.ambient.as_ref().map(|v| &v[..]));
    floats_leaf(&mut c, tags::DIFFUSE, m.diffuse.as_ref().map(|v| &v[..]));
    floats_leaf(&mut c, tags::SPECULAR, m.specular.as_ref().map(|v| &v[..]));
    floats_leaf(&mut c, tags::EMISSIVE, m.emissive.as_ref().map(|v| &v[..]));
    floats_leaf(&mut c, tags::OPACITY, m.opacity.as_ref().map(|v| &v[..]));
    string_leaf(&mut c, tags::MATERIAL_RAMP, &m.ramp);
    Node::container(tags::MATERIAL, c)
}

fn texture_node(t: &TextureDef) -> Node {
    let mut c = Vec::new();
    string_leaf(&mut c, tags::NAME, &t.name);
    byte_leaf(&mut c, tags::SCOPE, t.scope);
    string_leaf(&mut c, tags::TEXTURE_MAP, &t.map);
    byte_leaf(&mut c, tags::MINIFY, t.minify);
    byte_leaf(&mut c, tags::MAGNIFY, t.magnify);
    byte_leaf(&mut c, tags::ALPHA, t.alpha);
    byte_leaf(&mut c, tags::WRAP_U, t.wrap_u);
    byte_leaf(&mut c, tags::WRAP_V, t.wrap_v);
    byte_leaf(&mut c, tags::DETAIL, t.detail);
    byte_leaf(&mut c, tags::BITSLICE, t.bitslice);
    c.extend(t.specials.iter().map(|v| Node::string(tags::SV_SPECIAL, v)));
    Node::container(tags::TEXTURE, c)
}

fn ramp_node(r: &RampDef) -> Node {
    let mut c = Vec::new();
    string_leaf(&mut c, tags::NAME, &r.name);
    byte_leaf(&mut c, tags::SCOPE, r.scope);
    if let Some([a, b]) = r.colors {
        // Inside RAMP the ramp data shares its id with SV_B_MATERIAL.
        c.push(Node::floats(tags::SV_B_MATERIAL, &[a, b].concat()));
    }
    Node::container(tags::RAMP, c)
}

fn sphere_list_node(points: &[LightPoint]) -> Node {
    let spheres = points
        .iter()
        .map(|p| {
            let mut v = p.position.to_vec();
            v.extend(p.radius);
            Node::floats(tags::SPHERE, &v)
        })
        .collect();
    Node::container(tags::SPHERE_LIST, spheres)
}

fn object_node(o: &Object) -> Node {
    let mut c = Vec::new();
    string_leaf(&mut c, tags::NAME, &o.name);
    material_leaves(&mut c, &o.front, &o.back);
    if let Some(v) = o.sv_vertex {
        c.push(Node::leaf(tags::SV_VERTEX, v.to_le_bytes().to_vec()));
    }
    c.extend(o.specials.iter().map(|v| Node::string(tags::SV_SPECIAL, v)));
    for lod in &o.lods {
        match lod.record {
            Some(_) => c.push(lod_node(lod)),
            // The implicit LOD of a 1994 object: its patches sit straight under OBJECT.
            None => c.extend(lod.patches.iter().map(patch_node)),
        }
    }
    if !o.points.is_empty() {
        c.push(sphere_list_node(&o.points));
    }
    Node::container(tags::OBJECT, c)
}

fn lod_node(lod: &Lod) -> Node {
    let mut c = Vec::new();
    floats_leaf(
        &mut c,
        tags::LOD_DISTANCE,
        lod.distance.as_ref().map(|d| &d[..]),
    );
    floats_leaf(
        &mut c,
        tags::LOD_TRANSITION,
        lod.transition.as_ref().map(std::slice::from_ref),
    );
    c.extend(lod.patches.iter().map(patch_node));
    Node::container(tags::LOD, c)
}

fn material_ref_payload(m: &MaterialRef) -> Vec<u8> {
    match m {
        MaterialRef::None => vec![0],
        MaterialRef::Named(n) => {
            let mut p = vec![1];
            p.extend(n.as_bytes());
            p.push(0);
            p
        }
        MaterialRef::Default => vec![2],
        MaterialRef::SameAsFront => vec![3],
        MaterialRef::Other(t) => vec![*t],
    }
}

/// SV_F_MATERIAL and SV_B_MATERIAL, where set (objects and patches carry both).
fn material_leaves(c: &mut Vec<Node>, front: &Option<MaterialRef>, back: &Option<MaterialRef>) {
    for (id, m) in [(tags::SV_F_MATERIAL, front), (tags::SV_B_MATERIAL, back)] {
        if let Some(m) = m {
            c.push(Node::leaf(id, material_ref_payload(m)));
        }
    }
}

fn patch_node(p: &Patch) -> Node {
    let mut c = Vec::new();
    string_leaf(&mut c, tags::NAME, &p.name);
    material_leaves(&mut c, &p.front, &p.back);
    byte_leaf(&mut c, tags::SV_FACETED, p.faceted);
    byte_leaf(&mut c, tags::SV_DECAL, p.decal);
    c.extend(p.specials.iter().map(|v| Node::string(tags::SV_SPECIAL, v)));
    c.extend(p.primitives.iter().map(primitive_node));
    Node::container(tags::PATCH, c)
}

fn primitive_node(p: &Primitive) -> Node {
    let id = match p.kind {
        PrimitiveKind::PMesh => tags::PMESH,
        PrimitiveKind::TriStrip => tags::TRISTRIP,
        PrimitiveKind::Polygon => tags::POLYGON,
        PrimitiveKind::PolyStrip => tags::POLYSTRIP,
    };
    let mut c = vec![vertex_node(&p.vertices)];
    for conn in &p.connectivity {
        c.push(match conn {
            Connectivity::Triangles(t) => Node::leaf(
                tags::CONNECTION_LIST,
                t.iter()
                    .flatten()
                    .flat_map(|i| i.to_le_bytes())
                    .collect::<Vec<u8>>(),
            ),
            Connectivity::Faces {
                points_per_face,
                indices,
            } => {
                let mut payload = vec![*points_per_face];
                payload.extend(indices.iter().flat_map(|i| i.to_le_bytes()));
                Node::leaf(tags::PCONN_LIST, payload)
            }
        });
    }
    Node::container(id, c)
}

/// Interleave a vertex block in its format's layout. Attributes the format has but the
/// block lacks are written as zeros.
pub fn vertex_node(v: &VertexBlock) -> Node {
    let layout = tags::vertex_layout(v.format).unwrap_or(&tags::VERTEX_LAYOUTS[0]);
    let mut floats = Vec::with_capacity(v.positions.len() * layout.floats);
    for (i, p) in v.positions.iter().enumerate() {
        let mut vertex = vec![0.0f32; layout.floats];
        vertex[..3].copy_from_slice(p);
        let mut put = |offset: Option<usize>, values: Option<&[f32]>| {
            if let (Some(o), Some(vals)) = (offset, values) {
                vertex[o..o + vals.len()].copy_from_slice(vals);
            }
        };
        put(layout.normal, v.normals.as_ref().map(|n| &n[i][..]));
        put(layout.rgba, v.colors.as_ref().map(|n| &n[i][..]));
        put(layout.lum, v.lum.as_ref().map(|n| &n[i][..]));
        put(layout.uv, v.uvs.as_ref().map(|n| &n[i][..]));
        put(layout.uvw, v.uvws.as_ref().map(|n| &n[i][..]));
        floats.extend(vertex);
    }
    Node::floats(layout.id, &floats)
}
