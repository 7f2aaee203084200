//! The pieces a record is declared with: `record!`, the table of its fields (`Field`), and
//! what a field's Rust type knows about reading, reporting and flattening its value
//! (`FieldType`). A field's behaviour comes from its type, so the declaration line holds only
//! its name, type, storage, who may state it and where the report shows it.

use super::types::Sourced;
use crate::vocabulary::site::Vocabulary;
use serde::ser::SerializeMap;
use serde_json::Value;
use std::borrow::Cow;

/// A record's value by its semantic name, as the edge reading it holds it (a file feature's
/// properties through the layer's renames, a drawn plan's properties).
pub type Get<'a> = &'a dyn Fn(&str) -> Option<Value>;

/// One declared field of a record.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// The field's name, everywhere: the record's key, the report's key, facts and prose.
    pub name: &'static str,
    /// The field as a finding's source names it ("site record: common_plan").
    pub source: &'static str,
    /// The declaration's `///` lines.
    pub doc: &'static [&'static str],
    pub store: Store,
    pub may: May,
    pub report: ReportAs,
    /// The flat columns of the field's type (`FieldType::FLAT`).
    pub flat: &'static [FlatShape],
}

/// Where the registry keeps a field: its own column, or a key of the row's `attributes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Store {
    Column,
    Json,
}

/// Who may state a field: the applicant (and the officer), or the officer alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum May {
    Applicant,
    Officer,
}

/// Whether the report's `site` block shows a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportAs {
    Shown,
    Hidden,
}

/// One flat column of a field: its name in a CSV, in a .dbf (at most 10 characters, `None`:
/// not exported) and among a site's served properties (`None`: not served).
#[derive(Debug, Clone, Copy)]
pub struct FlatShape {
    pub csv: Name,
    pub dbf: Option<Name>,
    pub served: Option<Name>,
    /// The value may run long (a list, a source): a wide .dbf column.
    pub long_text: bool,
}

/// A flat column's name, given by the type, which knows its field's name only at run time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Name {
    /// The field's own name.
    Field,
    /// The field's name and this ending ("status" + "_recorded").
    Suffixed(&'static str),
    /// A name of its own, kept from before the record was declared.
    Exact(&'static str),
}

impl Name {
    pub fn of(self, field: &Field) -> Cow<'static, str> {
        match self {
            Name::Field => Cow::Borrowed(field.name),
            Name::Suffixed(end) => Cow::Owned(format!("{}{end}", field.name)),
            Name::Exact(name) => Cow::Borrowed(name),
        }
    }
}

/// What the check concluded about the record's own fields, which the report and the flat
/// columns show beside them: the land use after the parcel-class fallback, and each claim's
/// outcome (`Some(true)` verified, `Some(false)` does not apply, `None` unverified).
#[derive(Debug, Clone, PartialEq)]
pub struct Outcomes {
    pub single_family: Sourced,
    pub agricultural: Sourced,
    pub verified: Vec<Option<bool>>,
}

/// What a field's type knows; the declaration adds its name, storage, roles and report.
pub trait FieldType: Clone + Default + PartialEq + std::fmt::Debug + Send + Sync + 'static {
    /// The flat columns the value spreads into, when the record is listed flat.
    const FLAT: &'static [FlatShape] = &[];

    /// Reads the value leniently (a file, a stored row): what cannot be read is kept as
    /// unreadable or left out, with a problem naming `at`.
    fn read(at: &'static str, get: Get, words: &Vocabulary, problems: &mut Vec<String>) -> Self;

    /// Writes the report's entries for the field called `at`.
    fn report<M: SerializeMap>(&self, at: &str, cx: &Outcomes, map: &mut M)
        -> Result<(), M::Error>;

    /// One text per `FLAT` entry (`None`: an empty cell, a JSON null).
    fn flat(&self, _cx: &Outcomes) -> Vec<Option<String>> {
        Vec::new()
    }
}

/// The problems of each field, listed as the record's flat columns list it (status,
/// approval, claims, land use), then the other fields in declaration order: the order the
/// record's problems have always had.
pub fn problems_in_order(
    mut found: Vec<(&'static str, Vec<String>)>,
    first: &[&str],
) -> Vec<String> {
    let mut out = Vec::new();
    for name in first {
        if let Some(i) = found.iter().position(|(n, _)| n == name) {
            out.append(&mut found.remove(i).1);
        }
    }
    for (_, mut problems) in found {
        out.append(&mut problems);
    }
    out
}

/// Declares a record: the struct, the table of its fields (`FIELDS.x.name` names a field in
/// code, never a string), its lenient reader, the report's block and the flat columns.
/// `part` declares a record kept inside another (a claim's evidence): the struct (serialized
/// in declaration order), its table and its reader.
macro_rules! record {
    (
        $(#[doc = $d:literal])*
        pub struct $T:ident : table $table:ident, key $key:ident as $col:ident,
            fields $FIELDS:ident : $Fields:ident, flat($($flat:ident),* $(,)?)
        { $( $(#[doc = $fd:literal])* $f:ident : $ty:ty => $store:ident, $may:ident, $rep:ident; )* }
    ) => {
        $(#[doc = $d])*
        #[derive(Debug, Clone, Default, PartialEq)]
        pub struct $T {
            pub $key: String,
            $( $(#[doc = $fd])* pub $f: $ty, )*
            /// What could not be read, each naming its field and the value.
            pub problems: Vec<String>,
        }

        record!(@fields $Fields, $FIELDS, $( $(#[doc = $fd])* $f : $ty => $store, $may, $rep; )*);

        impl $Fields {
            /// The fields whose columns the flat outputs carry, in their order.
            pub fn flat(&self) -> [&$crate::record::Field; [$(stringify!($flat)),*].len()] {
                [$(&self.$flat),*]
            }
        }

        impl $T {
            /// The registry's table and its key column.
            pub const TABLE: &'static str = stringify!($table);
            pub const KEY_COLUMN: &'static str = stringify!($col);

            /// Reads the record leniently: every field by its type, each problem naming it.
            pub fn read(id: impl Into<String>, get: $crate::record::Get, words: &$crate::vocabulary::site::Vocabulary) -> $T {
                let mut found: Vec<(&'static str, Vec<String>)> = Vec::new();
                $(
                    let mut problems = Vec::new();
                    let $f = <$ty as $crate::record::FieldType>::read(stringify!($f), get, words, &mut problems);
                    found.push((stringify!($f), problems));
                )*
                $T {
                    $key: id.into(),
                    $($f,)*
                    problems: $crate::record::problems_in_order(found, &[$(stringify!($flat)),*]),
                }
            }

            /// The report's entries for the fields it shows, in declaration order.
            pub fn report_block<M: ::serde::ser::SerializeMap>(&self, cx: &$crate::record::Outcomes, map: &mut M) -> Result<(), M::Error> {
                $(
                    if $FIELDS.$f.report == $crate::record::ReportAs::Shown {
                        $crate::record::FieldType::report(&self.$f, $FIELDS.$f.name, cx, map)?;
                    }
                )*
                Ok(())
            }

            /// The flat columns' values, in the order of `flat()`, each with its field and shape.
            pub fn flat(&self, cx: &$crate::record::Outcomes) -> Vec<(&'static $crate::record::Field, &'static $crate::record::FlatShape, Option<String>)> {
                let mut out = Vec::new();
                $(
                    let field = &$FIELDS.$flat;
                    out.extend(field.flat.iter().zip($crate::record::FieldType::flat(&self.$flat, cx)).map(|(s, v)| (field, s, v)));
                )*
                out
            }
        }
    };
    (
        $(#[doc = $d:literal])*
        pub struct $T:ident : part, fields $FIELDS:ident : $Fields:ident
        { $( $(#[doc = $fd:literal])* $f:ident : $ty:ty => $store:ident, $may:ident, $rep:ident; )* }
    ) => {
        $(#[doc = $d])*
        #[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
        pub struct $T {
            $( $(#[doc = $fd])* pub $f: $ty, )*
        }

        record!(@fields $Fields, $FIELDS, $( $(#[doc = $fd])* $f : $ty => $store, $may, $rep; )*);

        impl $T {
            /// Reads each field leniently, in declaration order.
            pub fn read(get: $crate::record::Get, words: &$crate::vocabulary::site::Vocabulary, problems: &mut Vec<String>) -> $T {
                $T { $( $f: <$ty as $crate::record::FieldType>::read(stringify!($f), get, words, problems), )* }
            }
        }
    };
    (@fields $Fields:ident, $FIELDS:ident,
        $( $(#[doc = $fd:literal])* $f:ident : $ty:ty => $store:ident, $may:ident, $rep:ident; )*
    ) => {
        /// The declared fields, one `Field` each under the field's own name.
        pub struct $Fields {
            $( pub $f: $crate::record::Field, )*
        }

        pub static $FIELDS: $Fields = $Fields {
            $(
                $f: $crate::record::Field {
                    name: stringify!($f),
                    source: concat!("site record: ", stringify!($f)),
                    doc: &[$($fd),*],
                    store: $crate::record::Store::$store,
                    may: $crate::record::May::$may,
                    report: $crate::record::ReportAs::$rep,
                    flat: <$ty as $crate::record::FieldType>::FLAT,
                },
            )*
        };

        impl $Fields {
            /// Every field, in declaration order.
            pub fn all(&self) -> [&$crate::record::Field; [$(stringify!($f)),*].len()] {
                [$(&self.$f),*]
            }
        }
    };
}

pub(crate) use record;
