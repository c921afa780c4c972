//! RFC 3339 `full-date` and `date-time`: real calendar, leap years, leap
//! seconds only at 23:59:60 UTC.

use super::cursor::Cursor;

/// `YYYY-MM-DD` is exactly 10 bytes.
const DATE_LEN: usize = 10;
/// Room for a date-time with a long second fraction; anything longer is refused unread.
const MAX_DATE_TIME_LEN: usize = 64;

pub(super) fn is_date(s: &str) -> bool {
    if s.len() != DATE_LEN {
        return false;
    }
    let mut c = Cursor::new(s.as_bytes());
    full_date(&mut c).is_some() && c.at_end()
}

pub(super) fn is_date_time(s: &str) -> bool {
    if s.len() > MAX_DATE_TIME_LEN {
        return false;
    }
    let mut c = Cursor::new(s.as_bytes());
    date_time(&mut c).is_some() && c.at_end()
}

fn full_date(c: &mut Cursor<'_>) -> Option<()> {
    let year = c.digits(4)?;
    c.eat(b'-').then_some(())?;
    let month = c.digits(2)?;
    c.eat(b'-').then_some(())?;
    let day = c.digits(2)?;
    (1..=days_in_month(year, month)?)
        .contains(&day)
        .then_some(())
}

fn days_in_month(year: u32, month: u32) -> Option<u32> {
    let leap = year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => Some(31),
        4 | 6 | 9 | 11 => Some(30),
        2 if leap => Some(29),
        2 => Some(28),
        _ => None,
    }
}

fn date_time(c: &mut Cursor<'_>) -> Option<()> {
    full_date(c)?;
    (c.eat(b'T') || c.eat(b't')).then_some(())?;
    let hour = c.digits(2)?;
    c.eat(b':').then_some(())?;
    let minute = c.digits(2)?;
    c.eat(b':').then_some(())?;
    let second = c.digits(2)?;
    if hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    if c.eat(b'.') && c.eat_while(|b| b.is_ascii_digit()) == 0 {
        return None;
    }
    // Offset in minutes east of UTC.
    let offset: i64 = if c.eat(b'Z') || c.eat(b'z') {
        0
    } else {
        let sign: i64 = match c.bump()? {
            b'+' => 1,
            b'-' => -1,
            _ => return None,
        };
        let oh = c.digits(2)?;
        c.eat(b':').then_some(())?;
        let om = c.digits(2)?;
        if oh > 23 || om > 59 {
            return None;
        }
        sign.checked_mul(i64::from(oh).checked_mul(60)?.checked_add(i64::from(om))?)?
    };
    if second == 60 {
        // A leap second is inserted at 23:59:60 UTC only.
        let local = i64::from(hour)
            .checked_mul(60)?
            .checked_add(i64::from(minute))?;
        let utc = local.checked_sub(offset)?.rem_euclid(24 * 60);
        if utc != 23 * 60 + 59 {
            return None;
        }
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert!(is_date("2020-02-29"));
        assert!(is_date("0400-02-29"));
        assert!(!is_date("2100-02-29"));
        assert!(!is_date("2021-02-29"));
        assert!(!is_date("2020-13-01"));
        assert!(!is_date("2020-01-0:"));
        assert!(!is_date("২020-01-01"));
    }

    #[test]
    fn date_times() {
        assert!(is_date_time("1998-12-31T23:59:60Z"));
        assert!(is_date_time("1998-12-31T15:59:60.123-08:00"));
        assert!(is_date_time("1998-12-31t00:29:60+00:30"));
        assert!(is_date_time("1999-01-01T00:29:60+00:30"));
        assert!(!is_date_time("1998-12-31T22:59:60Z"));
        assert!(!is_date_time("1990-12-31T15:59:59-24:00"));
        assert!(!is_date_time("1985-04-12T23:20:50Z\n"));
        assert!(!is_date_time("1985-04-12T23:20:50.Z"));
        assert!(!is_date_time(&format!(
            "1985-04-12T23:20:50.{}Z",
            "9".repeat(100)
        )));
    }
}
