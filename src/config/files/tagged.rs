//! One entry of a flat mapping read as a variant of a tagged enum: `delay: 2s` among a
//! fault rule's other keys becomes `RawAction::Delay("2s")`. The value is read by the file's
//! own deserializer, so its type errors keep their key path, line and column; the enum's
//! variant names (as serde renames them) are the keys, listed by [`variant_names`] and
//! read as field names by [`FieldName`].

use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::value::BorrowedStrDeserializer;
use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, VariantAccess, Visitor};

/// The variant names of the enum `T` as its `Deserialize` reads them (`rename_all` applied),
/// in declaration order; empty when `T` is no enum.
pub(crate) fn variant_names<T: for<'de> Deserialize<'de>>() -> &'static [&'static str] {
    match T::deserialize(VariantProbe) {
        Err(ProbeAnswer(Some(names))) => names,
        _ => &[],
    }
}

/// The keys as a message lists them: "`a`, `b` or `c`".
pub(crate) fn listed(keys: &[&str]) -> String {
    let quoted: Vec<String> = keys.iter().map(|key| format!("`{key}`")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => quoted.concat(),
    }
}

/// Reads a mapping's key as serde reads a struct's field name: one of the keys given, else
/// the "unknown field" error that lists them.
pub(crate) struct FieldName(pub(crate) &'static [&'static str]);

impl<'de> DeserializeSeed<'de> for FieldName {
    type Value = &'static str;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<&'static str, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for FieldName {
    type Value = &'static str;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("field identifier")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<&'static str, E> {
        let known = self.0.iter().find(|known| **known == key);
        known.copied().ok_or_else(|| E::unknown_field(key, self.0))
    }
}

/// Reads the value of the mapping entry `key` as `T`'s variant `key`; `None` when the value
/// is null, as for a key not written (what an `Option` field reads).
pub(crate) struct TaggedEntry<T> {
    key: &'static str,
    tagged: PhantomData<T>,
}

impl<T> TaggedEntry<T> {
    pub(crate) fn new(key: &'static str) -> Self {
        TaggedEntry {
            key,
            tagged: PhantomData,
        }
    }
}

impl<'de, T: Deserialize<'de>> DeserializeSeed<'de> for TaggedEntry<T> {
    type Value = Option<T>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<T>, D::Error> {
        deserializer.deserialize_option(self)
    }
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for TaggedEntry<T> {
    type Value = Option<T>;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("option")
    }

    fn visit_none<E: de::Error>(self) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, value: D) -> Result<Option<T>, D::Error> {
        let key = self.key;
        T::deserialize(EntryValue { key, value }).map(Some)
    }
}

/// An entry's value as the enum access of its key's variant.
struct EntryValue<D> {
    key: &'static str,
    value: D,
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for EntryValue<D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        visitor.visit_enum(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

impl<'de, D: Deserializer<'de>> EnumAccess<'de> for EntryValue<D> {
    type Error = D::Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self), D::Error> {
        let variant = seed.deserialize(BorrowedStrDeserializer::new(self.key))?;
        Ok((variant, self))
    }
}

impl<'de, D: Deserializer<'de>> VariantAccess<'de> for EntryValue<D> {
    type Error = D::Error;

    fn unit_variant(self) -> Result<(), D::Error> {
        <()>::deserialize(self.value)
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<S::Value, D::Error> {
        seed.deserialize(self.value)
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, D::Error> {
        self.value.deserialize_tuple(len, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.value.deserialize_struct(self.key, fields, visitor)
    }
}

/// A deserializer that reads nothing: it answers an enum's `Deserialize` with the variant
/// names that enum passes to `deserialize_enum`.
struct VariantProbe;

/// What the probe found: the variant names, or `None` for a type that is no enum.
#[derive(Debug)]
struct ProbeAnswer(Option<&'static [&'static str]>);

impl fmt::Display for ProbeAnswer {
    fn fmt(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("variant names probed")
    }
}

impl std::error::Error for ProbeAnswer {}

impl de::Error for ProbeAnswer {
    fn custom<M: fmt::Display>(_: M) -> Self {
        ProbeAnswer(None)
    }
}

impl<'de> Deserializer<'de> for VariantProbe {
    type Error = ProbeAnswer;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, ProbeAnswer> {
        Err(ProbeAnswer(None))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        variants: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, ProbeAnswer> {
        Err(ProbeAnswer(Some(variants)))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct
        identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "camelCase")]
    enum Sample {
        Plain(bool),
        TwoWords(String),
    }

    #[test]
    fn the_keys_are_the_variant_names_in_order_and_listed_as_messages_do() {
        assert_eq!(variant_names::<Sample>(), ["plain", "twoWords"]);
        assert!(variant_names::<String>().is_empty());
        assert_eq!(listed(variant_names::<Sample>()), "`plain` or `twoWords`");
        assert_eq!(listed(&["a", "b", "c"]), "`a`, `b` or `c`");
        assert_eq!(listed(&["a"]), "`a`");
    }

    #[test]
    fn an_entry_reads_its_variant_and_null_as_not_written() {
        let read = |key, value| TaggedEntry::<Sample>::new(key).deserialize(value);
        let text = serde_json::json!("x");
        assert_eq!(
            read("twoWords", text).unwrap(),
            Some(Sample::TwoWords("x".into()))
        );
        assert_eq!(read("plain", serde_json::Value::Null).unwrap(), None);
        assert!(read("plain", serde_json::json!(3)).is_err());
    }
}
