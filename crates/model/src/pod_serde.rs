//! Serde for arrays of plain numbers (vertex, index and texel arrays): one raw little-endian
//! block in binary formats (the wire form of the services crate's wire.rs, a copy each way), the numbers as
//! themselves in human-readable ones. A leaf: the scene and the texels use it, and nothing
//! it uses knows them.

use bytemuck::Pod;
use serde::de::{self, Deserializer, Visitor};
use serde::ser::Serializer;
use serde::{Deserialize, Serialize};
use std::marker::PhantomData;

/// The bytes of a Pod array, or the array itself for human-readable formats.
struct PodRef<'a, T>(&'a [T]);

impl<T: Pod + Serialize> Serialize for PodRef<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            self.0.serialize(s)
        } else {
            s.serialize_bytes(bytemuck::cast_slice(self.0))
        }
    }
}

struct PodVec<T>(Vec<T>);

impl<'de, T: Pod + Deserialize<'de>> Deserialize<'de> for PodVec<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if d.is_human_readable() {
            return Vec::<T>::deserialize(d).map(PodVec);
        }
        struct Bytes<T>(PhantomData<T>);
        impl<T: Pod> Visitor<'_> for Bytes<T> {
            type Value = Vec<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                write!(f, "a block of {}-byte elements", std::mem::size_of::<T>())
            }
            fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Vec<T>, E> {
                let size = std::mem::size_of::<T>();
                if size == 0 || v.len() % size != 0 {
                    return Err(E::invalid_length(v.len(), &self));
                }
                let n = v.len() / size;
                let mut out = Vec::<T>::with_capacity(n);
                // SAFETY: the capacity holds n elements = v.len() bytes; T is Pod, so any bytes
                // are a valid T; copying bytewise needs no alignment of `v`. (bytemuck's
                // pod_collect_to_vec would zero the memory first: a second pass over
                // tens of megabytes on the page's thread.)
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        v.as_ptr(),
                        out.as_mut_ptr().cast::<u8>(),
                        v.len(),
                    );
                    out.set_len(n);
                }
                Ok(out)
            }
        }
        d.deserialize_bytes(Bytes(PhantomData)).map(PodVec)
    }
}

/// `#[serde(with = "crate::pod_serde::pod_vec")]` for `Vec<T>` of plain numbers.
pub mod pod_vec {
    use super::*;
    pub fn serialize<T: Pod + Serialize, S: Serializer>(v: &[T], s: S) -> Result<S::Ok, S::Error> {
        PodRef(v).serialize(s)
    }
    pub fn deserialize<'de, T: Pod + Deserialize<'de>, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Vec<T>, D::Error> {
        PodVec::deserialize(d).map(|v| v.0)
    }
}

/// `#[serde(with = "crate::pod_serde::pod_vec_option")]` for `Option<Vec<T>>` of plain numbers.
pub mod pod_vec_option {
    use super::*;
    pub fn serialize<T: Pod + Serialize, S: Serializer>(
        v: &Option<Vec<T>>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        v.as_deref().map(PodRef).serialize(s)
    }
    pub fn deserialize<'de, T: Pod + Deserialize<'de>, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Vec<T>>, D::Error> {
        Ok(Option::<PodVec<T>>::deserialize(d)?.map(|v| v.0))
    }
}

/// `#[serde(with = "crate::pod_serde::shared_bytes")]` for texels shared behind an `Arc`.
pub mod shared_bytes {
    use super::*;
    use std::sync::Arc;
    pub fn serialize<S: Serializer>(v: &Arc<Vec<u8>>, s: S) -> Result<S::Ok, S::Error> {
        PodRef(v.as_slice()).serialize(s)
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Arc<Vec<u8>>, D::Error> {
        PodVec::deserialize(d).map(|v| Arc::new(v.0))
    }
}
