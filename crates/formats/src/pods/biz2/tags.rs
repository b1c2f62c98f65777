//! DIV-BIZ2 tag ids and the context rules that tell them apart.
//!
//! Ids are `tagword & 0x2FFF` (docs/formats/biz2.md). Bit 0x2000 is the attribute namespace: such
//! chunks are always leaves. Files that never set it are decoded by context: the parent
//! decides whether a bare id is a structural child or an attribute (inside HEADER 0x005 is
//! SCALE, inside LOD 0x046 is LOD_DISTANCE, inside PATCH 0x046 is a PMESH).

/// Bit of the tag word that marks an attribute (leaf) id.
pub const ATTRIBUTE: u16 = 0x2000;
/// Bit of the tag word with no known meaning: kept and shown, never an error.
pub const UNKNOWN_BIT: u16 = 0x1000;

// Structural ids (no namespace bit).
pub const HEADER: u16 = 0x0003;
pub const COMMENT: u16 = 0x0004;
pub const BIZ_DONE: u16 = 0x0005;
pub const TEXTURE: u16 = 0x0010;
pub const MATERIAL: u16 = 0x0020;
pub const RAMP: u16 = 0x0030;
pub const OBJECT: u16 = 0x0040;
pub const LOD: u16 = 0x0041;
pub const PATCH: u16 = 0x0042;
pub const POLYGON: u16 = 0x0043;
pub const TRISTRIP: u16 = 0x0044;
pub const POLYSTRIP: u16 = 0x0045;
pub const PMESH: u16 = 0x0046;
pub const CONNECTION_LIST: u16 = 0x0047;
pub const SPHERE_LIST: u16 = 0x0048;
pub const SPHERE: u16 = 0x0049;
pub const LINE: u16 = 0x004A;
pub const TEXT: u16 = 0x004B;
pub const PCONN_LIST: u16 = 0x004D;
pub const BOUND: u16 = 0x0070;
pub const BBOX: u16 = 0x0071;
pub const BSPHERE: u16 = 0x0072;

// Attribute ids (namespace bit set).
pub const VERSION: u16 = 0x2002;
pub const DATE: u16 = 0x2003;
pub const TIME: u16 = 0x2004;
pub const SCALE: u16 = 0x2005;
pub const PRECISION: u16 = 0x2006;
pub const FILETYPE: u16 = 0x2007;
pub const NAME: u16 = 0x2008;
pub const UNIT: u16 = 0x2009;
pub const SCOPE: u16 = 0x200A;
pub const TEXTURE_MAP: u16 = 0x2011;
pub const MINIFY: u16 = 0x2012;
pub const MAGNIFY: u16 = 0x2013;
pub const ALPHA: u16 = 0x2014;
pub const WRAP_U: u16 = 0x2015;
pub const WRAP_V: u16 = 0x2016;
pub const DETAIL: u16 = 0x2017;
pub const BITSLICE: u16 = 0x2018;
pub const MATERIAL_TEXTURE: u16 = 0x2021;
pub const AMBIENT: u16 = 0x2023;
pub const DIFFUSE: u16 = 0x2024;
pub const SPECULAR: u16 = 0x2025;
pub const EMISSIVE: u16 = 0x2026;
pub const OPACITY: u16 = 0x2027;
pub const MATERIAL_RAMP: u16 = 0x2028;
pub const SV_F_MATERIAL: u16 = 0x2030;
pub const SV_B_MATERIAL: u16 = 0x2031;
pub const SV_PLANE: u16 = 0x2032;
pub const SV_DRAW_MODE: u16 = 0x2033;
pub const SV_DECAL: u16 = 0x2034;
pub const SV_FACETED: u16 = 0x2035;
pub const SV_VERTEX: u16 = 0x2036;
pub const SV_SPECIAL: u16 = 0x2037;
pub const LOD_DISTANCE: u16 = 0x2046;
pub const LOD_TRANSITION: u16 = 0x2048;

/// Layout of one vertex block format (docs/formats/biz2.md, "Vertex blocks"): floats per vertex and the float
/// offset of each optional component.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VertexLayout {
    pub id: u16,
    pub floats: usize,
    pub normal: Option<usize>,
    pub rgba: Option<usize>,
    /// Luminance and alpha (two floats).
    pub lum: Option<usize>,
    pub uv: Option<usize>,
    pub uvw: Option<usize>,
}

const fn layout(
    id: u16,
    floats: usize,
    normal: Option<usize>,
    rgba: Option<usize>,
    lum: Option<usize>,
    uv: Option<usize>,
    uvw: Option<usize>,
) -> VertexLayout {
    VertexLayout {
        id,
        floats,
        normal,
        rgba,
        lum,
        uv,
        uvw,
    }
}

/// All 14 vertex formats 0x080–0x094.
pub const VERTEX_LAYOUTS: [VertexLayout; 14] = [
    layout(0x080, 3, None, None, None, None, None),
    layout(0x081, 6, Some(3), None, None, None, None),
    layout(0x082, 7, None, Some(3), None, None, None),
    layout(0x083, 10, Some(3), Some(6), None, None, None),
    layout(0x084, 5, None, None, Some(3), None, None),
    layout(0x085, 8, Some(3), None, Some(6), None, None),
    layout(0x088, 5, None, None, None, Some(3), None),
    layout(0x089, 8, Some(3), None, None, Some(6), None),
    layout(0x08A, 9, None, Some(3), None, Some(7), None),
    layout(0x08C, 7, None, None, Some(3), Some(5), None),
    layout(0x090, 6, None, None, None, None, Some(3)),
    layout(0x091, 9, Some(3), None, None, None, Some(6)),
    layout(0x092, 10, None, Some(3), None, None, Some(7)),
    layout(0x094, 8, None, None, Some(3), None, Some(5)),
];

pub fn vertex_layout(id: u16) -> Option<&'static VertexLayout> {
    VERTEX_LAYOUTS.iter().find(|l| l.id == id)
}

/// Human name of a resolved id.
pub fn name(id: u16) -> Option<&'static str> {
    Some(match id {
        HEADER => "HEADER",
        COMMENT => "COMMENT",
        BIZ_DONE => "BIZ_DONE",
        TEXTURE => "TEXTURE",
        MATERIAL => "MATERIAL",
        RAMP => "RAMP",
        OBJECT => "OBJECT",
        LOD => "LOD",
        PATCH => "PATCH",
        POLYGON => "POLYGON",
        TRISTRIP => "TRISTRIP",
        POLYSTRIP => "POLYSTRIP",
        PMESH => "PMESH",
        CONNECTION_LIST => "CONNECTION_LIST",
        SPHERE_LIST => "SPHERE_LIST",
        SPHERE => "SPHERE",
        LINE => "LINE",
        TEXT => "TEXT",
        PCONN_LIST => "PCONN_LIST",
        BOUND => "BOUND",
        BBOX => "BBOX",
        BSPHERE => "BSPHERE",
        0x0080 => "VERTEX_XYZ",
        0x0081 => "VERTEX_XYZ_N",
        0x0082 => "VERTEX_XYZ_RGBA",
        0x0083 => "VERTEX_XYZ_N_RGBA",
        0x0084 => "VERTEX_XYZ_LA",
        0x0085 => "VERTEX_XYZ_N_LA",
        0x0088 => "VERTEX_XYZ_UV",
        0x0089 => "VERTEX_XYZ_N_UV",
        0x008A => "VERTEX_XYZ_RGBA_UV",
        0x008C => "VERTEX_XYZ_LA_UV",
        0x0090 => "VERTEX_XYZ_UVW",
        0x0091 => "VERTEX_XYZ_N_UVW",
        0x0092 => "VERTEX_XYZ_RGBA_UVW",
        0x0094 => "VERTEX_XYZ_LA_UVW",
        VERSION => "VERSION",
        DATE => "DATE",
        TIME => "TIME",
        SCALE => "SCALE",
        PRECISION => "PRECISION",
        FILETYPE => "FILETYPE",
        NAME => "NAME",
        UNIT => "UNIT",
        SCOPE => "SCOPE",
        TEXTURE_MAP => "TEXTURE_MAP",
        MINIFY => "MINIFY",
        MAGNIFY => "MAGNIFY",
        ALPHA => "ALPHA",
        WRAP_U => "WRAP_U",
        WRAP_V => "WRAP_V",
        DETAIL => "DETAIL",
        BITSLICE => "BITSLICE",
        MATERIAL_TEXTURE => "MATERIAL_TEXTURE",
        AMBIENT => "AMBIENT",
        DIFFUSE => "DIFFUSE",
        SPECULAR => "SPECULAR",
        EMISSIVE => "EMISSIVE",
        OPACITY => "OPACITY",
        MATERIAL_RAMP => "MATERIAL_RAMP",
        SV_F_MATERIAL => "SV_F_MATERIAL",
        SV_B_MATERIAL => "SV_B_MATERIAL",
        SV_PLANE => "SV_PLANE",
        SV_DRAW_MODE => "SV_DRAW_MODE",
        SV_DECAL => "SV_DECAL",
        SV_FACETED => "SV_FACETED",
        SV_VERTEX => "SV_VERTEX",
        SV_SPECIAL => "SV_SPECIAL",
        LOD_DISTANCE => "LOD_DISTANCE",
        LOD_TRANSITION => "LOD_TRANSITION",
        _ => return None,
    })
}

/// The structural (non-attribute) ids a parent may hold, and whether each is a container.
/// `None` is the top level of the file.
fn structural_child(parent: Option<u16>, id: u16) -> Option<bool> {
    let container = |c: bool| Some(c);
    match (parent, id) {
        (None, HEADER | TEXTURE | MATERIAL | RAMP | OBJECT | BOUND) => container(true),
        (None, COMMENT | BIZ_DONE) => container(false),
        (Some(BOUND), BBOX | BSPHERE) => container(false),
        (Some(OBJECT), LOD | PATCH) => container(true),
        (Some(LOD), PATCH) => container(true),
        (Some(PATCH), POLYGON | TRISTRIP | POLYSTRIP | PMESH | SPHERE_LIST | LINE | TEXT) => {
            container(true)
        }
        (Some(OBJECT | LOD), SPHERE_LIST) => container(true),
        (Some(SPHERE_LIST), SPHERE) => container(false),
        (Some(PMESH), CONNECTION_LIST | PCONN_LIST) => container(false),
        (Some(PMESH | POLYGON | TRISTRIP | POLYSTRIP | LINE), v) if vertex_layout(v).is_some() => {
            container(false)
        }
        (_, COMMENT) => container(false),
        _ => None,
    }
}

/// How a tag word was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Classified {
    /// The resolved id (with 0x2000 when it is an attribute, even if inferred).
    pub id: u16,
    pub container: bool,
    /// The word lacked the namespace bit and context made it an attribute.
    pub namespace_inferred: bool,
    pub known: bool,
    /// A structural id where its parent cannot hold it (e.g. a LOD inside a PATCH): kept
    /// as an opaque leaf, so hostile nesting cannot go deeper than the grammar allows.
    pub misplaced: bool,
}

/// Resolve a tag word in the context of its parent's id.
pub fn classify(parent: Option<u16>, word: u16) -> Classified {
    let raw = word & 0x2FFF;
    if raw & ATTRIBUTE != 0 {
        // An attribute belongs to the chunk around it: one at the top level (a container whose
        // length said less than its children) is said, as a misplaced structural id is.
        let known = name(raw).is_some();
        return Classified {
            id: raw,
            container: false,
            namespace_inferred: false,
            known,
            misplaced: known && parent.is_none(),
        };
    }
    if let Some(container) = structural_child(parent, raw) {
        return Classified {
            id: raw,
            container,
            namespace_inferred: false,
            known: true,
            misplaced: false,
        };
    }
    let attr = raw | ATTRIBUTE;
    if parent.is_some() && name(attr).is_some() {
        return Classified {
            id: attr,
            container: false,
            namespace_inferred: true,
            known: true,
            misplaced: false,
        };
    }
    let known = name(raw).is_some();
    Classified {
        id: raw,
        container: false,
        namespace_inferred: false,
        known,
        misplaced: known,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespace_bit_separates_pmesh_from_lod_distance() {
        assert_eq!(classify(Some(LOD), 0x2046).id, LOD_DISTANCE);
        assert!(classify(Some(PATCH), 0x0046).container);
        assert_eq!(classify(Some(HEADER), 0x2005).id, SCALE);
        assert_eq!(classify(None, 0x0005).id, BIZ_DONE);
    }

    #[test]
    fn bare_ids_are_decoded_by_context() {
        let c = classify(Some(HEADER), 0x0005);
        assert_eq!(
            (c.id, c.namespace_inferred, c.container),
            (SCALE, true, false)
        );
        let c = classify(Some(LOD), 0x0046);
        assert_eq!((c.id, c.namespace_inferred), (LOD_DISTANCE, true));
        let c = classify(Some(PATCH), 0x0046);
        assert_eq!(
            (c.id, c.container, c.namespace_inferred),
            (PMESH, true, false)
        );
        // The length-width bits and bit 0x1000 never change the id.
        assert_eq!(classify(Some(PATCH), 0x4046 | UNKNOWN_BIT).id, PMESH);
    }

    #[test]
    fn unknown_ids_are_leaves() {
        let c = classify(Some(OBJECT), 0x0777);
        assert!(!c.known && !c.container);
    }

    #[test]
    fn every_layout_has_a_name_and_consistent_width() {
        for l in VERTEX_LAYOUTS {
            assert!(name(l.id).is_some());
            let mut end = 3;
            for (off, n) in [
                (l.normal, 3),
                (l.rgba, 4),
                (l.lum, 2),
                (l.uv, 2),
                (l.uvw, 3),
            ] {
                if let Some(o) = off {
                    assert_eq!(o, end, "format {:#x}", l.id);
                    end += n;
                }
            }
            assert_eq!(end, l.floats, "format {:#x}", l.id);
        }
    }
}
