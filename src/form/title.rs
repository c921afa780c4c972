//! Readable default titles from wire names.

/// `trackingNumber` → `Tracking Number`, `time_to_live` → `Time To Live`,
/// `HTTPServer` → `HTTP Server`.
pub(crate) fn humanize(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len().saturating_add(4));
    let mut at_word_start = true;
    for (i, &c) in chars.iter().enumerate() {
        if c == '_' || c == '-' || c.is_whitespace() {
            at_word_start = true;
            continue;
        }
        let prev = i.checked_sub(1).and_then(|p| chars.get(p)).copied();
        let next = chars.get(i.saturating_add(1)).copied();
        let boundary = c.is_uppercase()
            && prev.is_some_and(|p| {
                p.is_lowercase()
                    || p.is_ascii_digit()
                    || (p.is_uppercase() && next.is_some_and(char::is_lowercase))
            });
        if (at_word_start || boundary) && !out.is_empty() {
            out.push(' ');
        }
        if at_word_start || boundary {
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
        at_word_start = false;
    }
    if out.is_empty() { name.to_owned() } else { out }
}

#[cfg(test)]
mod tests {
    use super::humanize;

    #[test]
    fn readable_titles() {
        assert_eq!(humanize("trackingNumber"), "Tracking Number");
        assert_eq!(humanize("time_to_live"), "Time To Live");
        assert_eq!(humanize("HTTPServer"), "HTTP Server");
        assert_eq!(humanize("userID"), "User ID");
        assert_eq!(humanize("email"), "Email");
        assert_eq!(humanize("address2"), "Address2");
        assert_eq!(humanize("kebab-case name"), "Kebab Case Name");
        assert_eq!(humanize("__"), "__");
    }
}
