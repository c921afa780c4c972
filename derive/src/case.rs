//! serde's `rename_all` rules, applied the way serde applies them: to a field
//! name written in `snake_case`, or to a variant name written in `PascalCase`.

/// One `rename_all` rule.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Case {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

/// Every rule under the name serde gives it.
const NAMES: [(&str, Case); 8] = [
    ("lowercase", Case::Lower),
    ("UPPERCASE", Case::Upper),
    ("PascalCase", Case::Pascal),
    ("camelCase", Case::Camel),
    ("snake_case", Case::Snake),
    ("SCREAMING_SNAKE_CASE", Case::ScreamingSnake),
    ("kebab-case", Case::Kebab),
    ("SCREAMING-KEBAB-CASE", Case::ScreamingKebab),
];

impl Case {
    /// The rule serde knows by this name.
    pub(crate) fn from_name(name: &str) -> Option<Self> {
        NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, case)| case)
    }

    /// The names serde knows, for an error message.
    pub(crate) fn names() -> String {
        NAMES.map(|(n, _)| format!("\"{n}\"")).join(", ")
    }

    /// A struct field's name (`snake_case`) renamed by this rule.
    pub(crate) fn field(self, name: &str) -> String {
        match self {
            Self::Lower | Self::Snake => name.to_owned(),
            Self::Upper | Self::ScreamingSnake => name.to_ascii_uppercase(),
            Self::Pascal => pascal(name),
            Self::Camel => lower_first(&pascal(name)),
            Self::Kebab => name.replace('_', "-"),
            Self::ScreamingKebab => name.to_ascii_uppercase().replace('_', "-"),
        }
    }

    /// An enum variant's name (`PascalCase`) renamed by this rule.
    pub(crate) fn variant(self, name: &str) -> String {
        match self {
            Self::Pascal => name.to_owned(),
            Self::Lower => name.to_ascii_lowercase(),
            Self::Upper => name.to_ascii_uppercase(),
            Self::Camel => lower_first(name),
            Self::Snake => snake(name),
            Self::ScreamingSnake => snake(name).to_ascii_uppercase(),
            Self::Kebab => snake(name).replace('_', "-"),
            Self::ScreamingKebab => snake(name).to_ascii_uppercase().replace('_', "-"),
        }
    }
}

/// `tracking_number` → `TrackingNumber`: underscores dropped, the letter
/// after each one (and the first) upper-cased.
fn pascal(snake: &str) -> String {
    snake.split('_').map(upper_first).collect()
}

/// `NextDay` → `next_day`: an underscore before every upper-case letter but
/// the first, then all lower-cased.
fn snake(pascal: &str) -> String {
    let mut out = String::with_capacity(pascal.len().saturating_add(4));
    for (i, c) in pascal.char_indices() {
        if i > 0 && c.is_uppercase() {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

fn upper_first(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_ascii_uppercase().to_string() + chars.as_str()
    })
}

fn lower_first(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_ascii_lowercase().to_string() + chars.as_str()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_on_a_field_and_a_variant() {
        let expected = [
            ("lowercase", "gift_note", "nextday"),
            ("UPPERCASE", "GIFT_NOTE", "NEXTDAY"),
            ("PascalCase", "GiftNote", "NextDay"),
            ("camelCase", "giftNote", "nextDay"),
            ("snake_case", "gift_note", "next_day"),
            ("SCREAMING_SNAKE_CASE", "GIFT_NOTE", "NEXT_DAY"),
            ("kebab-case", "gift-note", "next-day"),
            ("SCREAMING-KEBAB-CASE", "GIFT-NOTE", "NEXT-DAY"),
        ];
        for (name, field, variant) in expected {
            let case = Case::from_name(name);
            assert_eq!(case.map(|c| c.field("gift_note")).as_deref(), Some(field));
            assert_eq!(case.map(|c| c.variant("NextDay")).as_deref(), Some(variant));
        }
        assert!(Case::from_name("Title Case").is_none());
    }
}
