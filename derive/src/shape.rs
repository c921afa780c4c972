//! What a field's type is, as far as its name tells: the macro sees tokens,
//! not types, so `String`, `bool`, the integer and float types, `Vec<_>` and
//! `Option<_>` are known by their usual paths, and anything else (an alias, a
//! type of the user's) is [`Shape::Other`], checked by the compiler instead.

use syn::{GenericArgument, PathArguments, Type, TypePath};

/// The kind of field a type gives, `Option` taken off.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Shape {
    Text,
    Integer(IntRange),
    Float,
    Bool,
    /// A `Vec` of anything: a multi-choice.
    List,
    /// `HashMap`, `BTreeMap`, `IndexMap`: never a field (forms are flat).
    Map,
    Other,
}

/// The values an integer type holds, and its name for messages.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct IntRange {
    pub(crate) name: &'static str,
    pub(crate) min: i128,
    pub(crate) max: i128,
}

const INTEGERS: [IntRange; 8] = [
    int("i8", i8::MIN as i128, i8::MAX as i128),
    int("i16", i16::MIN as i128, i16::MAX as i128),
    int("i32", i32::MIN as i128, i32::MAX as i128),
    int("i64", i64::MIN as i128, i64::MAX as i128),
    int("u8", 0, u8::MAX as i128),
    int("u16", 0, u16::MAX as i128),
    int("u32", 0, u32::MAX as i128),
    int("u64", 0, u64::MAX as i128),
];

const fn int(name: &'static str, min: i128, max: i128) -> IntRange {
    IntRange { name, min, max }
}

impl Shape {
    /// The shape of `ty`, looking through `Option`.
    pub(crate) fn of(ty: &Type) -> Self {
        let ty = ungroup(ty);
        let Type::Path(path) = ty else {
            return Self::Other;
        };
        let name = plain_path(path);
        let last = path.path.segments.last().map(|s| s.ident.to_string());
        if path.qself.is_none()
            && matches!(last.as_deref(), Some("HashMap" | "BTreeMap" | "IndexMap"))
        {
            return Self::Map;
        }
        if let Some(inner) = only_type_argument(path) {
            return match name.as_str() {
                "Option" | "std::option::Option" | "core::option::Option" => Self::of(inner),
                "Vec" | "std::vec::Vec" | "alloc::vec::Vec" => Self::List,
                _ => Self::Other,
            };
        }
        match name.as_str() {
            "String" | "std::string::String" | "alloc::string::String" => Self::Text,
            "bool" => Self::Bool,
            "f32" | "f64" => Self::Float,
            _ => INTEGERS
                .iter()
                .find(|r| r.name == name)
                .map_or(Self::Other, |&r| Self::Integer(r)),
        }
    }

    /// How a message names this shape.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Self::Text => "a text field",
            Self::Integer(_) => "an integer field",
            Self::Float => "a float field",
            Self::Bool => "a boolean field",
            Self::List => "a multi-choice field",
            Self::Map => "a map",
            Self::Other => "this field",
        }
    }
}

/// Whether `ty` is written as an `Option<_>`.
pub(crate) fn is_option(ty: &Type) -> bool {
    let Type::Path(path) = ungroup(ty) else {
        return false;
    };
    only_type_argument(path).is_some()
        && matches!(
            plain_path(path).as_str(),
            "Option" | "std::option::Option" | "core::option::Option"
        )
}

/// `(T)` and invisible groups (a type from a `macro_rules!`) as `T`.
fn ungroup(ty: &Type) -> &Type {
    match ty {
        Type::Group(g) => ungroup(&g.elem),
        Type::Paren(p) => ungroup(&p.elem),
        _ => ty,
    }
}

/// `std::option::Option<T>` → `"std::option::Option"`; a qualified path
/// (`<T as Trait>::X`) → `""`.
fn plain_path(path: &TypePath) -> String {
    if path.qself.is_some() {
        return String::new();
    }
    let names: Vec<String> = path
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    names.join("::")
}

/// The `T` of `Name<T>`, when the last segment has exactly one type argument
/// and no other segment has any.
fn only_type_argument(path: &TypePath) -> Option<&Type> {
    let segments = &path.path.segments;
    let last = segments.last()?;
    let mut init = segments.iter().take(segments.len().saturating_sub(1));
    if init.any(|s| !s.arguments.is_none()) {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first() {
        Some(GenericArgument::Type(t)) if args.args.len() == 1 => Some(t),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(ty: &str) -> Shape {
        syn::parse_str::<Type>(ty).map_or(Shape::Other, |t| Shape::of(&t))
    }

    #[test]
    fn known_names_through_options() {
        assert_eq!(shape("String"), Shape::Text);
        assert_eq!(shape("Option<Option<std::string::String>>"), Shape::Text);
        assert_eq!(shape("core::option::Option<bool>"), Shape::Bool);
        assert_eq!(shape("Option<f32>"), Shape::Float);
        assert_eq!(shape("Vec<Speed>"), Shape::List);
        assert!(matches!(shape("u8"), Shape::Integer(r) if r.max == 255));
        assert_eq!(shape("Text"), Shape::Other);
        assert_eq!(shape("my::String"), Shape::Other);
        assert_eq!(shape("Option<String, X>"), Shape::Other);
        assert_eq!(shape("<T as Tr>::Option<u8>"), Shape::Other);
        assert_eq!(shape("&'static str"), Shape::Other);
        assert_eq!(shape("i128"), Shape::Other);
        assert_eq!(shape("HashMap<String, u8>"), Shape::Map);
        assert_eq!(
            shape("Option<std::collections::BTreeMap<String, u8>>"),
            Shape::Map
        );
        assert!(is_option(&syn::parse_quote!(Option<u8>)));
        assert!(!is_option(&syn::parse_quote!(Vec<u8>)));
    }
}
